#!/usr/bin/env node
/**
 * `ipsets-simulate`: runs the fleet simulation from the command line and prints its
 * report (text, or JSON with `--json`). The only file of the simulator that uses Node;
 * the wall time goes to stderr so that stdout stays the same for the same seed.
 */
import { performance } from 'node:perf_hooks';
import { FAULT_KINDS } from './faults.js';
import type { FaultKind } from './faults.js';
import { formatReport } from './report.js';
import { simulate } from './simulate.js';
import type { SimulationConfig } from './simulate.js';

const USAGE = `usage: ipsets-simulate [--seed N] [--nodes N] [--events N] [--fault-rate P] [--faults KIND,...] [--mode all|on-need] [--scope node|cluster] [--json]

  --seed N         seed of the trace and of every node's faults (default 1)
  --nodes N        simulated nodes, each with its own manager and fake kernel (default 200)
  --events N       churn events: pods, labels, policies (default 10000)
  --fault-rate P   share of applies that get a planted kernel fault, 0..1 (default 0.1)
  --faults KINDS   fault kinds to plant, from ${FAULT_KINDS.join(', ')} (default all)
  --mode MODE      manager mode: all (default) or on-need
  --scope SCOPE    node (default): a node receives its own pods' events and every
                   namespace and policy event; cluster: every node receives every event
                   (every node's sets hold every pod; cost grows with nodes x events)
  --json           print the report as JSON instead of text
`;

function fail(message: string): never {
  process.stderr.write(`ipsets-simulate: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function integer(name: string, text: string | undefined): number {
  const n = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || !Number.isSafeInteger(n)) fail(`${name} expects a non-negative integer, got ${JSON.stringify(text)}`);
  return n;
}

const args = process.argv.slice(2);
const config: { -readonly [K in keyof SimulationConfig]: SimulationConfig[K] } = { seed: 1, nodes: 200, events: 10_000 };
let json = false;
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
const report = await simulate(config);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(json ? `${JSON.stringify(report, null, 1)}\n` : formatReport(report));
process.stderr.write(`simulated ${config.nodes} nodes x ${config.events} events in ${seconds.toFixed(2)} s of wall time\n`);
process.exit(report.total.notConverged.length === 0 ? 0 : 1);
