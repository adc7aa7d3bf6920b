/**
 * The fleet simulation's command line (`ipsets-simulate --scenario …`), the chart
 * sweep (`--chart FILE`) and the cost calibration (`--calibrate`).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseDurationText } from '@ipsets/cli';
import { isIpsetsError } from '@ipsets/core';
import { DELIVERY_MODE_NAMES } from './cost-model.js';
import type { DeliveryModeName } from './cost-model.js';
import { FLEET_SCENARIOS, simulateFleet } from './fleet.js';
import type { FleetConfig, FleetReport, FleetScenario } from './fleet.js';
import { formatFleetReport } from './fleet-report.js';
import { renderFleetChart } from './fleet-chart.js';
import { CHART_NODES, FLEET_USAGE } from './fleet-usage.js';


class UsageError extends Error {}

function integer(flag: string, text: string | undefined, min = 1): number {
  const n = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} expects an integer of at least ${min}, got ${JSON.stringify(text)}`);
  return n;
}

function fraction(flag: string, text: string | undefined, max: number): number {
  const n = Number(text);
  if (text === undefined || text.trim() === '' || !(n > 0 && n <= max)) throw new UsageError(`${flag} expects a number above 0 and at most ${max}, got ${JSON.stringify(text)}`);
  return n;
}

function duration(flag: string, text: string | undefined, minMs = 1): number {
  if (text === undefined) throw new UsageError(`${flag} expects a duration like 30s, 5m or 200ms`);
  try {
    return parseDurationText(text, { flag, minMs });
  } catch (error) {
    if (isIpsetsError(error)) throw new UsageError(error.message);
    throw error;
  }
}

interface FleetArgs {
  config: Omit<FleetConfig, 'delivery'> & { scenario: FleetScenario };
  deliveries: DeliveryModeName[];
  json: boolean;
  chart: string | undefined;
  calibrate: boolean;
  measureDelivery: boolean;
}

function parseArgs(args: readonly string[]): FleetArgs {
  let scenario: FleetScenario = 'policy-change';
  let nodes = 1000;
  let deliveries: DeliveryModeName[] = [...DELIVERY_MODE_NAMES];
  const shape: { pods?: number; namespaces?: number; parts?: number } = {};
  const rest: { -readonly [K in keyof FleetConfig]?: FleetConfig[K] } = {};
  let json = false;
  let chart: string | undefined;
  let calibrate = false;
  let measureDelivery = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string | undefined => args[++i];
    switch (arg) {
      case '--scenario': {
        const s = value();
        if (!FLEET_SCENARIOS.includes(s as FleetScenario)) throw new UsageError(`--scenario expects one of ${[...FLEET_SCENARIOS, 'reference-loop'].join(', ')}, got ${JSON.stringify(s)}`);
        scenario = s as FleetScenario;
        break;
      }
      case '--nodes':
        nodes = integer(arg, value());
        break;
      case '--delivery': {
        const d = value();
        if (d === 'all') deliveries = [...DELIVERY_MODE_NAMES];
        else if (DELIVERY_MODE_NAMES.includes(d as DeliveryModeName)) deliveries = [d as DeliveryModeName];
        else throw new UsageError(`--delivery expects one of ${DELIVERY_MODE_NAMES.join(', ')} or all, got ${JSON.stringify(d)}`);
        break;
      }
      case '--seed':
        rest.seed = integer(arg, value(), 0);
        break;
      case '--pods':
        shape.pods = integer(arg, value());
        break;
      case '--namespaces':
        shape.namespaces = integer(arg, value());
        break;
      case '--parts':
        shape.parts = integer(arg, value(), 2);
        break;
      case '--sync-period':
        rest.syncPeriodMs = duration(arg, value());
        break;
      case '--sync-jitter': {
        const text = value();
        const n = Number(text);
        if (text === undefined || text.trim() === '' || !(n >= 0 && n <= 10)) throw new UsageError(`--sync-jitter expects a number from 0 to 10, got ${JSON.stringify(text)}`);
        rest.syncJitter = n;
        break;
      }
      case '--api-bandwidth':
        rest.apiBytesPerSecond = fraction(arg, value(), 1e6) * 1e6;
        break;
      case '--interval':
        rest.intervalMs = duration(arg, value(), 100);
        break;
      case '--debounce':
        rest.debounceMs = duration(arg, value(), 0);
        break;
      case '--duration':
        rest.durationMs = duration(arg, value(), 1000);
        break;
      case '--churn':
        rest.churnPerSecond = fraction(arg, value(), 10_000);
        break;
      case '--publish-every':
        rest.publishEveryMs = duration(arg, value(), 100);
        break;
      case '--max-unavailable':
        rest.maxUnavailable = fraction(arg, value(), 1);
        break;
      case '--min-ready':
        rest.minReadyMs = duration(arg, value(), 0);
        break;
      case '--restart':
        rest.restartMs = duration(arg, value(), 0);
        break;
      case '--exact':
        rest.exact = true;
        break;
      case '--json':
        json = true;
        break;
      case '--chart':
        chart = value();
        if (chart === undefined || chart === '') throw new UsageError('--chart expects a file name (an SVG is written there)');
        break;
      case '--measure-delivery':
        measureDelivery = true;
        break;
      case '--calibrate':
        calibrate = true;
        break;
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return { config: { ...rest, scenario, nodes, shape }, deliveries, json, chart, calibrate, measureDelivery };
}

/** Runs the fleet command line; resolves with the exit code. */
export async function fleetMain(args: readonly string[]): Promise<number> {
  let parsed: FleetArgs;
  try {
    parsed = parseArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`ipsets-simulate: ${error.message}\n\n${FLEET_USAGE}`);
    return 2;
  }
  if (parsed.measureDelivery) {
    const { measureDelivery } = await import('./measure-delivery.js');
    return measureDelivery();
  }
  if (parsed.calibrate) {
    const { calibrate } = await import('./calibrate.js');
    return calibrate();
  }
  const started = performance.now();
  try {
    if (parsed.chart !== undefined) {
      const byNodes = new Map<number, FleetReport[]>();
      for (const nodes of CHART_NODES) {
        const reports: FleetReport[] = [];
        for (const delivery of parsed.deliveries) reports.push(await simulateFleet({ ...parsed.config, nodes, delivery }));
        byNodes.set(nodes, reports);
        process.stdout.write(parsed.json ? `${JSON.stringify(reports, null, 1)}\n` : `${formatFleetReport(reports)}\n`);
      }
      writeFileSync(parsed.chart, renderFleetChart(parsed.config.scenario, byNodes));
      process.stderr.write(`wrote ${parsed.chart} (${((performance.now() - started) / 1000).toFixed(1)} s of wall time)\n`);
      return 0;
    }
    const reports: FleetReport[] = [];
    const skipped: string[] = [];
    for (const delivery of parsed.deliveries) {
      try {
        reports.push(await simulateFleet({ ...parsed.config, delivery }));
      } catch (error) {
        // With every mode asked for, a state that one mode cannot carry (past 1 MiB) leaves that column out.
        if (!(error instanceof RangeError && /object limit/.test(error.message) && parsed.deliveries.length > 1)) throw error;
        skipped.push(error.message);
      }
    }
    if (reports.length === 0) throw new RangeError(skipped.join('; '));
    process.stdout.write(parsed.json ? `${JSON.stringify(reports, null, 1)}\n` : formatFleetReport(reports));
    for (const why of skipped) process.stdout.write(`not simulated: ${why}\n`);
    const work = reports.map((r) => `${r.config.delivery}: ${r.work.timers} timers, ${r.work.pairsPlanned} version pairs reconciled`).join('; ');
    process.stderr.write(`simulated in ${((performance.now() - started) / 1000).toFixed(1)} s of wall time (${work})\n`);
    return reports.some((r) => r.kernelProblems > 0) ? 1 : 0;
  } catch (error) {
    if (error instanceof RangeError) {
      process.stderr.write(`ipsets-simulate: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
