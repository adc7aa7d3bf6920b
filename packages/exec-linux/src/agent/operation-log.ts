/**
 * What one finished operation leaves behind: its metrics (counted here, so applies
 * never pay for anything else), its one structured log line's fields, and the summary
 * that `health()` shows. Set lists are cut to {@link LIST_CUT} names.
 */
import { isIpsetsError } from '@ipsets/core';
import type { ApplyReport, ResetReport } from '@ipsets/core';
import type { AgentLogger, AgentOperationSummary } from './api.js';
import type { AgentMetrics, AgentOperation, AgentOutcome } from './metrics.js';

/** How many set names a log line or a health summary carries. */
export const LIST_CUT = 10;

/** `code` and `message` of what an operation threw, or of its report's fatal end. */
export interface ErrorInfo {
  code: string;
  message: string;
}

/** Counts one apply or reconcile in the metrics and returns its outcome. */
export function observeOperation(metrics: AgentMetrics, operation: AgentOperation, durationMs: number, report: ApplyReport | undefined, error?: unknown): AgentOutcome {
  const outcome: AgentOutcome = report === undefined ? 'error' : report.converged ? 'converged' : 'not-converged';
  metrics.duration.observe({ operation, outcome }, durationMs / 1000);
  metrics.operations.inc({ operation, outcome });
  if (report !== undefined) {
    metrics.attempts.observe({ operation }, report.attempts.length);
    for (const attempt of report.attempts) {
      if (attempt.error !== undefined) metrics.failures.inc({ kind: attempt.error.kind });
    }
    if (report.fatal !== undefined && report.fatal.error === undefined) metrics.failures.inc({ kind: report.fatal.code });
    metrics.inUseSets.set(report.inUseSets.length);
  } else {
    metrics.failures.inc({ kind: errorCode(error) });
  }
  return outcome;
}

/** The error code for metrics and logs: an `IpsetsError`'s code, else `exception`. */
export function errorCode(error: unknown): string {
  return isIpsetsError(error) ? error.code : 'exception';
}

/** What went wrong, from the thrown error or the report's fatal end. */
export function errorInfoOf(report: ApplyReport | undefined, error: unknown): ErrorInfo | undefined {
  if (error !== undefined) return { code: errorCode(error), message: error instanceof Error ? error.message : String(error) };
  if (report?.fatal !== undefined) return { code: report.fatal.code, message: report.fatal.message };
  return undefined;
}

/** The summary `health()` shows of the last apply or reconcile (`finishedAt` on the agent clock). */
export function operationSummary(
  operation: AgentOperation,
  outcome: AgentOutcome,
  aborted: boolean,
  durationMs: number,
  report: ApplyReport | undefined,
  errorInfo: ErrorInfo | undefined,
): Omit<AgentOperationSummary, 'finishedAgoMs'> {
  return {
    operation,
    outcome: aborted ? 'aborted' : outcome,
    converged: outcome === 'converged',
    durationMs,
    ...(report === undefined ? {} : { linesTotal: report.linesTotal, linesApplied: report.linesApplied, attempts: report.attempts.length }),
    failedSets: report?.failedSets.slice(0, LIST_CUT) ?? [],
    inUseSets: report?.inUseSets.slice(0, LIST_CUT) ?? [],
    ...(errorInfo === undefined ? {} : { error: errorInfo }),
  };
}

/** The report part of an apply's or reconcile's log line. */
export function reportFields(report: ApplyReport): Record<string, unknown> {
  return {
    converged: report.converged,
    linesTotal: report.linesTotal,
    linesApplied: report.linesApplied,
    attempts: report.attempts.length,
    skipped: report.skipped.length,
    failedSets: report.failedSets.slice(0, LIST_CUT),
    failedSetsCount: report.failedSets.length,
    inUseSets: report.inUseSets.slice(0, LIST_CUT),
    inUseSetsCount: report.inUseSets.length,
    ...(report.fatal === undefined ? {} : { fatal: report.fatal.code, fatalMessage: report.fatal.message }),
  };
}

/** Writes an apply's or reconcile's one log line at the level its outcome deserves. */
export function logOperation(logger: AgentLogger, operation: AgentOperation, fields: Record<string, unknown>, outcome: AgentOutcome, aborted: boolean, hasReport: boolean): void {
  if (aborted) logger.warn(fields, `${operation} aborted`);
  else if (outcome === 'converged') logger.info(fields, `${operation} converged`);
  else if (hasReport) logger.warn(fields, `${operation} did not converge`);
  else logger.error(fields, `${operation} failed`);
}

/** Counts one finished reset in the metrics and writes its log line. */
export function observeReset(metrics: AgentMetrics, logger: AgentLogger, owner: string, durationMs: number, report: ResetReport): void {
  const { leaked } = report;
  metrics.leakedSets.set(leaked.length);
  const outcome: AgentOutcome = report.converged ? 'converged' : 'not-converged';
  for (const session of [report.lists, report.destroy]) {
    for (const attempt of session?.attempts ?? []) {
      if (attempt.error !== undefined) metrics.failures.inc({ kind: attempt.error.kind });
    }
  }
  metrics.duration.observe({ operation: 'reset', outcome }, durationMs / 1000);
  metrics.operations.inc({ operation: 'reset', outcome });
  const counts = {
    operation: 'reset',
    durationMs,
    converged: report.converged,
    owner,
    destroyed: report.destroyed.length,
    leakedCount: leaked.length,
    failedCount: report.failed.length,
  };
  if (!report.converged) logger.warn({ ...counts, failed: report.failed.slice(0, LIST_CUT), problems: report.problems }, 'reset did not converge');
  else if (leaked.length > 0) logger.warn({ ...counts, leaked: leaked.slice(0, LIST_CUT) }, 'reset left referenced sets in the kernel');
  else logger.info(counts, 'reset owned ipsets');
}

/** Counts a reset that threw and writes its log line. */
export function observeResetError(metrics: AgentMetrics, logger: AgentLogger, durationMs: number, error: unknown): void {
  metrics.duration.observe({ operation: 'reset', outcome: 'error' }, durationMs / 1000);
  metrics.operations.inc({ operation: 'reset', outcome: 'error' });
  metrics.failures.inc({ kind: errorCode(error) });
  logger.error({ operation: 'reset', durationMs, converged: false, err: error, code: errorCode(error) }, 'reset failed');
}
