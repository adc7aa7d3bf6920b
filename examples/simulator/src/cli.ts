#!/usr/bin/env node
/**
 * `ipsets-simulate`: runs the fleet simulation from the command line and prints its
 * report (text, or JSON with `--json`). The only file of the simulator that uses Node:
 * it splits the nodes over worker threads (each node depends only on the
 * configuration and its number, so the report is the same with any number of
 * workers), and the wall time goes to stderr so that stdout stays the same for the
 * same seed.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { FAULT_KINDS } from './faults.js';
import type { FaultKind } from './faults.js';
import { formatReport } from './report.js';
import { simulate, simulateNodes, summarize } from './simulate.js';
import { FLEET_USAGE } from './fleet/fleet-usage.js';
import type { NodeRun, SimulationConfig, SimulationReport } from './simulate.js';

const USAGE = `usage: ipsets-simulate [--scenario reference-loop] [--seed N] [--nodes N] [--events N] [--fault-rate P] [--faults KIND,...] [--mode all|on-need] [--scope node|cluster] [--json]

  --seed N         seed of the trace and of every node's faults (default 1)
  --nodes N        simulated nodes, each with its own manager and fake kernel (default 200)
  --events N       churn events: pods, labels, policies (default 10000)
  --fault-rate P   share of applies that get a planted kernel fault, 0..1 (default 0.1)
  --faults KINDS   fault kinds to plant, from ${FAULT_KINDS.join(', ')} (default all)
  --mode MODE      manager mode: all (default) or on-need
  --scope SCOPE    node (default): a node receives its own pods' events and every
                   namespace and policy event; cluster: every node receives every event
                   (every node's sets hold every pod; cost grows with nodes x events)
  --workers N      worker threads to spread the nodes over (default: the number of
                   cores, at most 4); the report is the same for any number
  --json           print the report as JSON instead of text

The reference loop (the default scenario) models NPM's in-process apply loop. The
fleet scenarios model this agent's own deployment:

${FLEET_USAGE}`;

function fail(message: string): never {
  process.stderr.write(`ipsets-simulate: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function integer(name: string, text: string | undefined): number {
  const n = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || !Number.isSafeInteger(n)) fail(`${name} expects a non-negative integer, got ${JSON.stringify(text)}`);
  return n;
}

interface WorkerInput {
  config: SimulationConfig;
  nodes: number[];
}

if (!isMainThread) {
  const { config, nodes } = workerData as WorkerInput;
  const runs = await simulateNodes(config, nodes);
  parentPort!.postMessage(runs, runs.map((r) => r.latencies.buffer as ArrayBuffer));
} else {
  await main();
}

async function inWorkers(config: SimulationConfig, workers: number): Promise<SimulationReport> {
  const shares: number[][] = Array.from({ length: workers }, () => []);
  for (let n = 0; n < config.nodes; n++) shares[n % workers]!.push(n);
  const parts = await Promise.all(
    shares.map(
      (nodes) =>
        new Promise<NodeRun[]>((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: { config, nodes } satisfies WorkerInput });
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.once('exit', (code) => {
            if (code !== 0) reject(new Error(`a simulation worker exited with ${code}`));
          });
        }),
    ),
  );
  return summarize(config, parts.flat());
}

/** Fleet flags select the fleet simulation; everything else is the reference loop's. */
function isFleetRun(args: readonly string[]): boolean {
  const at = args.indexOf('--scenario');
  if (at !== -1 && args[at + 1] !== 'reference-loop') return true;
  return args.includes('--chart') || args.includes('--calibrate') || args.includes('--measure-delivery');
}

async function main(): Promise<void> {
  let args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (isFleetRun(args)) {
    // Loaded only here: the reference loop's workers never load the agent's code.
    const { fleetMain } = await import('./fleet/fleet-cli.js');
    process.exit(await fleetMain(args));
  }
  const scenario = args.indexOf('--scenario');
  if (scenario !== -1) args = [...args.slice(0, scenario), ...args.slice(scenario + 2)];
  const config: { -readonly [K in keyof SimulationConfig]: SimulationConfig[K] } = { seed: 1, nodes: 200, events: 10_000 };
  let json = false;
  let workers = Math.min(4, availableParallelism());
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string | undefined => args[++i];
    switch (arg) {
      case '--seed':
        config.seed = integer(arg, value());
        break;
      case '--nodes':
        config.nodes = integer(arg, value());
        break;
      case '--events':
        config.events = integer(arg, value());
        break;
      case '--fault-rate': {
        const text = value();
        const p = Number(text);
        if (text === undefined || text.trim() === '' || !(p >= 0 && p <= 1)) fail(`--fault-rate expects a number from 0 to 1, got ${JSON.stringify(text)}`);
        config.faultRate = p;
        break;
      }
      case '--faults': {
        const kinds = (value() ?? '').split(',').filter((k) => k !== '');
        const bad = kinds.find((k) => !(FAULT_KINDS as readonly string[]).includes(k));
        if (kinds.length === 0 || bad !== undefined) fail(`--faults expects a comma-separated list of ${FAULT_KINDS.join(', ')}, got ${JSON.stringify(bad ?? '')}`);
        config.faultKinds = kinds as FaultKind[];
        break;
      }
      case '--mode': {
        const mode = value();
        if (mode !== 'all' && mode !== 'on-need') fail(`--mode expects all or on-need, got ${JSON.stringify(mode)}`);
        config.mode = mode;
        break;
      }
      case '--scope': {
        const scope = value();
        if (scope !== 'node' && scope !== 'cluster') fail(`--scope expects node or cluster, got ${JSON.stringify(scope)}`);
        config.scope = scope;
        break;
      }
      case '--workers':
        workers = integer(arg, value());
        if (workers < 1) fail('--workers expects at least 1');
        break;
      case '--json':
        json = true;
        break;
      case '-h':
      case '--help':
        process.stdout.write(USAGE);
        process.exit(0);
      default:
        fail(`unknown argument ${JSON.stringify(arg)}`);
    }
  }

  const started = performance.now();
  const threads = Math.max(1, Math.min(workers, config.nodes));
  const report = threads === 1 ? await simulate(config) : await inWorkers(config, threads);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(json ? `${JSON.stringify(report, null, 1)}\n` : formatReport(report));
  process.stderr.write(
    `simulated ${config.nodes} nodes x ${config.events} events in ${seconds.toFixed(2)} s of wall time (${threads} worker${threads === 1 ? '' : 's'})\n`,
  );
  process.exit(report.total.notConverged.length === 0 ? 0 : 1);
}
