/**
 * The fleet simulation's table: one column per delivery mode, one row per figure.
 * Deterministic text (the same reports give the same bytes).
 */
import type { FleetReport } from './fleet.js';

function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 600_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 36_000_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** Bytes with a binary unit (`512 B`, `60.2 KiB`, `2.4 GiB`). */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${Math.round(v)} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

const fixed = (v: number, digits: number): string => v.toFixed(digits);

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The rows of the table for `reports` (one per mode, same scenario and fleet). */
export function fleetRows(reports: readonly FleetReport[]): { header: string[]; rows: string[][] } {
  const header = ['', ...reports.map((r) => r.config.delivery)];
  const row = (label: string, f: (r: FleetReport) => string): string[] => [label, ...reports.map(f)];
  const rows = [
    row('publishes', (r) => String(r.publishes)),
    row('publish → node converged, p50', (r) => seconds(r.nodeConvergence.p50)),
    row('publish → node converged, p99', (r) => seconds(r.nodeConvergence.p99)),
    row('publish → node converged, max', (r) => seconds(r.nodeConvergence.max)),
    row('publish → every node converged, p50', (r) => seconds(r.fleetConvergence.p50)),
    row('publish → every node converged, max', (r) => seconds(r.fleetConvergence.max)),
    row('not converged at the end (node × publish)', (r) => String(r.notConverged)),
    row('API watch bytes per update', (r) => bytes(r.watchBytesPerUpdate)),
    row('API watch bytes per hour', (r) => bytes(r.watchBytesPerHour)),
    row('CPU-seconds per node (whole run)', (r) => fixed(r.cpuSecondsPerNode.mean, 2)),
    row('CPU-seconds per node per hour', (r) => fixed(r.cpuSecondsPerNodeHour, 2)),
    row('peak memory per node', (r) => bytes(r.peakRssBytes)),
    row('restores per node per hour', (r) => fixed(r.restoresPerNodeHour, 1)),
    row('reconciles per node per hour', (r) => fixed(r.reconcilesPerNodeHour, 1)),
    row('files parsed per node per hour', (r) => fixed(r.partsParsedPerNodeHour, 1)),
  ];
  if (reports.some((r) => r.rolloutMs !== undefined)) rows.push(row('rollout: start to last node available', (r) => (r.rolloutMs === undefined ? '—' : seconds(r.rolloutMs))));
  if (reports.some((r) => r.failedApplies > 0)) rows.push(row('applies that did not converge', (r) => String(r.failedApplies)));
  return { header, rows };
}

/** The report as text. */
export function formatFleetReport(reports: readonly FleetReport[]): string {
  const first = reports[0]!;
  const c = first.config;
  const s = first.state;
  const lines = [
    `fleet simulation: ${c.scenario}, ${c.nodes.toLocaleString('en-US')} nodes, seed ${c.seed}, ${seconds(reports.reduce((m, r) => Math.max(m, r.rolloutMs ?? 0), 0) + (c.scenario === 'rollout' ? c.intervalMs : c.durationMs))} simulated${c.exact ? ', exact (a fake kernel per node)' : ''}`,
    `desired state: ${s.sets} sets, ${s.members.toLocaleString('en-US')} members; one file ${bytes(s.oneFileBytes)}; ${s.partBytes.length} parts ${bytes(Math.min(...s.partBytes))}–${bytes(Math.max(...s.partBytes))} (gzip ${bytes(Math.min(...s.gzipPartBytes))}–${bytes(Math.max(...s.gzipPartBytes))})`,
    `kubelet sync ${seconds(c.syncPeriodMs)} + ${Math.round(c.syncJitter * 100)}% jitter; watch fan-out ${(c.apiBytesPerSecond / 1e6).toFixed(0)} MB/s; agent --interval ${seconds(c.intervalMs)} --debounce ${seconds(c.debounceMs)}` +
      (c.scenario === 'policy-change' ? '' : `; ${c.churnPerSecond} pod changes/s published every ${seconds(c.publishEveryMs)}`) +
      (c.scenario === 'rollout' ? `; rollout maxUnavailable ${Math.round(c.maxUnavailable * 100)}%, minReady ${seconds(c.minReadyMs)}, restart ${seconds(c.restartMs)}` : ''),
    `costs: ${c.costs}`,
    `per-hour figures are rates over the ${seconds(c.scenario === 'rollout' ? reports.reduce((m, r) => Math.max(m, r.rolloutMs ?? 0), 0) + c.intervalMs : c.durationMs)} simulated; convergence counts every publish until every node holds it`,
    '',
  ];
  const { header, rows } = fleetRows(reports);
  lines.push(table(header, rows), '');
  const problems = reports.filter((r) => r.kernelProblems > 0);
  for (const r of problems) lines.push(`${r.config.delivery}: ${r.kernelProblems} nodes' fake kernels differ from the version they converged to`);
  return `${lines.join('\n')}\n`;
}
