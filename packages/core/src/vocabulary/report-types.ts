/** What a restore session reports: its attempts, the lines it skipped, the sets that did not converge. */
import type { IpsetsErrorCode } from '../errors.js';
import type { ClassifiedError, IpsetErrorKind, Outcome } from './error-kinds.js';
import type { PlanNote, RestorePlan } from './plan-types.js';


/** One run of `ipset restore` in a session. */
export interface AttemptRecord {
  /** 1-based. */
  attempt: number;
  /** Plan indices of the lines sent, in order. */
  lineIndices: readonly number[];
  exitCode: number;
  signal?: string;
  error?: ClassifiedError;
  /** What the session did next. */
  action: 'done' | 'skip-line' | 'skip-section' | 'retry-line' | 'retry' | 'resume-batch' | 'abort';
}

/** A plan line that was not applied. */
export interface SkippedLine {
  /** Plan index. */
  index: number;
  /** The rendered line. */
  text: string;
  set: string;
  /**
   * `failed`: this line's error; `section-aborted`: dropped with the failing line's
   * section; `same-set`: dropped because an earlier line of the same set failed in a
   * way that repeats for it (a full hash, a missing set, a set of another type).
   */
  reason: 'failed' | 'section-aborted' | 'same-set';
  kind: IpsetErrorKind;
  message: string;
  outcome: Outcome;
}

/** The end of a restore session, or of a driver. */
export interface ApplyReport {
  /** True when every set of the plan reached its desired state. */
  converged: boolean;
  /** The plan that was run (with its basis, for `commit`). */
  plan: RestorePlan;
  attempts: AttemptRecord[];
  linesTotal: number;
  /** Lines known to have reached the kernel. */
  linesApplied: number;
  skipped: SkippedLine[];
  /** Kernel names that did not reach their desired state. */
  failedSets: string[];
  /** Kernel names whose destroy was refused because they are referenced. */
  inUseSets: string[];
  /** Why the session ended early, if it did; then nothing after the last known point counts as applied. */
  fatal?: { code: IpsetsErrorCode; message: string; error?: ClassifiedError };
  /** Planner notes carried through (reconcile). */
  notes: PlanNote[];
}
