/**
 * The fleet simulation: every node runs its own {@link IPSetManager} over its own
 * {@link FakeKernel}, receives the cluster trace with its own network delays, applies
 * on NPM's schedule (a background loop that applies pending changes every
 * `applyIntervalUs`, or at once when `maxPendingEvents` have piled up), and retries
 * with backoff after an apply that did not converge. Time is simulated: an apply costs
 * what the cost model says, and events that arrive meanwhile wait for the apply to end
 * (the agent holds its lock).
 *
 * Nodes do not talk to each other, so each one is simulated on its own, in node order:
 * the result does not depend on scheduling, and one seed gives one report.
 */
import { IPSetManager, applyIPSets, isIpsetsError } from '@ipsets/core';
import type { ApplyReport, IPSetMode } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { canonicalSave, convergenceProblems } from '@ipsets/fake-kernel/invariants';
import { applyEvent } from './controller.js';
import { FAULT_KINDS, createFaultPort } from './faults.js';
import type { FaultKind } from './faults.js';
import { deriveSeed, mulberry32 } from './prng.js';
import { generateTrace } from './trace.js';
import type { ClusterEvent } from './trace.js';

/** What an apply costs in simulated time, in microseconds. */
export interface CostModel {
  /** Starting `ipset restore` and talking to the kernel, per attempt. */
  readonly perAttemptUs: number;
  /** Per restore line sent. */
  readonly perLineUs: number;
  /** Planning and committing, per apply. */
  readonly perApplyUs: number;
}

/** The default cost model: a few milliseconds per restore, a few microseconds per line. */
export const DEFAULT_COST_MODEL: CostModel = Object.freeze({ perAttemptUs: 3_000, perLineUs: 4, perApplyUs: 200 });

/** Options of {@link simulate}. */
export interface SimulationConfig {
  readonly seed: number;
  readonly nodes: number;
  /** Churn events in the trace (after the namespaces). */
  readonly events: number;
  /** Probability that an apply gets a planted fault (default 0.1). */
  readonly faultRate?: number;
  /** Fault kinds to plant (default all four). */
  readonly faultKinds?: readonly FaultKind[];
  /** Manager mode (default `all`). */
  readonly mode?: IPSetMode;
  /**
   * Which events a node receives. `node` (default): the events of the pods scheduled on
   * it, and every namespace and policy event. `cluster`: every event, as NPM's agents
   * do (every node's sets hold every pod); its cost grows with nodes × events.
   */
  readonly scope?: 'node' | 'cluster';
  readonly namespaces?: number;
  readonly pods?: number;
  readonly policies?: number;
  /** Mean time between events at the API server (default 10 ms). */
  readonly meanGapUs?: number;
  /** Delivery delay to a node: uniform in [min, max] (default 1–40 ms), order kept. */
  readonly deliveryUs?: readonly [min: number, max: number];
  /** NPM's background apply interval (default 500 ms). */
  readonly applyIntervalUs?: number;
  /** Apply at once when this many events are pending (default 100, NPM's max batches). */
  readonly maxPendingEvents?: number;
  /** The manager's soft-delete pass (`reconcile`) runs this often (default 60 s). */
  readonly reconcileEveryUs?: number;
  /** First backoff after an apply that did not converge (default 100 ms, doubling, at most 3.2 s). */
  readonly backoffUs?: number;
  /** Applies after the last event before a node counts as not converged (default 30). */
  readonly settleApplies?: number;
  readonly cost?: CostModel;
}

/** Latency summary, in microseconds. */
export interface LatencyStats {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** One node's result. */
export interface NodeReport {
  readonly node: number;
  /** Events applied to the manager. */
  readonly changes: number;
  readonly applies: number;
  /** Applies that did not converge (retried later). */
  readonly failedApplies: number;
  /** `ipset restore` runs. */
  readonly attempts: number;
  /** Restore lines sent, over all attempts. */
  readonly lines: number;
  /** Faults planted, per kind. */
  readonly faults: Readonly<Record<FaultKind, number>>;
  /** Restores that did not exit 0. */
  readonly failedRestores: number;
  /** From an event at the API server to the end of the first converged apply that contains it. */
  readonly latency: LatencyStats;
  /** Simulated time at which the node's last apply ended. */
  readonly settledAtUs: number;
  /** True when the node ended with nothing dirty and its kernel equal to its manager's desired state. */
  readonly converged: boolean;
  /** Why not, when not. */
  readonly problems: readonly string[];
  /** A digest of the node's kernel (`ipset save`, normalised): equal digests, equal kernels. */
  readonly kernelDigest: string;
}

/** The whole run. */
export interface SimulationReport {
  readonly config: Required<Omit<SimulationConfig, 'cost' | 'deliveryUs' | 'faultKinds'>> & {
    readonly cost: CostModel;
    readonly deliveryUs: readonly [number, number];
    readonly faultKinds: readonly FaultKind[];
  };
  /** Events in the trace, including the namespaces. */
  readonly traceEvents: number;
  /** Simulated time of the last event at the API server. */
  readonly traceEndUs: number;
  readonly nodes: readonly NodeReport[];
  readonly total: {
    readonly changes: number;
    readonly applies: number;
    readonly failedApplies: number;
    readonly attempts: number;
    readonly lines: number;
    readonly linesPerChange: number;
    readonly faults: Readonly<Record<FaultKind, number>>;
    readonly failedRestores: number;
    readonly latency: LatencyStats;
    /** When the last node settled. */
    readonly settledAtUs: number;
    /** Nodes that did not converge. */
    readonly notConverged: readonly number[];
    /** Scope `cluster`: nodes whose kernels differ from node 0's (they all got the same events). */
    readonly kernelsDiffering: readonly number[];
  };
}

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * The kernel's sets and members, sorted: list:set member order depends on how changes
 * were batched into applies (a member removed and re-added within one apply keeps its
 * place), and that order does not change what a list matches.
 */
function kernelFingerprint(kernel: FakeKernel): string {
  return canonicalSave(kernel.saveText())
    .map((s) => `${s.name} ${s.type} ${s.options}\n${[...s.members].sort().join('\n')}`)
    .sort()
    .join('\n');
}

function latencyStats(values: Float64Array): LatencyStats {
  if (values.length === 0) return { p50: 0, p99: 0, max: 0, mean: 0 };
  const sorted = values.slice().sort();
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]!, mean: Math.round(sum / sorted.length) };
}

function resolveConfig(config: SimulationConfig): SimulationReport['config'] {
  for (const [name, value] of [['seed', config.seed], ['nodes', config.nodes], ['events', config.events]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
    }
  }
  const faultRate = config.faultRate ?? 0.1;
  if (!(faultRate >= 0 && faultRate <= 1)) throw new RangeError(`faultRate must be between 0 and 1, got ${JSON.stringify(faultRate)}`);
  return {
    seed: config.seed,
    nodes: config.nodes,
    events: config.events,
    faultRate,
    faultKinds: config.faultKinds ?? FAULT_KINDS,
    mode: config.mode ?? 'all',
    scope: config.scope ?? 'node',
    namespaces: config.namespaces ?? 8,
    pods: config.pods ?? 400,
    policies: config.policies ?? 40,
    meanGapUs: config.meanGapUs ?? 10_000,
    deliveryUs: config.deliveryUs ?? [1_000, 40_000],
    applyIntervalUs: config.applyIntervalUs ?? 500_000,
    maxPendingEvents: config.maxPendingEvents ?? 100,
    reconcileEveryUs: config.reconcileEveryUs ?? 60_000_000,
    backoffUs: config.backoffUs ?? 100_000,
    settleApplies: config.settleApplies ?? 30,
    cost: config.cost ?? DEFAULT_COST_MODEL,
  };
}

function applyCost(report: ApplyReport, cost: CostModel): number {
  let us = cost.perApplyUs;
  for (const a of report.attempts) us += cost.perAttemptUs + a.lineIndices.length * cost.perLineUs;
  return us;
}

/** Simulates one node over the whole trace. */
async function simulateNode(
  node: number,
  trace: readonly ClusterEvent[],
  config: SimulationReport['config'],
): Promise<{ report: NodeReport; save: string; latencies: Float64Array }> {
  const random = mulberry32(deriveSeed(config.seed, node));
  const manager = new IPSetManager({ mode: config.mode });
  const kernel = new FakeKernel();
  const port = createFaultPort(kernel, random);
  const faults: Record<FaultKind, number> = { userspace: 0, kernel: 0, busy: 0, crash: 0 };
  const latencies = new Float64Array(trace.length);
  let latencyCount = 0;
  const problems: string[] = [];

  // Events processed by the manager whose change is not yet known to be in the kernel.
  const pending: number[] = [];
  let next = 0;
  let lastDelivery = 0;
  let deliveryAt = trace.length > 0 ? Math.max(0, trace[0]!.at + random.int(config.deliveryUs[0], config.deliveryUs[1])) : Infinity;
  let busyUntil = 0;
  let applyAt = Infinity;
  let reconcileAt = config.reconcileEveryUs;
  let backoff = config.backoffUs;
  let applies = 0;
  let failedApplies = 0;
  let attempts = 0;
  let lines = 0;
  let appliesAfterTrace = 0;
  let changes = 0;
  let settledAt = 0;
  let broken = false;

  for (;;) {
    if (deliveryAt <= applyAt && deliveryAt <= reconcileAt && deliveryAt !== Infinity) {
      const event = trace[next]!;
      const now = Math.max(deliveryAt, busyUntil);
      applyEvent(manager, event);
      changes++;
      pending.push(event.at);
      if (applyAt === Infinity) applyAt = now + config.applyIntervalUs;
      if (pending.length >= config.maxPendingEvents) applyAt = Math.min(applyAt, now);
      lastDelivery = deliveryAt;
      next++;
      deliveryAt =
        next < trace.length
          ? Math.max(lastDelivery, trace[next]!.at + random.int(config.deliveryUs[0], config.deliveryUs[1]))
          : Infinity;
    } else if (applyAt !== Infinity && applyAt <= reconcileAt) {
      const start = Math.max(applyAt, busyUntil);
      if (next >= trace.length && ++appliesAfterTrace > config.settleApplies) {
        problems.push(`still not converged after ${config.settleApplies} applies past the end of the trace`);
        break;
      }
      if (config.faultRate > 0 && random.chance(config.faultRate)) {
        const kind = random.pick(config.faultKinds);
        faults[kind]++;
        port.arm(kind);
      }
      let report: ApplyReport;
      try {
        report = await applyIPSets(manager, port);
      } catch (error) {
        if (!isIpsetsError(error)) throw error;
        problems.push(`apply failed: ${error.code}: ${error.message}`);
        broken = true;
        break;
      }
      applies++;
      attempts += report.attempts.length;
      for (const a of report.attempts) lines += a.lineIndices.length;
      busyUntil = start + applyCost(report, config.cost);
      settledAt = busyUntil;
      if (report.converged && !manager.hasDirtyChanges) {
        for (const at of pending) latencies[latencyCount++] = busyUntil - at;
        pending.length = 0;
        applyAt = Infinity;
        backoff = config.backoffUs;
      } else {
        failedApplies++;
        applyAt = busyUntil + backoff;
        backoff = Math.min(backoff * 2, config.backoffUs * 32);
      }
    } else if (next < trace.length || applyAt !== Infinity) {
      // The soft-delete pass: sets that nothing uses any more leave the cache (and the kernel).
      const now = Math.max(reconcileAt, busyUntil);
      if (manager.reconcile().length > 0 && applyAt === Infinity) applyAt = now + config.applyIntervalUs;
      reconcileAt += config.reconcileEveryUs;
    } else {
      break;
    }
  }

  if (!broken && manager.hasDirtyChanges) problems.push(`${manager.dirtySets().length} sets still dirty`);
  for (const p of convergenceProblems(kernel, manager.desiredState())) {
    problems.push(`kernel set ${p.set}: ${p.problem}`);
  }
  const save = kernelFingerprint(kernel);
  const measured = latencies.subarray(0, latencyCount);
  const report: NodeReport = {
    node,
    changes,
    applies,
    failedApplies,
    attempts,
    lines,
    faults,
    failedRestores: port.stats.failedRestores,
    latency: latencyStats(measured),
    settledAtUs: settledAt,
    converged: problems.length === 0,
    problems,
    kernelDigest: fnv1a(save),
  };
  return { report, save, latencies: measured };
}

/** One node's simulated run: its report, its kernel's fingerprint and its latencies (for the totals). */
export interface NodeRun {
  readonly report: NodeReport;
  /** The node's kernel, sorted (see {@link NodeReport.kernelDigest}). */
  readonly fingerprint: string;
  /** Every measured latency, in microseconds. */
  readonly latencies: Float64Array;
}

function traceOf(resolved: SimulationReport['config']): ClusterEvent[] {
  return generateTrace({
    seed: resolved.seed,
    events: resolved.events,
    namespaces: resolved.namespaces,
    pods: resolved.pods,
    policies: resolved.policies,
    meanGapUs: resolved.meanGapUs,
    nodes: resolved.nodes,
  });
}

/**
 * Simulates the nodes numbered `nodes` (each one only depends on the configuration and
 * its number, so a caller may split the nodes over workers and {@link summarize} the
 * runs in node order: the report is the same).
 */
export async function simulateNodes(config: SimulationConfig, nodes: readonly number[]): Promise<NodeRun[]> {
  const resolved = resolveConfig(config);
  const perNode = partition(traceOf(resolved), resolved);
  const runs: NodeRun[] = [];
  for (const n of nodes) {
    if (!Number.isInteger(n) || n < 0 || n >= resolved.nodes) throw new RangeError(`node ${JSON.stringify(n)} is not one of 0..${resolved.nodes - 1}`);
    const { report, save, latencies } = await simulateNode(n, perNode(n), resolved);
    runs.push({ report, fingerprint: save, latencies });
  }
  return runs;
}

/** The report of a simulation from the runs of all its nodes (any order). */
export function summarize(config: SimulationConfig, runs: readonly NodeRun[]): SimulationReport {
  const resolved = resolveConfig(config);
  const trace = traceOf(resolved);
  const ordered = [...runs].sort((a, b) => a.report.node - b.report.node);
  if (ordered.length !== resolved.nodes || ordered.some((r, i) => r.report.node !== i)) {
    throw new RangeError(`summarize needs one run per node 0..${resolved.nodes - 1}, got nodes ${ordered.map((r) => r.report.node).join(', ')}`);
  }
  const nodes = ordered.map((r) => r.report);
  const faults: Record<FaultKind, number> = { userspace: 0, kernel: 0, busy: 0, crash: 0 };
  for (const r of nodes) for (const k of FAULT_KINDS) faults[k] += r.faults[k];
  const kernelsDiffering =
    resolved.scope === 'cluster' ? ordered.filter((r) => r.fingerprint !== ordered[0]!.fingerprint).map((r) => r.report.node) : [];
  const sum = (f: (r: NodeReport) => number): number => nodes.reduce((s, r) => s + f(r), 0);
  const changes = sum((r) => r.changes);
  const lines = sum((r) => r.lines);
  return {
    config: resolved,
    traceEvents: trace.length,
    traceEndUs: trace.length > 0 ? trace[trace.length - 1]!.at : 0,
    nodes,
    total: {
      changes,
      applies: sum((r) => r.applies),
      failedApplies: sum((r) => r.failedApplies),
      attempts: sum((r) => r.attempts),
      lines,
      linesPerChange: changes === 0 ? 0 : Math.round((lines / changes) * 100) / 100,
      faults,
      failedRestores: sum((r) => r.failedRestores),
      latency: latencyStats(concat(ordered.map((r) => r.latencies))),
      settledAtUs: nodes.reduce((m, r) => Math.max(m, r.settledAtUs), 0),
      notConverged: nodes.filter((r) => !r.converged).map((r) => r.node),
      kernelsDiffering,
    },
  };
}

/**
 * Runs the simulation (see the module documentation) and returns its report. The
 * report is a pure function of `config`.
 */
export async function simulate(config: SimulationConfig): Promise<SimulationReport> {
  const resolved = resolveConfig(config);
  const all = Array.from({ length: resolved.nodes }, (_, i) => i);
  return summarize(config, await simulateNodes(config, all));
}

/** The events each node receives (see {@link SimulationConfig.scope}). */
function partition(trace: readonly ClusterEvent[], config: SimulationReport['config']): (node: number) => readonly ClusterEvent[] {
  if (config.scope === 'cluster') return () => trace;
  const lists: ClusterEvent[][] = Array.from({ length: config.nodes }, () => []);
  for (const event of trace) {
    const pod = event.kind === 'pod-create' || event.kind === 'pod-delete' ? event.pod : event.kind === 'pod-relabel' ? event.after : undefined;
    if (pod !== undefined) lists[pod.node]!.push(event);
    else for (const list of lists) list.push(event);
  }
  return (node) => lists[node]!;
}

function concat(parts: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
