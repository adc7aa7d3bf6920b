/**
 * The report as text: the configuration, one line per node, the totals, and the
 * final check. Fixed-width columns and integer arithmetic only, so the same report
 * prints the same bytes everywhere.
 */
import { FAULT_KINDS } from './faults.js';
import type { LatencyStats, NodeReport, SimulationReport } from './simulate.js';

const ms = (us: number): string => (us / 1000).toFixed(1);

function latency(l: LatencyStats): string {
  return `${ms(l.p50).padStart(8)} ${ms(l.p99).padStart(8)} ${ms(l.max).padStart(8)}`;
}

function faults(f: NodeReport['faults']): string {
  return FAULT_KINDS.map((k) => String(f[k]).padStart(k === 'userspace' ? 4 : 4)).join(' ');
}

function perChange(lines: number, changes: number): string {
  return changes === 0 ? '0.00' : (lines / changes).toFixed(2);
}

/** Formats a report (see the module documentation). */
export function formatReport(report: SimulationReport): string {
  const c = report.config;
  const out: string[] = [];
  out.push(
    `ipsets fleet simulation  seed ${c.seed}  nodes ${c.nodes}  churn events ${c.events} (+${report.traceEvents - c.events} namespaces)  mode ${c.mode}  scope ${c.scope}`,
    `trace: ${ms(report.traceEndUs)} ms simulated, ~${c.pods} pods, ~${c.policies} policies, ${c.namespaces} namespaces; ` +
      `delivery ${ms(c.deliveryUs[0])}-${ms(c.deliveryUs[1])} ms; apply every ${ms(c.applyIntervalUs)} ms or at ${c.maxPendingEvents} pending events`,
    `faults: ${Math.round(c.faultRate * 100)}% of applies get one of ${c.faultKinds.join(', ')}; ` +
      `cost ${ms(c.cost.perAttemptUs)} ms per restore + ${c.cost.perLineUs} us per line + ${ms(c.cost.perApplyUs)} ms per apply`,
    '',
    'latency = from an event at the API server to the end of the first converged apply that holds it (ms)',
    '',
    ' node  changes  applies failed attempts    lines lines/chg   usr  krn busy crsh  rst!=0      p50      p99      max  settled ms  kernel    ok',
  );
  for (const n of report.nodes) {
    out.push(
      [
        String(n.node).padStart(5),
        String(n.changes).padStart(8),
        String(n.applies).padStart(8),
        String(n.failedApplies).padStart(6),
        String(n.attempts).padStart(8),
        String(n.lines).padStart(8),
        perChange(n.lines, n.changes).padStart(9),
        ` ${faults(n.faults)}`,
        String(n.failedRestores).padStart(7),
        latency(n.latency),
        ms(n.settledAtUs).padStart(11),
        ` ${n.kernelDigest}`,
        n.converged ? '   yes' : '    NO',
      ].join(' '),
    );
  }
  const t = report.total;
  out.push(
    '',
    `total: ${t.changes} changes, ${t.applies} applies (${t.failedApplies} not converged, retried), ${t.attempts} restore attempts, ` +
      `${t.lines} lines (${perChange(t.lines, t.changes)} per change), ${t.failedRestores} restores exited non-zero`,
    `faults planted: ${FAULT_KINDS.map((k) => `${k} ${t.faults[k]}`).join(', ')}`,
    `latency over every node and change: p50 ${ms(t.latency.p50)} ms, p99 ${ms(t.latency.p99)} ms, max ${ms(t.latency.max)} ms, mean ${ms(t.latency.mean)} ms`,
    `last node settled at ${ms(t.settledAtUs)} ms (${ms(t.settledAtUs - report.traceEndUs)} ms after the last event)`,
    '',
    t.notConverged.length === 0
      ? `final check: every node converged; each kernel equals its manager's desired state`
      : `final check: ${t.notConverged.length} nodes did NOT converge: ${t.notConverged.join(', ')}`,
  );
  for (const n of report.nodes) for (const p of n.problems) out.push(`  node ${n.node}: ${p}`);
  if (c.scope === 'node') {
    out.push(`each node holds the pods scheduled on it (scope node); --scope cluster gives every node every event and compares their kernels`);
  } else {
    out.push(
      t.kernelsDiffering.length === 0
        ? `every node's kernel is identical (they all received the same events)`
        : `kernels differing from node 0's: ${t.kernelsDiffering.join(', ')}`,
    );
  }
  return `${out.join('\n')}\n`;
}
