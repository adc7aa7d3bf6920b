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
 */
import { classifyIpsetError } from './classify.js';
import { IpsetsError, isIpsetsError, quote } from '../errors.js';
import { renderRestore } from './render.js';
import { planLineCount } from '../plan/line-runs.js';
import { leavesTemporary, rebuildLinesBefore } from '../plan/rebuild.js';
import { laterLinesOfSetFail } from './set-failures.js';
import type { IpsetsErrorCode } from '../errors.js';
import type {
  AbortSignalLike,
  ApplyReport,
  AttemptRecord,
  ClassifiedError,
  CommandResult,
  ErrorHandler,
  IpsetPort,
  PlanLine,
  RestorePlan,
  SkippedLine,
} from '../types.js';

/**
 * Default number of `ipset restore` runs without progress per session (the reference's
 * `maxTryCount`, which counted every run).
 */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** One run of `ipset -exist restore` that the session asks for. */
export interface Attempt {
  /** 1-based attempt number. */
  readonly number: number;
  /** The restore text: `renderRestore(plan, indices)`. Line k of it is plan line `indices[k - 1]`. */
  readonly text: string;
  /** Plan indices of the lines sent, in order. */
  readonly indices: readonly number[];
}

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

type Fatal = NonNullable<ApplyReport['fatal']>;

/** add/del lines are the ones ipset batches (docs/ipset-semantics.md §2.1). */
function isBatched(line: PlanLine): boolean {
  return line.op === 'add' || line.op === 'del';
}

function sameBatch(a: PlanLine, b: PlanLine): boolean {
  return a.op === b.op && a.set === b.set;
}

/**
 * Where the batch pending before position `p` of `indices` starts: the first
 * position of the run of add/del lines with the command and set of the line at
 * `p - 1` that ends at `p - 1`; `p` itself when the line before is not batched.
 *
 * ipset also cuts a run into 4096-byte messages (docs/ipset-semantics.md §2.4), so earlier parts of a long
 * run may have been sent. Which parts depends on byte sizes this pure code does not
 * model, so the whole run counts as pending: resending lines that did arrive is
 * harmless under `-exist`.
 */
export function pendingBatchStart(plan: RestorePlan, indices: readonly number[], p: number): number {
  if (p <= 0) return p;
  const last = plan.lines[indices[p - 1]!]!;
  if (!isBatched(last)) return p;
  let s = p - 1;
  while (s > 0 && sameBatch(plan.lines[indices[s - 1]!]!, last)) s--;
  return s;
}

function handlerFor(line: PlanLine, kind: ClassifiedError['kind']): ErrorHandler | undefined {
  return line.onError.find((h) => h.when === kind || h.when === 'any');
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
  // The line count, not the lines: a plan still held as runs (plan/line-runs.ts) makes
  // its line objects only if a failure needs them.
  const total = planLineCount(plan);
  const applied = new Uint8Array(total);
  const skippedAt = new Uint8Array(total);
  const skipped: SkippedLine[] = [];
  const attempts: AttemptRecord[] = [];
  let pending: number[] = new Array<number>(total);
  for (let i = 0; i < total; i++) pending[i] = i;
  // True while `pending` is every line in plan order (attempt 1): then the text is the whole plan's.
  let whole = true;
  let outstanding: Attempt | undefined;
  let fatal: Fatal | undefined;
  let finished = false;
  // Indices of the last attempt that crashed, to stop when the same input crashes twice.
  let lastCrash: readonly number[] | undefined;
  // Lines known applied or skipped; an attempt that does not raise it made no progress.
  let settled = 0;
  let settledBefore = 0;
  let stalled = 0;

  function markApplied(indices: readonly number[], from: number, to: number): void {
    for (let k = from; k < to; k++) {
      const i = indices[k]!;
      if (!applied[i]) {
        applied[i] = 1;
        settled++;
      }
    }
  }

  function skip(index: number, reason: SkippedLine['reason'], error: ClassifiedError, handler: ErrorHandler): void {
    if (skippedAt[index] || applied[index]) return;
    skippedAt[index] = 1;
    settled++;
    const line = plan.lines[index]!;
    skipped.push({
      index,
      text: renderRestore(plan, [index]).slice(0, -1),
      set: line.subject ?? line.set,
      reason,
      kind: error.kind,
      message: error.message,
      outcome: handler.report,
    });
  }

  function end(code: IpsetsErrorCode, message: string, error?: ClassifiedError): void {
    fatal = error === undefined ? { code, message } : { code, message, error };
    finished = true;
  }

  function push(attempt: Attempt, result: CommandResult, action: AttemptRecord['action'], error?: ClassifiedError): void {
    const rec: AttemptRecord = { attempt: attempt.number, lineIndices: attempt.indices, exitCode: result.exitCode, action };
    if (result.signal !== undefined) rec.signal = result.signal;
    if (error !== undefined) rec.error = error;
    attempts.push(rec);
  }

  function describe(attempt: Attempt, result: CommandResult): string {
    const stderr = result.stderr.trim();
    const how = result.signal !== undefined ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`;
    return `ipset restore attempt ${attempt.number} ${how}${stderr === '' ? ' and printed nothing' : `: ${quote(stderr)}`}`;
  }

  /**
   * Records the attempt and decides whether another one may follow: with lines
   * still pending and the budget of runs without progress spent, the session ends here.
   */
  function conclude(attempt: Attempt, result: CommandResult, action: AttemptRecord['action'], error: ClassifiedError): void {
    if (settled === settledBefore) stalled++;
    if (pending.length > 0 && stalled >= maxAttempts) {
      push(attempt, result, 'abort', error);
      end(
        'RESTORE_FAILED',
        `${describe(attempt, result)}; ${maxAttempts} attempt(s) without progress, giving up with ${pending.length} line(s) not applied.`,
        error,
      );
      return;
    }
    push(attempt, result, action, error);
  }

  /**
   * Drops the later lines of the failing line's set from the attempt when its failure
   * repeats for them (see set-failures.ts): each would fail the same way, one run each.
   * A dropped line is reported with its own handler's outcome for that error; a line
   * with no handler for it is left to run and fail on its own.
   */
  function skipRestOfSet(indices: readonly number[], p: number, error: ClassifiedError): void {
    const failing = plan.lines[indices[p]!]!;
    const rule = laterLinesOfSetFail(error, failing);
    if (rule === undefined) return;
    for (let k = p + 1; k < indices.length; k++) {
      const i = indices[k]!;
      const later = plan.lines[i]!;
      if (later.set !== failing.set || skippedAt[i]) continue;
      if (rule(later) === 'stop') return;
      const handler = handlerFor(later, error.kind);
      if (handler === undefined) continue;
      skip(i, 'same-set', error, handler);
      if (handler.then === 'skip-section') skipSection(i, later.section, error, handler);
    }
  }

  function skipSection(index: number, section: string, error: ClassifiedError, handler: ErrorHandler): void {
    // The whole section: lines of it already applied stay applied, the rest is dropped.
    for (let i = 0; i < total; i++) {
      if (i !== index && plan.lines[i]!.section === section) skip(i, 'section-aborted', error, handler);
    }
  }

  /**
   * `indices` with the earlier lines of every rebuild whose swap they hold (rebuild.ts
   * `rebuildLinesBefore`): after a crash, a swap may have run or not, and only a
   * rebuild restarted from its `-X` of the temporary is right either way.
   */
  function withRebuildStarts(indices: readonly number[]): number[] {
    let extra: number[] | undefined;
    const held = new Set(indices);
    for (const i of indices) {
      if (plan.lines[i]!.op !== 'swap') continue;
      for (const j of rebuildLinesBefore(plan.lines, i)) {
        if (held.has(j) || skippedAt[j]) continue;
        held.add(j);
        (extra ??= []).push(j);
      }
    }
    return extra === undefined ? [...indices] : [...indices, ...extra].sort((a, b) => a - b);
  }

  function recordFailure(attempt: Attempt, result: CommandResult): void {
    const { indices } = attempt;
    const base = classifyIpsetError(result.stderr, { exitCode: result.exitCode, signal: result.signal });

    // A signal or a crash: the kernel state is unknown, so nothing of this attempt counts
    // as applied and all of it is resent (idempotent under -exist) — once. A swap is not
    // idempotent: a rebuild whose swap was in the attempt restarts from its first line.
    if (result.signal !== undefined || base.kind === 'crash') {
      const again =
        lastCrash !== undefined && lastCrash.length === indices.length && lastCrash.every((v, k) => v === indices[k]);
      lastCrash = indices;
      if (again) {
        push(attempt, result, 'abort', base);
        end('RESTORE_FAILED', `${describe(attempt, result)}; the same input crashed ipset twice, giving up.`, base);
        return;
      }
      pending = withRebuildStarts(indices);
      conclude(attempt, result, 'retry', base);
      return;
    }

    // Line number and side come from the classifier only.
    if (base.line === undefined && base.lineText === undefined) {
      if (base.kind === 'busy') {
        conclude(attempt, result, 'retry', base);
        return;
      }
      push(attempt, result, 'abort', base);
      const unavailable = (result.exitCode === 126 || result.exitCode === 127) && !/ipset v\d/.test(result.stderr);
      end(
        unavailable ? 'IPSET_UNAVAILABLE' : 'RESTORE_FAILED',
        unavailable
          ? `${describe(attempt, result)}; the ipset binary could not be run.`
          : base.kind === 'parameter'
            ? `${describe(attempt, result)}; ipset rejected its parameters, which retrying cannot fix.`
            : `${describe(attempt, result)}; the error names no line, so there is nothing to skip and no point in running the same text again.`,
        base,
      );
      return;
    }

    if (base.line === undefined) {
      push(attempt, result, 'abort', base);
      end(
        'RESTORE_FAILED',
        `${describe(attempt, result)}; the line number ${quote(base.lineText)} is not a number, expected 1-${indices.length}.`,
        base,
      );
      return;
    }
    const n = base.line;
    if (n < 1 || n > indices.length) {
      push(attempt, result, 'abort', base);
      end(
        'RESTORE_FAILED',
        `${describe(attempt, result)}; line ${n} is outside the ${indices.length} line(s) sent, expected 1-${indices.length}.`,
        base,
      );
      return;
    }

    const p = n - 1;
    const index = indices[p]!;
    const line = plan.lines[index]!;
    // The line's command decides the side of "does not exist" (docs/ipset-semantics.md §3.1).
    const error = classifyIpsetError(result.stderr, { exitCode: result.exitCode, signal: result.signal, op: line.op });
    const resumeAt = error.side === 'userspace' ? pendingBatchStart(plan, indices, p) : p;
    markApplied(indices, 0, resumeAt);

    if (error.transient) {
      // Busy: another process holds the set; line N itself is worth another try.
      pending = indices.slice(resumeAt);
      conclude(attempt, result, 'retry-line', error);
      return;
    }
    const handler = handlerFor(line, error.kind);
    if (handler === undefined) {
      // The reference re-runs the identical text here and wastes its tries; it cannot succeed.
      pending = indices.slice(resumeAt);
      push(attempt, result, 'abort', error);
      end(
        'RESTORE_FAILED',
        `${describe(attempt, result)}; line ${n} (${quote(renderRestore(plan, [index]).slice(0, -1))}) has no handler for ${quote(error.kind)} errors.`,
        error,
      );
      return;
    }
    skip(index, 'failed', error, handler);
    if (handler.then === 'skip-section') skipSection(index, line.section, error, handler);
    skipRestOfSet(indices, p, error);
    pending = indices.slice(resumeAt).filter((i) => !skippedAt[i]);
    conclude(attempt, result, resumeAt < p ? 'resume-batch' : handler.then, error);
  }

  return {
    next() {
      if (outstanding !== undefined) return outstanding;
      if (finished) return undefined;
      if (pending.length === 0) {
        finished = true;
        return undefined;
      }
      if (stalled >= maxAttempts) {
        const last = attempts[attempts.length - 1];
        end(
          'RESTORE_FAILED',
          `${maxAttempts} attempt(s) without progress, giving up with ${pending.length} line(s) not applied.`,
          last?.error,
        );
        return undefined;
      }
      const indices = pending;
      const text = whole ? renderRestore(plan) : renderRestore(plan, indices);
      outstanding = { number: attempts.length + 1, text, indices };
      return outstanding;
    },

    record(result) {
      const attempt = outstanding;
      if (attempt === undefined) {
        throw new IpsetsError('INVALID_ARGUMENT', 'record() called with no outstanding attempt; call next() first.');
      }
      outstanding = undefined;
      whole = false;
      settledBefore = settled;
      if (result.exitCode === 0 && result.signal === undefined) {
        markApplied(attempt.indices, 0, attempt.indices.length);
        pending = [];
        push(attempt, result, 'done');
        finished = true;
        return;
      }
      recordFailure(attempt, result);
    },

    fail(error) {
      if (finished) return;
      if (outstanding === undefined && pending.length === 0) {
        finished = true;
        return;
      }
      const code: IpsetsErrorCode = isIpsetsError(error) ? error.code : 'RESTORE_FAILED';
      const reason = error instanceof Error ? error.message : String(error);
      if (outstanding !== undefined) {
        attempts.push({ attempt: outstanding.number, lineIndices: outstanding.indices, exitCode: -1, action: 'abort' });
        outstanding = undefined;
      }
      end(code, `ipset restore could not be run: ${reason}`);
    },

    report() {
      return buildReport(plan, total, applied, skipped, attempts, fatal);
    },
  };
}

function buildReport(
  plan: RestorePlan,
  total: number,
  applied: Uint8Array,
  skipped: readonly SkippedLine[],
  attempts: readonly AttemptRecord[],
  fatal: Fatal | undefined,
): ApplyReport {
  const notes = plan.notes ?? [];
  const failed = new Set<string>();
  const inUse = new Set<string>();
  const skippedAt = new Set<number>();
  // Line objects are read only for lines that were skipped or not applied: a plan whose
  // every line was applied, still held as runs, makes none.
  for (const s of skipped) {
    skippedAt.add(s.index);
    if (s.outcome === 'not-converged') failed.add(s.set);
    if (s.outcome === 'not-converged' && leavesTemporary(plan.lines[s.index]!)) failed.add(plan.lines[s.index]!.set);
    else if (s.outcome === 'in-use') inUse.add(s.set);
  }
  let linesApplied = 0;
  for (let i = 0; i < total; i++) {
    if (applied[i]) linesApplied++;
    // A line neither applied nor skipped was cut off by a fatal end (or never run).
    else if (!skippedAt.has(i)) {
      const line = plan.lines[i]!;
      failed.add(line.subject ?? line.set);
      if (leavesTemporary(line)) failed.add(line.set);
    }
  }
  for (const note of notes) {
    if (note.kind === 'type-conflict-referenced') failed.add(note.set);
    else if (note.kind === 'referenced-not-destroyed') inUse.add(note.set);
  }
  const report: ApplyReport = {
    converged: fatal === undefined && failed.size === 0,
    plan,
    attempts: [...attempts],
    linesTotal: total,
    linesApplied,
    skipped: [...skipped].sort((a, b) => a.index - b.index),
    failedSets: sortedByFirstLine(plan, failed),
    inUseSets: sortedByFirstLine(plan, inUse),
    notes: [...notes],
  };
  if (fatal !== undefined) report.fatal = fatal;
  return report;
}

/** `sets` in a deterministic order: by the first plan line of the set, then by notes order. */
function sortedByFirstLine(plan: RestorePlan, sets: ReadonlySet<string>): string[] {
  if (sets.size === 0) return [];
  const notes = plan.notes ?? [];
  const order = new Map<string, number>();
  plan.lines.forEach((l, i) => {
    const set = l.subject ?? l.set;
    if (!order.has(set)) order.set(set, i);
  });
  notes.forEach((n, i) => {
    if (!order.has(n.set)) order.set(n.set, plan.lines.length + i);
  });
  return [...sets].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
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
