/**
 * The agent's Prometheus metrics (prom-client), registered on a registry the caller
 * owns: nothing is put on prom-client's global registry.
 *
 * prom-client is loaded when the first metrics are made, not when this package is: a
 * process that only uses the port and the lock (`ipsets apply`) never loads it and its
 * dependencies (about 35 ms of every start).
 */
import { createRequire } from 'node:module';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

type PromClient = typeof import('prom-client');
let promClient: PromClient | undefined;

/** prom-client, loaded on first use (it is CommonJS: `require` loads it synchronously). */
function prom(): PromClient {
  promClient ??= createRequire(import.meta.url)('prom-client') as PromClient;
  return promClient;
}

/** The operations the agent runs against the kernel (a metrics label). */
export type AgentOperation = 'apply' | 'reconcile' | 'reset';

/** How an operation ended (a metrics label). */
export type AgentOutcome = 'converged' | 'not-converged' | 'error';

/** The metric objects of one agent. */
export interface AgentMetrics {
  readonly registry: Registry;
  /** `<prefix>sets`: sets in the desired state. */
  readonly sets: Gauge;
  /** `<prefix>entries`: members across all sets of the desired state. */
  readonly entries: Gauge;
  /** `<prefix>operation_duration_seconds{operation,outcome}`. */
  readonly duration: Histogram<'operation' | 'outcome'>;
  /** `<prefix>operations_total{operation,outcome}`. */
  readonly operations: Counter<'operation' | 'outcome'>;
  /** `<prefix>failures_total{kind}`: ipset errors seen in restore attempts (by error kind) and port failures (by error code). */
  readonly failures: Counter<'kind'>;
  /** `<prefix>restore_attempts{operation}`: `ipset restore` runs per operation. */
  readonly attempts: Histogram<'operation'>;
  /** `<prefix>consecutive_failures`: applies in a row that did not converge. */
  readonly consecutiveFailures: Gauge;
  /** `<prefix>leaked_sets`: owned sets still referenced (not destroyable) after the last reset. */
  readonly leakedSets: Gauge;
  /** `<prefix>in_use_sets`: sets whose destroy was refused because they are referenced, after the last operation. */
  readonly inUseSets: Gauge;
}

/** Default metric name prefix. */
export const DEFAULT_METRIC_PREFIX = 'ipsets_';

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const ATTEMPT_BUCKETS = [0, 1, 2, 3, 4, 5, 10];

/** Creates and registers the agent's metrics on `registry` (a fresh private one when omitted). */
export function createAgentMetrics(registry?: Registry, prefix = DEFAULT_METRIC_PREFIX): AgentMetrics {
  const { Counter, Gauge, Histogram, Registry } = prom();
  registry ??= new Registry();
  const registers = [registry];
  return {
    registry,
    sets: new Gauge({ name: `${prefix}sets`, help: 'Sets in the desired state.', registers }),
    entries: new Gauge({ name: `${prefix}entries`, help: 'Members across all sets of the desired state.', registers }),
    duration: new Histogram({
      name: `${prefix}operation_duration_seconds`,
      help: 'Wall time of apply, reconcile and reset operations against the kernel.',
      labelNames: ['operation', 'outcome'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    operations: new Counter({
      name: `${prefix}operations_total`,
      help: 'Apply, reconcile and reset operations by outcome.',
      labelNames: ['operation', 'outcome'] as const,
      registers,
    }),
    failures: new Counter({
      name: `${prefix}failures_total`,
      help: 'Errors seen: ipset error kinds from restore attempts, error codes of port failures.',
      labelNames: ['kind'] as const,
      registers,
    }),
    attempts: new Histogram({
      name: `${prefix}restore_attempts`,
      help: 'ipset restore runs per operation.',
      labelNames: ['operation'] as const,
      buckets: ATTEMPT_BUCKETS,
      registers,
    }),
    consecutiveFailures: new Gauge({
      name: `${prefix}consecutive_failures`,
      help: 'Applies in a row that did not converge.',
      registers,
    }),
    leakedSets: new Gauge({
      name: `${prefix}leaked_sets`,
      help: 'Owned sets still referenced (so not destroyed) after the last reset.',
      registers,
    }),
    inUseSets: new Gauge({
      name: `${prefix}in_use_sets`,
      help: 'Sets whose destroy was refused because they are referenced, after the last operation.',
      registers,
    }),
  };
}
