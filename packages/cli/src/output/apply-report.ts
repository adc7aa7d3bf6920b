/**
 * The report of an apply (a reconcile or a delta) as people read it, as JSON for
 * programs, and what it means for the exit status.
 */
import type { ApplyReport } from '@ipsets/core';
import { formatCount, formatDuration } from '../format.js';
import { createStyle } from '../style.js';
import type { Style } from '../style.js';

const plain = createStyle(false);

/** Options of {@link formatApplyReport}. */
export interface FormatReportOptions {
  style?: Style;
  /** Kernel name → human name, for sets the report names. */
  labels?: ReadonlyMap<string, string>;
  /** Wall time of the apply. */
  durationMs?: number;
  /** Skipped lines shown before `… and N more` (default 20). */
  limit?: number;
}

/**
 * The apply report as people read it: one line per attempt (what was sent, what
 * failed, what the session did), each skipped line with its reason, the sets in
 * use and the sets that did not converge, and a verdict.
 */
export function formatApplyReport(report: ApplyReport, options: FormatReportOptions = {}): string {
  const s = options.style ?? plain;
  const labels = options.labels ?? new Map<string, string>();
  const name = (set: string) => {
    const label = labels.get(set);
    return label === undefined ? set : `${label} (${set})`;
  };
  const limit = options.limit ?? 20;
  const out: string[] = [];
  const took = options.durationMs === undefined ? '' : ` in ${formatDuration(options.durationMs)}`;
  out.push(
    `applied ${formatCount(report.linesApplied)} of ${formatCount(report.linesTotal)} lines in ${report.attempts.length} attempt(s)${took}`,
  );
  for (const a of report.attempts) {
    const error =
      a.error === undefined
        ? ''
        : `: ${a.error.kind} (${a.error.side})${a.error.line === undefined ? '' : ` at line ${a.error.line}`} ${JSON.stringify(a.error.message)}`;
    out.push(
      `  attempt ${a.attempt}: ${formatCount(a.lineIndices.length)} lines, exit ${a.exitCode}${a.signal === undefined ? '' : ` (${a.signal})`}${error} → ${a.action}`,
    );
  }
  if (report.skipped.length > 0) {
    out.push(`skipped lines (${report.skipped.length}):`);
    for (const k of report.skipped.slice(0, limit)) {
      const why = k.reason === 'failed' ? `${k.kind}: ${k.message}` : `section aborted (${k.kind})`;
      out.push(`  line ${k.index + 1}: ${k.text}  ${s.dim('—')} ${why} ${s.dim(`[${k.outcome}]`)}`);
    }
    if (report.skipped.length > limit) out.push(`  … and ${report.skipped.length - limit} more`);
  }
  for (const note of report.notes) out.push(`${s.yellow('note')}: ${name(note.set)}: ${note.kind}: ${note.message}`);
  if (report.inUseSets.length > 0) {
    out.push(`${s.yellow('in use')} (referenced by a kernel component, so not destroyed):`);
    for (const set of report.inUseSets) out.push(`  ${name(set)}`);
  }
  if (report.failedSets.length > 0) {
    out.push(`${s.red('not converged')}:`);
    for (const set of report.failedSets) out.push(`  ${name(set)}`);
  }
  if (report.fatal !== undefined) out.push(`${s.red('stopped')}: ${report.fatal.code}: ${report.fatal.message}`);
  out.push(
    !report.converged
      ? s.red('NOT converged')
      : report.inUseSets.length > 0
        ? s.yellow(`converged, except ${report.inUseSets.length} set(s) in use: they should not exist, but the kernel still references them (exit 3)`)
        : s.green('converged'),
  );
  return out.join('\n') + '\n';
}

/** What an apply report means for the exit status (0, 1 or 3), and its name in `--json`. */
export function applyOutcome(report: ApplyReport): {
  outcome: 'converged' | 'converged-except-in-use' | 'not-converged';
  exitCode: 0 | 1 | 3;
} {
  if (!report.converged) return { outcome: 'not-converged', exitCode: 1 };
  // Sets that should be gone but are still referenced: the kernel is not what the file says.
  return report.inUseSets.length > 0 ? { outcome: 'converged-except-in-use', exitCode: 3 } : { outcome: 'converged', exitCode: 0 };
}

/** An apply report as JSON for programs: everything but the plan (which can be huge), plus the wall time. */
export function reportToJson(report: ApplyReport, durationMs?: number): Omit<ApplyReport, 'plan'> & { durationMs?: number } {
  const { plan: _plan, ...rest } = report;
  return durationMs === undefined ? rest : { ...rest, durationMs: Math.round(durationMs * 1000) / 1000 };
}
