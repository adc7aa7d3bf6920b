/**
 * Plans held as pieces: single lines and runs of member lines.
 *
 * A million-line apply plan is a million line objects, and allocating them (and the
 * collector copying them) was most of planning's time, although the usual reader, the
 * renderer, needs only each set's members in order. A planner therefore hands out a
 * large plan with {@link RestorePlan.pieces}: single lines, and {@link MemberRun}s,
 * runs of add or del lines of one set that differ only in their member. The pieces are
 * the plan; `plan.lines` is their expansion ({@link expandPieces}: exactly the
 * {@link PlanLine}s the planner would have made, same fields, order and indices), made
 * on first read and frozen, so it never disagrees with the pieces; a copy of the plan
 * with other lines is read through those ({@link PlanPieces.of}).
 *
 * Readers inside core read {@link planPieces} and {@link planLineCount}; everything
 * else reads `plan.lines` as before.
 */
import { formatIPv4 } from '../model/ipv4-host.js';
import type { ErrorHandler, MemberRun, PlanLine, PlanNote, PlanPiece, PlanPieces, RestorePlan } from '../vocabulary/plan-types.js';

export type { MemberRun, PlanPiece } from '../vocabulary/plan-types.js';

/**
 * A run of member lines whose members are IPv4 hosts, held as their addresses: the
 * apply planner makes one for a manager's set of plain hosts, and the renderer writes
 * its text from the numbers ({@link HostRun.hostsOf}). Its `members` are the addresses'
 * canonical text, made on first read and frozen, so they always spell the numbers.
 */
export class HostRun implements MemberRun {
  readonly #hosts: Uint32Array;
  #members: readonly string[] | undefined = undefined;

  /** @param hosts the addresses (unsigned 32-bit), one line each; the run keeps the array. */
  constructor(
    readonly op: 'add' | 'del',
    readonly set: string,
    readonly section: string,
    readonly onError: readonly ErrorHandler[],
    hosts: Uint32Array,
  ) {
    this.#hosts = hosts;
  }

  get members(): readonly string[] {
    return (this.#members ??= Object.freeze(Array.from(this.#hosts, formatIPv4)));
  }

  /** The addresses of a run made as a HostRun (read-only by contract), else `undefined`. */
  static hostsOf(piece: PlanPiece): Uint32Array | undefined {
    return #hosts in piece ? piece.#hosts : undefined;
  }
}

/** True when `piece` is a run of member lines. */
export function isMemberRun(piece: PlanPiece): piece is MemberRun {
  return piece instanceof HostRun || (piece as Partial<MemberRun>).members !== undefined;
}

/** The number of lines of a run, without making a host run's member strings. */
export function runLength(run: MemberRun): number {
  return HostRun.hostsOf(run)?.length ?? run.members.length;
}

/**
 * Plans of at most this many lines get their line objects at once and no pieces:
 * deferring costs a few microseconds per plan, which a one-pod change (a handful of
 * lines) would feel.
 */
export const SMALL_PLAN_LINES = 64;

/** The line objects of `pieces`, as the planner would have made them. */
export function expandPieces(pieces: readonly PlanPiece[]): PlanLine[] {
  const lines: PlanLine[] = [];
  for (const piece of pieces) {
    if (!isMemberRun(piece)) {
      lines.push(piece);
      continue;
    }
    const { op, set, section, onError } = piece;
    for (const member of piece.members) lines.push({ op, set, member, section, onError });
  }
  return lines;
}

/**
 * {@link PlanPieces} of a planner's plan. The lines are made once; another plan object
 * carrying these pieces gets them only while its `lines` are these lines (a spread of
 * the plan), not with other lines (a spread with new lines).
 */
class RunPieces implements PlanPieces {
  readonly lineCount: number;
  readonly #pieces: readonly PlanPiece[];
  #plan: RestorePlan | undefined;
  #lines: PlanLine[] | undefined;

  constructor(pieces: readonly PlanPiece[], lineCount: number) {
    this.#pieces = pieces;
    this.lineCount = lineCount;
  }

  /** Makes these the pieces of `plan` (once, by the planner). */
  belongTo(plan: RestorePlan): void {
    this.#plan = plan;
  }

  get linesMade(): boolean {
    return this.#lines !== undefined;
  }

  of(plan: RestorePlan): readonly PlanPiece[] | undefined {
    // The plan's own `lines` cannot change (no setter, a frozen array); a copy's can.
    return plan === this.#plan || (this.#lines !== undefined && plan.lines === this.#lines) ? this.#pieces : undefined;
  }

  lines(): PlanLine[] {
    return (this.#lines ??= Object.freeze(expandPieces(this.#pieces)) as PlanLine[]);
  }
}

/**
 * The plan of `pieces`: for at most {@link SMALL_PLAN_LINES} lines a plain plan of
 * their lines; else a plan with {@link RestorePlan.pieces} and a `lines` getter that
 * expands them once (an own enumerable property of the object literal: spreads and
 * JSON see the lines). Fields are in the order `lines`, `pieces`, `notes` (when
 * given), `basis` (when given: a reconcile plan has none).
 */
export function planFromPieces(pieces: readonly PlanPiece[], notes: PlanNote[] | undefined, basis: unknown): RestorePlan {
  const count = countLines(pieces);
  if (count <= SMALL_PLAN_LINES) {
    const lines = expandPieces(pieces);
    const small: { lines: PlanLine[]; notes?: PlanNote[]; basis?: unknown } = notes === undefined ? { lines } : { lines, notes };
    if (basis !== undefined) small.basis = basis;
    return small;
  }
  const runs = new RunPieces(pieces, count);
  const plan: { readonly lines: PlanLine[]; readonly pieces: PlanPieces; notes?: PlanNote[]; basis?: unknown } = {
    get lines(): PlanLine[] {
      return runs.lines();
    },
    pieces: runs,
  };
  runs.belongTo(plan);
  if (notes !== undefined) plan.notes = notes;
  if (basis !== undefined) plan.basis = basis;
  return plan;
}

/** The pieces of `plan` while they are its lines (see {@link PlanPieces.of}), else `undefined` (read `plan.lines`). */
export function planPieces(plan: RestorePlan): readonly PlanPiece[] | undefined {
  return plan.pieces?.of(plan);
}

/** The number of lines of `plan`, without making its line objects. */
export function planLineCount(plan: RestorePlan): number {
  return planPieces(plan) === undefined ? plan.lines.length : plan.pieces!.lineCount;
}

function countLines(pieces: readonly PlanPiece[]): number {
  let n = 0;
  for (const piece of pieces) n += isMemberRun(piece) ? runLength(piece) : 1;
  return n;
}
