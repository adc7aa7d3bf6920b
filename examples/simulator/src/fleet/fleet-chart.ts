/**
 * The chart of the fleet simulation: time from a publish to every node converged,
 * against the number of nodes, one line per delivery mode. Drawn by the benchmark
 * suite's chart code (`@ipsets/bench/chart`), so both charts share one style.
 */
import { renderChart } from '@ipsets/bench/chart';
import type { ChartSeries } from '@ipsets/bench/chart';
import type { DeliveryModeName } from './cost-model.js';
import type { FleetReport, FleetScenario } from './fleet.js';

const COLORS: Readonly<Record<DeliveryModeName, string>> = { 'one-file': '#d62728', parts: '#1f77b4', 'gzip-parts': '#2ca02c' };

/** An SVG of the slowest publish's fleet convergence (and its p50 over nodes, dashed) per mode. */
export function renderFleetChart(scenario: FleetScenario, byNodes: ReadonlyMap<number, readonly FleetReport[]>): string {
  const modes = [...new Set([...byNodes.values()].flatMap((rs) => rs.map((r) => r.config.delivery)))];
  const series: ChartSeries[] = [];
  for (const mode of modes) {
    const points = (pick: (r: FleetReport) => number) =>
      [...byNodes].flatMap(([nodes, reports]) => reports.filter((r) => r.config.delivery === mode).map((r) => ({ x: nodes, y: pick(r) })));
    series.push({ name: `${mode}: every node`, color: COLORS[mode], points: points((r) => r.fleetConvergence.max) });
    series.push({ name: `${mode}: median node`, color: COLORS[mode], dashed: true, points: points((r) => r.nodeConvergence.p50) });
  }
  const first = [...byNodes.values()][0]?.[0];
  return renderChart({
    title: `Fleet simulation (${scenario}): from a publish to the kernels holding it`,
    subtitle:
      first === undefined
        ? undefined
        : `${first.state.members.toLocaleString('en-US')} members; kubelet sync ${first.config.syncPeriodMs / 1000} s + ${Math.round(first.config.syncJitter * 100)}% jitter; fan-out ${(first.config.apiBytesPerSecond / 1e6).toFixed(0)} MB/s; seed ${first.config.seed} (simulated)`,
    xLabel: 'nodes',
    xUnit: 'nodes',
    yLabel: 'time from publish (log)',
    series,
  });
}
