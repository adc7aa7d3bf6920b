/** Plans: restore lines with their sections and error handlers, as data. */
import type { IpsetErrorKind, Outcome } from './error-kinds.js';
import type { CreateSpec } from './set-model.js';


/** The restore commands a plan uses (`swap`: only in hitless rebuilds, see rebuild.ts). */
export type PlanOp = 'create' | 'add' | 'del' | 'flush' | 'destroy' | 'swap';

/** One error handler of a line; the first whose `when` matches wins. */
export interface ErrorHandler {
  when: IpsetErrorKind | 'any';
  then: 'skip-line' | 'skip-section';
  report: Outcome;
}

/** One restore line of a plan. */
export interface PlanLine {
  op: PlanOp;
  /** Kernel name. */
  set: string;
  /** add/del: the canonical member (del lines render without ` nomatch`). */
  member?: string;
  /** create: the create spec. */
  spec?: CreateSpec;
  /** create: `maxelem` written after the spec (absent: the spec's own). */
  maxelem?: number;
  /** create: `hashsize` written after the spec (absent: the kernel's default). */
  hashsize?: number;
  /** swap: the second set (`-W set to`). */
  to?: string;
  /**
   * The set whose state this line is about, when it is not `set`: the lines of a
   * rebuild act on a temporary set but are reported for the live one.
   */
  subject?: string;
  /** Lines that are skipped together (the reference's `add/update-<prefixed>`, `delete-<prefixed>`). */
  section: string;
  /** First match wins; no match ends the session. */
  onError: readonly ErrorHandler[];
}

/** Something a planner decided that is not a line (reconcile: kept referenced sets, type conflicts …). */
export interface PlanNote {
  /** Kernel name. */
  set: string;
  /**
   * `unreadable-members-rebuilt`: the save showed a member that is not in the canonical
   * form ipset prints for the set's type; it is never echoed into a plan, the set is
   * rebuilt through a temporary set and swap with its desired members instead.
   */
  kind:
    | 'type-conflict-recreated'
    | 'type-conflict-referenced'
    | 'referenced-not-destroyed'
    | 'foreign-skipped'
    | 'unreadable-members-rebuilt'
    | 'info';
  message: string;
}

/** A run of add (or del) lines of one set that differ only in their member. */
export interface MemberRun {
  readonly op: 'add' | 'del';
  readonly set: string;
  readonly section: string;
  readonly onError: readonly ErrorHandler[];
  /** One line per member, in order. */
  readonly members: readonly string[];
}

/** A piece of a plan: one line, or a run of member lines ({@link RestorePlan.pieces}). */
export type PlanPiece = PlanLine | MemberRun;

/**
 * The pieces of a plan: single lines and runs of member lines of one set
 * ({@link MemberRun}, one line per member, with the run's fields), whose expansion is
 * the plan's `lines`, line for line.
 */
export interface PlanPieces {
  /** The number of lines, without making them. */
  readonly lineCount: number;
  /** True once the line objects were made ({@link lines}, or a read of the plan's `lines`). */
  readonly linesMade: boolean;
  /**
   * The pieces, for the plan they were made for and a copy of it whose `lines` are
   * theirs; `undefined` for any other plan (a copy with other lines,
   * `{ ...plan, lines }`), which is read through its lines.
   */
  of(plan: RestorePlan): readonly PlanPiece[] | undefined;
  /** The lines, made on the first call and frozen (what the plan's `lines` gives). */
  lines(): PlanLine[];
}

/** An ordered list of restore lines with their recovery rules. */
export interface RestorePlan {
  /**
   * The lines, in order. In a plan that has {@link pieces} they are those pieces
   * expanded, made on first read (later reads give the same array) and read-only: the
   * array is frozen and the property has no setter, so a change can never disagree with
   * the pieces the renderer reads. To change such a plan, make a new one from its lines.
   */
  readonly lines: PlanLine[];
  /**
   * The plan as pieces: planners hold a large plan's member lines as runs so that
   * planning and rendering make no object per member. A plan written by hand leaves it
   * out and is its `lines`.
   */
  readonly pieces?: PlanPieces;
  notes?: PlanNote[];
  /**
   * Opaque token of the manager state the plan was made from; `manager.commit(report)`
   * uses it so that changes made after planning stay dirty.
   */
  basis?: unknown;
}
