/**
 * The state of a restore session and its named transitions (session.ts documents the
 * session; this is its machine). One {@link SessionState} per session: attempts are
 * started from the pending lines, and each result moves the state by one transition.
 */
import { IpsetsError, isIpsetsError, quote } from '../errors.js';
import { renderRestore } from './render.js';
import { planLineCount } from '../plan/line-runs.js';
import { rebuildLinesBefore } from '../plan/rebuild.js';
import { laterLinesOfSetFail } from './set-failures.js';
import { classifyFailure, describeRun } from './attempt-failure.js';
import type { AttemptFailure } from './attempt-failure.js';
import { buildReport } from './session-report.js';
import type { Fatal } from './session-report.js';
import type { IpsetsErrorCode } from '../errors.js';
import type { ApplyReport, AttemptRecord, ClassifiedError, CommandResult, ErrorHandler, PlanLine, RestorePlan, SkippedLine } from '../types.js';

/** One run of `ipset -exist restore` that the session asks for. */
export interface Attempt {
  /** 1-based attempt number. */
  readonly number: number;
  /** The restore text: `renderRestore(plan, indices)`. Line k of it is plan line `indices[k - 1]`. */
  readonly text: string;
  /** Plan indices of the lines sent, in order. */
  readonly indices: readonly number[];
}

function handlerFor(line: PlanLine, kind: ClassifiedError['kind']): ErrorHandler | undefined {
  return line.onError.find((h) => h.when === kind || h.when === 'any');
}

/** A line failure of an attempt, as {@link classifyFailure} found it. */
type LineFailure = Extract<AttemptFailure, { kind: 'line' }>;

/**
 * The state of one restore session and its transitions (see the module documentation).
 * Line state is kept per plan index in typed arrays: a plan still held as runs
 * (plan/line-runs.ts) makes its line objects only if a failure needs them.
 */
export class SessionState {
  private readonly total: number;
  /** 1 for every plan line known to have reached the kernel. */
  private readonly applied: Uint8Array;
  /** 1 for every plan line skipped (never to be sent again). */
  private readonly skippedAt: Uint8Array;
  private readonly skipped: SkippedLine[] = [];
  private readonly attempts: AttemptRecord[] = [];
  /** Plan indices of the lines still to send, in order: the next attempt's. */
  private pending: number[];
  /** True while `pending` is every line in plan order (attempt 1): then the text is the whole plan's. */
  private whole = true;
  /** The attempt {@link startAttempt} handed out and no result has come for. */
  private outstanding: Attempt | undefined;
  private fatal: Fatal | undefined;
  private finished = false;
  /** Indices of the last attempt that crashed, to stop when the same input crashes twice. */
  private lastCrash: readonly number[] | undefined;
  /** Lines known applied or skipped; an attempt that does not raise it made no progress. */
  private settled = 0;
  private settledBefore = 0;
  /** Runs without progress so far. */
  private stalled = 0;

  constructor(
    private readonly plan: RestorePlan,
    private readonly maxAttempts: number,
  ) {
    // The line count, not the lines (see the class).
    const total = planLineCount(plan);
    this.total = total;
    this.applied = new Uint8Array(total);
    this.skippedAt = new Uint8Array(total);
    const pending = new Array<number>(total);
    for (let i = 0; i < total; i++) pending[i] = i;
    this.pending = pending;
  }

  /** `RestoreSession.next`: the outstanding attempt, or a new one. */
  next(): Attempt | undefined {
    return this.outstanding ?? this.startAttempt();
  }

  /**
   * Starts the next attempt over the pending lines, or ends the session: with nothing
   * pending (converged, as far as the lines go), or with the budget of runs without
   * progress spent.
   */
  startAttempt(): Attempt | undefined {
    if (this.finished) return undefined;
    const { pending, maxAttempts, attempts } = this;
    if (pending.length === 0) {
      this.finished = true;
      return undefined;
    }
    if (this.stalled >= maxAttempts) {
      const last = attempts[attempts.length - 1];
      this.end('RESTORE_FAILED', `${maxAttempts} attempt(s) without progress, giving up with ${pending.length} line(s) not applied.`, last?.error);
      return undefined;
    }
    const text = this.whole ? renderRestore(this.plan) : renderRestore(this.plan, pending);
    this.outstanding = { number: attempts.length + 1, text, indices: pending };
    return this.outstanding;
  }

  /** `RestoreSession.record`: the result of the outstanding attempt. */
  record(result: CommandResult): void {
    const attempt = this.outstanding;
    if (attempt === undefined) {
      throw new IpsetsError('INVALID_ARGUMENT', 'record() called with no outstanding attempt; call next() first.');
    }
    this.outstanding = undefined;
    this.whole = false;
    this.settledBefore = this.settled;
    if (result.exitCode === 0 && result.signal === undefined) {
      this.completeAttempt(attempt, result);
      return;
    }
    const failure = classifyFailure(this.plan, attempt.indices, result);
    switch (failure.kind) {
      case 'crash':
        this.retryAfterCrash(attempt, result, failure.error);
        return;
      case 'busy':
        this.concludeAttempt(attempt, result, 'retry', failure.error);
        return;
      case 'fatal':
        this.giveUp(attempt, result, failure.code, `${describeRun(attempt.number, result)}; ${failure.why}`, failure.error);
        return;
      case 'line':
        this.lineFailed(attempt, result, failure);
        return;
    }
  }

  /** The attempt ran through: every line of it is applied and the session is over. */
  completeAttempt(attempt: Attempt, result: CommandResult): void {
    this.markApplied(attempt.indices, 0, attempt.indices.length);
    this.pending = [];
    this.pushAttempt(attempt, result, 'done');
    this.finished = true;
  }

  /**
   * A signal or a crash: the kernel state is unknown, so nothing of this attempt counts
   * as applied and all of it is resent (idempotent under -exist) — once. A swap is not
   * idempotent: a rebuild whose swap was in the attempt restarts from its first line.
   */
  retryAfterCrash(attempt: Attempt, result: CommandResult, error: ClassifiedError): void {
    const { indices } = attempt;
    const last = this.lastCrash;
    const again = last !== undefined && last.length === indices.length && last.every((v, k) => v === indices[k]);
    this.lastCrash = indices;
    if (again) {
      this.giveUp(attempt, result, 'RESTORE_FAILED', `${describeRun(attempt.number, result)}; the same input crashed ipset twice, giving up.`, error);
      return;
    }
    this.pending = this.withRebuildStarts(indices);
    this.concludeAttempt(attempt, result, 'retry', error);
  }

  /**
   * One line of the attempt failed: the lines before the run resumes are applied; the
   * line is retried (busy), skipped by its handler, or the session gives up (no handler).
   */
  private lineFailed(attempt: Attempt, result: CommandResult, failure: LineFailure): void {
    this.markApplied(attempt.indices, 0, failure.resumeAt);
    if (failure.error.transient) {
      this.retryLine(attempt, result, failure);
      return;
    }
    const handler = handlerFor(failure.line, failure.error.kind);
    if (handler === undefined) {
      // The reference re-runs the identical text here and wastes its tries; it cannot succeed.
      this.pending = attempt.indices.slice(failure.resumeAt);
      this.giveUp(
        attempt,
        result,
        'RESTORE_FAILED',
        `${describeRun(attempt.number, result)}; line ${failure.p + 1} (${quote(renderRestore(this.plan, [failure.index]).slice(0, -1))}) has no handler for ${quote(failure.error.kind)} errors.`,
        failure.error,
      );
      return;
    }
    this.skipFailedLine(attempt, result, failure, handler);
  }

  /** Busy: another process holds the set; the failed line itself is worth another try. */
  retryLine(attempt: Attempt, result: CommandResult, failure: LineFailure): void {
    this.pending = attempt.indices.slice(failure.resumeAt);
    this.concludeAttempt(attempt, result, 'retry-line', failure.error);
  }

  /**
   * Skips the failed line as its handler says (with its section, and the later lines
   * of its set that would fail the same way), and resumes after it — from the start
   * of its pending batch when ipset caught the error in userspace.
   */
  skipFailedLine(attempt: Attempt, result: CommandResult, failure: LineFailure, handler: ErrorHandler): void {
    const { index, line, error, p, resumeAt } = failure;
    this.skip(index, 'failed', error, handler);
    if (handler.then === 'skip-section') this.skipSection(index, line.section, error, handler);
    this.skipRestOfSet(attempt.indices, p, error);
    const skippedAt = this.skippedAt;
    this.pending = attempt.indices.slice(resumeAt).filter((i) => !skippedAt[i]);
    this.concludeAttempt(attempt, result, resumeAt < p ? 'resume-batch' : handler.then, error);
  }

  /**
   * Records an attempt that may be followed by another and decides whether one may:
   * with lines still pending and the budget of runs without progress spent, the
   * session gives up here.
   */
  concludeAttempt(attempt: Attempt, result: CommandResult, action: AttemptRecord['action'], error: ClassifiedError): void {
    if (this.settled === this.settledBefore) this.stalled++;
    const { pending, maxAttempts } = this;
    if (pending.length > 0 && this.stalled >= maxAttempts) {
      this.giveUp(
        attempt,
        result,
        'RESTORE_FAILED',
        `${describeRun(attempt.number, result)}; ${maxAttempts} attempt(s) without progress, giving up with ${pending.length} line(s) not applied.`,
        error,
      );
      return;
    }
    this.pushAttempt(attempt, result, action, error);
  }

  /** Ends the session after `attempt`: recorded as aborted, with a fatal `code` and `message`. */
  giveUp(attempt: Attempt, result: CommandResult, code: IpsetsErrorCode, message: string, error: ClassifiedError): void {
    this.pushAttempt(attempt, result, 'abort', error);
    this.end(code, message, error);
  }

  /** `RestoreSession.fail`: the outstanding attempt (or the next one) could not be run. */
  abandon(error: unknown): void {
    if (this.finished) return;
    const outstanding = this.outstanding;
    if (outstanding === undefined && this.pending.length === 0) {
      this.finished = true;
      return;
    }
    const code: IpsetsErrorCode = isIpsetsError(error) ? error.code : 'RESTORE_FAILED';
    const reason = error instanceof Error ? error.message : String(error);
    if (outstanding !== undefined) {
      this.attempts.push({ attempt: outstanding.number, lineIndices: outstanding.indices, exitCode: -1, action: 'abort' });
      this.outstanding = undefined;
    }
    this.end(code, `ipset restore could not be run: ${reason}`);
  }

  /** `RestoreSession.report`: the report so far (session-report.ts). */
  finishReport(): ApplyReport {
    return buildReport(this.plan, this.total, this.applied, this.skipped, this.attempts, this.fatal);
  }

  private end(code: IpsetsErrorCode, message: string, error?: ClassifiedError): void {
    this.fatal = error === undefined ? { code, message } : { code, message, error };
    this.finished = true;
  }

  private pushAttempt(attempt: Attempt, result: CommandResult, action: AttemptRecord['action'], error?: ClassifiedError): void {
    const rec: AttemptRecord = { attempt: attempt.number, lineIndices: attempt.indices, exitCode: result.exitCode, action };
    if (result.signal !== undefined) rec.signal = result.signal;
    if (error !== undefined) rec.error = error;
    this.attempts.push(rec);
  }

  private markApplied(indices: readonly number[], from: number, to: number): void {
    const applied = this.applied;
    let settled = this.settled;
    for (let k = from; k < to; k++) {
      const i = indices[k]!;
      if (!applied[i]) {
        applied[i] = 1;
        settled++;
      }
    }
    this.settled = settled;
  }

  private skip(index: number, reason: SkippedLine['reason'], error: ClassifiedError, handler: ErrorHandler): void {
    if (this.skippedAt[index] || this.applied[index]) return;
    this.skippedAt[index] = 1;
    this.settled++;
    const plan = this.plan;
    const line = plan.lines[index]!;
    this.skipped.push({
      index,
      text: renderRestore(plan, [index]).slice(0, -1),
      set: line.subject ?? line.set,
      reason,
      kind: error.kind,
      message: error.message,
      outcome: handler.report,
    });
  }

  /**
   * Drops the later lines of the failing line's set from the attempt when its failure
   * repeats for them (see set-failures.ts): each would fail the same way, one run each.
   * A dropped line is reported with its own handler's outcome for that error; a line
   * with no handler for it is left to run and fail on its own.
   */
  private skipRestOfSet(indices: readonly number[], p: number, error: ClassifiedError): void {
    const lines = this.plan.lines;
    const failing = lines[indices[p]!]!;
    const rule = laterLinesOfSetFail(error, failing);
    if (rule === undefined) return;
    for (let k = p + 1; k < indices.length; k++) {
      const i = indices[k]!;
      const later = lines[i]!;
      if (later.set !== failing.set || this.skippedAt[i]) continue;
      if (rule(later) === 'stop') return;
      const handler = handlerFor(later, error.kind);
      if (handler === undefined) continue;
      this.skip(i, 'same-set', error, handler);
      if (handler.then === 'skip-section') this.skipSection(i, later.section, error, handler);
    }
  }

  private skipSection(index: number, section: string, error: ClassifiedError, handler: ErrorHandler): void {
    // The whole section: lines of it already applied stay applied, the rest is dropped.
    const lines = this.plan.lines;
    for (let i = 0; i < this.total; i++) {
      if (i !== index && lines[i]!.section === section) this.skip(i, 'section-aborted', error, handler);
    }
  }

  /**
   * `indices` with the earlier lines of every rebuild whose swap they hold (rebuild.ts
   * `rebuildLinesBefore`): after a crash, a swap may have run or not, and only a
   * rebuild restarted from its `-X` of the temporary is right either way.
   */
  private withRebuildStarts(indices: readonly number[]): number[] {
    const lines = this.plan.lines;
    let extra: number[] | undefined;
    const held = new Set(indices);
    for (const i of indices) {
      if (lines[i]!.op !== 'swap') continue;
      for (const j of rebuildLinesBefore(lines, i)) {
        if (held.has(j) || this.skippedAt[j]) continue;
        held.add(j);
        (extra ??= []).push(j);
      }
    }
    return extra === undefined ? [...indices] : [...indices, ...extra].sort((a, b) => a - b);
  }
}
