/**
 * The restore session: a pure state machine that turns a plan and the results of
 * `ipset -exist restore` runs into attempts.
 *
 * `ipset restore` is not a transaction. When a run stops at `Error in line N`, what
 * reached the kernel depends on who caught the error (docs/ipset-semantics.md §0, §2):
 *
 * - the **kernel**: every line before N is applied, N and everything after it is not;
 * - ipset in **userspace** (parse error, unknown set on an add/del line): the pending
 *   batch — the run of add/del lines just before N with the same command and set —
 *   was never sent; everything before that run is applied.
 *
 * The reference resumes after N in both cases and silently loses that batch; this session
 * resends it. Every line is idempotent under `-exist`, so resending a line that did
 * reach the kernel is harmless, while skipping one that did not is a lost update.
 *
 * One bad set never blocks another. A failure that repeats for every later line of
 * its set (a full hash, a missing set, a set of another type: set-failures.ts) drops
 * those lines from the same attempt, and the attempt budget counts runs without
 * progress, not runs: the reference skipped one line per run and gave up after five, so a
 * full set stalled every set planned after it.
 *
 * The session does no I/O: {@link RestoreSession.next} says what to run,
 * {@link RestoreSession.record} takes what happened. {@link runRestoreSession} drives
 * it over an {@link IpsetPort}.
 *
 * The state of a session is one `SessionState` (session-state.ts), and every change to
 * it is one of its named transitions: `startAttempt`; on a result `completeAttempt`,
 * or, with the failure classified (attempt-failure.ts `classifyFailure`),
 * `retryAfterCrash`, `retryLine`, `skipFailedLine` (skip the line, resume after it or
 * from its pending batch) or `giveUp`. Every run that may be followed by another goes
 * through `concludeAttempt`, which counts runs without progress; `abandon` ends a
 * session whose run could not be made; session-report.ts builds the report.
 */
import { IpsetsError, isIpsetsError, quote } from '../errors.js';
import { SessionState } from './session-state.js';
import type { Attempt } from './session-state.js';
import type { AbortSignalLike, ApplyReport, CommandResult, IpsetPort, RestorePlan } from '../types.js';

export { pendingBatchStart } from './attempt-failure.js';
export type { Attempt } from './session-state.js';

/**
 * Default number of `ipset restore` runs without progress per session (the reference's
 * `maxTryCount`, which counted every run).
 */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** Options of {@link createRestoreSession}. */
export interface RestoreSessionOptions {
  /**
   * Most `ipset restore` runs without progress before giving up (default
   * {@link DEFAULT_MAX_ATTEMPTS}, at least 1). A run makes progress when it applies or
   * skips a line the session did not know about before: handled errors are free, so a
   * plan with any number of independently failing sets still ends with every other set
   * applied. Runs that change nothing (busy, a crash) count. Every progressing run
   * settles at least one line, so a session never makes more than
   * `lines + maxAttempts` runs.
   */
  maxAttempts?: number;
}

/** Options of {@link runRestoreSession} and the drivers. */
export interface RunRestoreSessionOptions extends RestoreSessionOptions {
  /** Passed to every port call; once aborted, no further attempt is started. */
  signal?: AbortSignalLike;
}

/** A restore session (see the module documentation). */
export interface RestoreSession {
  /**
   * The next attempt to run, or `undefined` when the session is over. Calling it
   * again before {@link record} returns the same attempt.
   */
  next(): Attempt | undefined;
  /**
   * The result of running the attempt last returned by {@link next}.
   *
   * @throws IpsetsError `INVALID_ARGUMENT` when no attempt is outstanding.
   */
  record(result: CommandResult): void;
  /**
   * Ends the session because the outstanding attempt (or the next one) could not be
   * run at all: the port rejected, the caller aborted. Nothing of the outstanding
   * attempt counts as applied. An {@link IpsetsError} keeps its code; anything else
   * ends with `RESTORE_FAILED`.
   */
  fail(error: unknown): void;
  /** The report so far (final once {@link next} returned `undefined`). */
  report(): ApplyReport;
}

/**
 * Starts a restore session over `plan` (see the module documentation). Attempt 1 is
 * the whole plan; an empty plan ends at once, converged.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a `maxAttempts` that is not a positive integer.
 */
export function createRestoreSession(plan: RestorePlan, options: RestoreSessionOptions = {}): RestoreSession {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new IpsetsError('INVALID_ARGUMENT', `Invalid maxAttempts ${quote(maxAttempts)}; expected an integer >= 1.`, {
      details: { maxAttempts },
    });
  }
  const state = new SessionState(plan, maxAttempts);
  // A plain object, as before: its methods work detached, and the state stays private.
  return {
    next: () => state.next(),
    record: (result) => state.record(result),
    fail: (error) => state.abandon(error),
    report: () => state.finishReport(),
  };
}

/**
 * Runs a restore session over `port` until it ends and returns its report. An empty
 * plan makes no port call. A port rejection with an {@link IpsetsError} (binary
 * missing, timeout, abort) ends the session with that code; other rejections are
 * bugs and propagate.
 */
export async function runRestoreSession(
  plan: RestorePlan,
  port: IpsetPort,
  options: RunRestoreSessionOptions = {},
): Promise<ApplyReport> {
  const session = createRestoreSession(plan, options);
  const { signal } = options;
  for (;;) {
    if (signal?.aborted) {
      session.fail(new IpsetsError('ABORTED', 'the restore session was aborted', { cause: signal.reason }));
      break;
    }
    const attempt = session.next();
    if (attempt === undefined) break;
    let result: CommandResult;
    try {
      result = await port.restore(attempt.text, signal === undefined ? undefined : { signal });
    } catch (error) {
      if (!isIpsetsError(error)) throw error;
      session.fail(error);
      break;
    }
    session.record(result);
  }
  return session.report();
}
