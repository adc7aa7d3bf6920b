/**
 * The report of `ipsets reset` as people read it: which owned sets were found,
 * destroyed, leaked (still referenced), vanished or failed.
 */
import type { ResetReport } from '@ipsets/core';
import { formatDuration } from '../format.js';
import { createStyle } from '../style.js';
import type { Style } from '../style.js';

const plain = createStyle(false);

/** Options of {@link formatResetReport}. */
export interface FormatResetOptions {
  style?: Style;
  durationMs?: number;
  owner?: string;
}

/** The reset report: found, destroyed, leaked (still referenced), vanished, failed, problems. */
export function formatResetReport(report: ResetReport, options: FormatResetOptions = {}): string {
  const s = options.style ?? plain;
  const out: string[] = [];
  const took = options.durationMs === undefined ? '' : ` in ${formatDuration(options.durationMs)}`;
  out.push(
    `owned sets (prefix ${JSON.stringify(report.owner)}): ${report.found.length} found, ${report.destroyed.length} destroyed${took}`,
  );
  const section = (title: string, names: readonly string[]) => {
    if (names.length === 0) return;
    out.push(title);
    for (const n of names) out.push(`  ${n}`);
  };
  section(`${s.yellow('leaked')} (still referenced by a kernel component; left intact, not destroyed):`, report.leaked);
  section('vanished (already gone):', report.vanished);
  section(`${s.red('failed')}:`, report.failed);
  for (const p of report.problems) out.push(`${s.yellow('problem')}: ${p}`);
  const sessions = [report.lists, ...(report.destroy === undefined ? [] : [report.destroy])];
  for (const r of sessions) if (r.fatal !== undefined) out.push(`${s.red('stopped')}: ${r.fatal.code}: ${r.fatal.message}`);
  out.push(
    report.converged && report.leaked.length === 0
      ? s.green('reset complete')
      : report.converged
        ? s.yellow(`reset complete except ${report.leaked.length} leaked set(s)`)
        : s.red('reset incomplete'),
  );
  return out.join('\n') + '\n';
}
