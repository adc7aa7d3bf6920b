/**
 * The fleet simulation: a control plane that publishes desired-state versions as
 * ConfigMaps, the API server's watch fan-out to every kubelet, each kubelet's sync
 * loop writing the node's projected volume (`..data` swap), and N nodes running the
 * agent ({@link FleetNode}), all on one {@link VirtualClock}. Three scenarios:
 *
 * - `policy-change`: one new network policy at time 0 (two parts change); every node
 *   must apply it.
 * - `steady-churn`: pods are deleted and created at a steady rate; the producer
 *   publishes what changed every `publishEveryMs`.
 * - `rollout`: a new agent version is rolled out as a DaemonSet does it (at most
 *   `maxUnavailable` of the nodes restarting at once, each counted only after its first
 *   converged apply and `minReadyMs`), while the churn goes on.
 *
 * The fleet is converged on version 0 before time 0: each node's agent started at a
 * random moment of the warm-up (so interval ticks and kubelet syncs have random
 * phases). Everything is a function of the configuration (its seed included).
 */
import { reconcileIPSets } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import { convergenceProblems } from '@ipsets/fake-kernel/invariants';
import { deriveSeed, mulberry32 } from '../prng.js';
import type { Random } from '../prng.js';
import { ClusterState } from './cluster-state.js';
import type { ClusterShape, StateVersion } from './cluster-state.js';
import { DEFAULT_COST_MODEL, DELIVERY_MODES, deliveryProblem } from './cost-model.js';
import type { CostModel, DeliveryModeName } from './cost-model.js';
import { FleetNode } from './node-agent.js';
import { PlanCache } from './plan-cache.js';
import { VirtualClock } from './virtual-clock.js';

/** The scenarios. */
export type FleetScenario = 'policy-change' | 'steady-churn' | 'rollout';

/** All of them. */
export const FLEET_SCENARIOS: readonly FleetScenario[] = ['policy-change', 'steady-churn', 'rollout'];

/** Options of {@link simulateFleet}; every field but `scenario`, `nodes` and `delivery` has a default. */
export interface FleetConfig {
  readonly scenario: FleetScenario;
  readonly nodes: number;
  readonly delivery: DeliveryModeName;
  readonly seed?: number;
  readonly shape?: Partial<ClusterShape>;
  /** The kubelet's sync period (its `--sync-frequency`, default 60 s). */
  readonly syncPeriodMs?: number;
  /** The kubelet's jitter: each next sync comes `period × (1 + jitter × u)` later, u uniform in [0, 1) (default 0.5). */
  readonly syncJitter?: number;
  /** From the API server's write to the kubelet's watch cache, besides the bytes (uniform, default 20–200 ms; assumed). */
  readonly watchLatencyMs?: readonly [number, number];
  /** The API servers' total bandwidth for watch events (bytes/s, default 125,000,000: 1 Gbit/s; assumed). */
  readonly apiBytesPerSecond?: number;
  /** The agent's `--interval` (default 60 s, the command's default). */
  readonly intervalMs?: number;
  /** The agent's `--debounce` (default 200 ms, the command's default). */
  readonly debounceMs?: number;
  /** Simulated time after time 0 (default: 5 min for policy-change, 10 min otherwise; a rollout runs until it ends). */
  readonly durationMs?: number;
  /** Pods deleted and created per second (steady-churn and rollout; default 2). */
  readonly churnPerSecond?: number;
  /** How often the producer publishes what changed (default 10 s). */
  readonly publishEveryMs?: number;
  /** Rollout: share of the nodes restarting at once (default 0.05, the DaemonSet's `maxUnavailable: 5%`). */
  readonly maxUnavailable?: number;
  /** Rollout: `minReadySeconds` (default 30 s). */
  readonly minReadyMs?: number;
  /** Rollout: from SIGTERM's end to the new process's start (container restart, image pre-pulled; default 5 s; assumed). */
  readonly restartMs?: number;
  /** Every node its own fake kernel and a real reconcile per apply (slow; for checking the class cache). */
  readonly exact?: boolean;
  readonly costs?: CostModel;
}

type Resolved = Required<Omit<FleetConfig, 'shape' | 'costs'>> & { shape: ClusterShape; costs: CostModel };

/** Percentiles of a distribution (ms). */
export interface Distribution {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** The result of one run. */
export interface FleetReport {
  readonly config: Omit<Resolved, 'costs'> & { costs: string };
  /** The published state at time 0. */
  readonly state: { sets: number; members: number; oneFileBytes: number; partBytes: number[]; gzipPartBytes: number[] };
  readonly publishes: number;
  /** From a publish to a node's kernel holding it, over every (node, publish) pair (ms). */
  readonly nodeConvergence: Distribution;
  /** From a publish to every node holding it, over the publishes (ms). */
  readonly fleetConvergence: Distribution;
  /** (node, publish) pairs that never converged (the run goes on after its end until every version arrived, or gives up). */
  readonly notConverged: number;
  /** Bytes of watch events the API servers sent for one publish (mean), and per hour of the run. */
  readonly watchBytesPerUpdate: number;
  readonly watchBytesPerHour: number;
  /** Per node (mean over the nodes, and the largest). */
  readonly cpuSecondsPerNode: { mean: number; max: number };
  readonly cpuSecondsPerNodeHour: number;
  readonly peakRssBytes: number;
  readonly restoresPerNodeHour: number;
  readonly reconcilesPerNodeHour: number;
  readonly partsParsedPerNodeHour: number;
  readonly failedApplies: number;
  /** Rollout: from its start to the last node counted available (ms). */
  readonly rolloutMs?: number;
  /** The simulation's own work: timers fired, distinct (kernel version, desired version) pairs reconciled. */
  readonly work: { timers: number; pairsPlanned: number; versions: number };
  /** `exact` runs: nodes whose fake kernel differs from the last version they converged to. */
  readonly kernelProblems: number;
}

function resolve(config: FleetConfig): Resolved {
  const positive = (name: string, v: number, integer = false): number => {
    if (!(Number.isFinite(v) && v > 0) || (integer && !Number.isInteger(v))) throw new RangeError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(v)}`);
    return v;
  };
  if (!FLEET_SCENARIOS.includes(config.scenario)) throw new RangeError(`unknown scenario ${JSON.stringify(config.scenario)}; expected one of ${FLEET_SCENARIOS.join(', ')}`);
  if (!(config.delivery in DELIVERY_MODES)) throw new RangeError(`unknown delivery ${JSON.stringify(config.delivery)}; expected one of ${Object.keys(DELIVERY_MODES).join(', ')}`);
  const jitter = config.syncJitter ?? 0.5;
  if (!(jitter >= 0 && jitter <= 10)) throw new RangeError(`syncJitter must be between 0 and 10, got ${JSON.stringify(jitter)}`);
  const maxUnavailable = config.maxUnavailable ?? 0.05;
  if (!(maxUnavailable > 0 && maxUnavailable <= 1)) throw new RangeError(`maxUnavailable must be in (0, 1], got ${JSON.stringify(maxUnavailable)}`);
  return {
    scenario: config.scenario,
    nodes: positive('nodes', config.nodes, true),
    delivery: config.delivery,
    seed: config.seed ?? 1,
    shape: {
      namespaces: config.shape?.namespaces ?? 42,
      pods: config.shape?.pods ?? 4000,
      policies: config.shape?.policies ?? 30,
      parts: config.shape?.parts ?? 8,
    },
    syncPeriodMs: positive('syncPeriodMs', config.syncPeriodMs ?? 60_000),
    syncJitter: jitter,
    watchLatencyMs: config.watchLatencyMs ?? [20, 200],
    apiBytesPerSecond: positive('apiBytesPerSecond', config.apiBytesPerSecond ?? 125_000_000),
    intervalMs: positive('intervalMs', config.intervalMs ?? 60_000),
    debounceMs: config.debounceMs ?? 200,
    durationMs: positive('durationMs', config.durationMs ?? (config.scenario === 'policy-change' ? 5 * 60_000 : 10 * 60_000)),
    churnPerSecond: config.churnPerSecond ?? 2,
    publishEveryMs: positive('publishEveryMs', config.publishEveryMs ?? 10_000),
    maxUnavailable,
    minReadyMs: config.minReadyMs ?? 30_000,
    restartMs: config.restartMs ?? 5_000,
    exact: config.exact ?? false,
    costs: config.costs ?? DEFAULT_COST_MODEL,
  };
}

/**
 * The published versions of one cluster and the reconciles planned for them. They
 * depend only on the random seed, the shape and the producer's schedule (never on the
 * delivery mode, the fleet size or timing), so runs that share those share them: the
 * modes of one command, and the fleet sizes of the chart.
 */
interface Timeline {
  readonly state: ClusterState;
  readonly plans: PlanCache;
  /** The version the producer publishes at its tick `tick` (0-based), or undefined when nothing changed. */
  versionAtTick(tick: number): StateVersion | undefined;
}

const timelines = new Map<string, Timeline>();

function timelineOf(c: Resolved): Timeline {
  const churn = c.scenario !== 'policy-change';
  const key = JSON.stringify([c.seed, c.shape, churn, churn ? [c.churnPerSecond, c.publishEveryMs] : []]);
  const known = timelines.get(key);
  if (known !== undefined) return known;
  const state = new ClusterState(c.shape, mulberry32(deriveSeed(c.seed, 1)));
  state.snapshot();
  const atTick: (number | undefined)[] = [];
  const perTick = (c.churnPerSecond * c.publishEveryMs) / 1000;
  const timeline: Timeline = {
    state,
    plans: new PlanCache((id) => state.version(id)),
    versionAtTick(tick) {
      while (atTick.length <= tick) {
        const t = atTick.length;
        if (!churn) {
          if (t === 0) state.policyChange();
          atTick.push(t === 0 ? state.snapshot().id : undefined);
          continue;
        }
        // Pod changes accumulate at the churn rate; a tick publishes the whole ones owed.
        const changes = Math.floor((t + 1) * perTick) - Math.floor(t * perTick);
        for (let i = 0; i < changes; i++) state.churnPod();
        atTick.push(changes > 0 ? state.snapshot().id : undefined);
      }
      const id = atTick[tick];
      return id === undefined ? undefined : state.version(id);
    },
  };
  // A few timelines at most per process (one per scenario kind and seed): keep them.
  timelines.set(key, timeline);
  return timeline;
}

function distribution(values: number[]): Distribution {
  if (values.length === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { count: sorted.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted[sorted.length - 1]!) };
}

const round = (v: number, digits = 1): number => Math.round(v * 10 ** digits) / 10 ** digits;

function shuffled(n: number, random: Random): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Runs one scenario (see the module comment). The report is a pure function of `config`. */
export async function simulateFleet(config: FleetConfig): Promise<FleetReport> {
  const c = resolve(config);
  const mode = DELIVERY_MODES[c.delivery];
  const random = (stream: number): Random => mulberry32(deriveSeed(c.seed, stream));
  const controlRandom = random(0);
  const timeline = timelineOf(c);
  const state = timeline.state;
  const v0 = state.version(0);
  const problem = deliveryProblem(mode, v0);
  if (problem !== undefined) throw new RangeError(`${problem} (${v0.members} members); use parts or gzip-parts, or fewer pods`);

  // Before time 0: every agent starts within one interval, then one more interval passes.
  const warmup = 2 * c.intervalMs + c.syncPeriodMs * (1 + c.syncJitter);
  const clock = new VirtualClock(-warmup);
  const pairsUsed = new Set<string>();
  const plans = c.exact
    ? undefined
    : {
        outcome: (from: number, to: number) => {
          pairsUsed.add(`${from}>${to}`);
          return timeline.plans.outcome(from, to);
        },
      };

  const publishedAt: number[] = [Number.NEGATIVE_INFINITY];
  const arrivals: Float64Array[] = [new Float64Array(c.nodes).fill(Number.NEGATIVE_INFINITY)];
  const converged: Float64Array[] = [new Float64Array(c.nodes)];
  const latencies: number[] = [];
  // (node, version) pairs published and not yet converged.
  let outstanding = 0;
  let watchBytes = 0;
  let apiFreeAt = Number.NEGATIVE_INFINITY;

  const nodes: FleetNode[] = [];
  const ctx = {
    clock,
    mode,
    costs: c.costs,
    state,
    plans,
    intervalMs: c.intervalMs,
    debounceMs: c.debounceMs,
    graceMs: 20_000,
    measureFrom: 0,
    measureUntil: Number.POSITIVE_INFINITY,
    onKernel(node: FleetNode, from: number, to: number): void {
      for (let v = Math.max(1, from + 1); v <= to; v++) {
        converged[v]![node.id] = clock.now();
        latencies.push(clock.now() - publishedAt[v]!);
        outstanding--;
      }
    },
  };
  for (let n = 0; n < c.nodes; n++) {
    let kernelState: FakeKernel | undefined;
    if (c.exact) {
      kernelState = new FakeKernel();
      await reconcileIPSets(v0.desired, createFakePort(kernelState));
    }
    nodes.push(new FleetNode(n, ctx, { volume: 0, kernel: 0, ...(kernelState === undefined ? {} : { kernelState }) }));
  }

  // The kubelets: a watch cache per node (filled by `arrivals`), a sync loop that writes the volume.
  const syncRandom = random(2);
  const kubeletSync = (node: FleetNode): void => {
    let latest = node.volume;
    for (let v = publishedAt.length - 1; v > node.volume; v--) {
      if (arrivals[v]![node.id]! <= clock.now()) {
        latest = v;
        break;
      }
    }
    if (latest > node.volume) node.swap(latest);
    clock.setTimeout(() => kubeletSync(node), c.syncPeriodMs * (1 + c.syncJitter * syncRandom.next()));
  };
  const startRandom = random(3);
  for (const node of nodes) {
    clock.setTimeout(() => void node.start(), startRandom.next() * c.intervalMs);
    clock.setTimeout(() => kubeletSync(node), startRandom.next() * c.syncPeriodMs * (1 + c.syncJitter));
  }

  /** The producer publishes the state as it is now: the changed objects go to every kubelet. */
  const publish = (version: StateVersion): void => {
    const previous = state.version(version.id - 1);
    const objects = mode.objectsOf(version);
    const before = mode.objectsOf(previous);
    let bytes = 0;
    objects.forEach((o, i) => {
      if (before[i]?.changedIn !== o.changedIn) bytes += mode.wireBytes(o);
    });
    const tooBig = deliveryProblem(mode, version);
    if (tooBig !== undefined) throw new RangeError(`version ${version.id}: ${tooBig}`);
    publishedAt.push(clock.now());
    converged.push(new Float64Array(c.nodes).fill(Number.NaN));
    outstanding += c.nodes;
    const arrival = new Float64Array(c.nodes);
    if (bytes === 0) {
      arrival.fill(clock.now());
    } else {
      // The API servers send the changed objects to every watcher; a publish waits for the previous one's fan-out.
      watchBytes += bytes * c.nodes;
      const start = Math.max(clock.now(), apiFreeAt);
      const perNodeMs = (bytes / c.apiBytesPerSecond) * 1000;
      apiFreeAt = start + perNodeMs * c.nodes;
      const order = shuffled(c.nodes, controlRandom);
      const previousArrival = arrivals[arrivals.length - 1]!;
      order.forEach((node, k) => {
        const [lo, hi] = c.watchLatencyMs;
        const at = start + (k + 1) * perNodeMs + lo + controlRandom.next() * (hi - lo);
        arrival[node] = Math.max(at, previousArrival[node]!);
      });
    }
    arrivals.push(arrival);
  };

  let rolloutMs: number | undefined;
  let end = c.durationMs;
  const scenarioRandom = random(4);
  // The producer publishes what changed at each of its ticks (the policy change: one tick, at time 0).
  let tickIndex = 0;
  const producerTick = (): void => {
    const version = timeline.versionAtTick(tickIndex++);
    if (version !== undefined) publish(version);
    if (c.scenario !== 'policy-change' && clock.now() + c.publishEveryMs <= end) clock.setTimeout(producerTick, c.publishEveryMs);
  };
  clock.setTimeout(producerTick, warmup + (c.scenario === 'policy-change' ? 0 : c.publishEveryMs));
  if (c.scenario === 'rollout') {
    const order = shuffled(c.nodes, scenarioRandom);
    const slots = Math.max(1, Math.floor(c.nodes * c.maxUnavailable));
    let next = 0;
    let done = 0;
    const restart = async (node: FleetNode): Promise<void> => {
      await node.stop();
      await clock.sleep(c.restartMs);
      const { ready } = await node.start();
      await ready;
      await clock.sleep(c.minReadyMs);
      done++;
      if (done === c.nodes) {
        rolloutMs = clock.now();
      } else if (next < c.nodes) {
        void restart(nodes[order[next++]!]!);
      }
    };
    clock.setTimeout(() => {
      while (next < slots) void restart(nodes[order[next++]!]!);
    }, warmup);
    // A rollout runs until it ends (at most 48 simulated hours), then one more interval.
    end = Math.max(end, 48 * 3_600_000);
  }

  await clock.runUntil(0);
  if (c.scenario === 'rollout') {
    await clock.runUntil(end, () => rolloutMs !== undefined);
    // The producer's churn goes on: the run ends one interval after the rollout.
    end = (rolloutMs ?? end) + c.intervalMs;
  }
  await clock.runUntil(end);
  // No more publishes; the versions still on their way reach the nodes (costs are counted up to `end` only).
  ctx.measureUntil = end;
  await clock.runUntil(end + 3 * c.syncPeriodMs * (1 + c.syncJitter) + 2 * c.intervalMs, () => outstanding === 0);

  const fleet: number[] = [];
  let notConverged = 0;
  for (let v = 1; v < publishedAt.length; v++) {
    let worst = 0;
    let all = true;
    for (const t of converged[v]!) {
      if (Number.isNaN(t)) {
        all = false;
        notConverged++;
      } else worst = Math.max(worst, t - publishedAt[v]!);
    }
    if (all) fleet.push(worst);
  }
  let kernelProblems = 0;
  if (c.exact) {
    for (const node of nodes) {
      if (convergenceProblems(node.fakeKernel!, state.version(node.kernel).desired).length > 0) kernelProblems++;
    }
  }
  const hours = end / 3_600_000;
  const perNode = (f: (n: FleetNode) => number): number => nodes.reduce((s, n) => s + f(n), 0) / c.nodes;
  const cpu = nodes.map((n) => n.counters.cpuUs / 1e6);
  const publishes = publishedAt.length - 1;
  const { costs, ...rest } = c;
  return {
    config: { ...rest, costs: costs.measured },
    state: {
      sets: v0.sets,
      members: v0.members,
      oneFileBytes: v0.whole.bytes,
      partBytes: v0.parts.map((p) => p.bytes),
      gzipPartBytes: v0.parts.map((p) => p.gzipBytes),
    },
    publishes,
    nodeConvergence: distribution(latencies),
    fleetConvergence: distribution(fleet),
    notConverged,
    watchBytesPerUpdate: publishes === 0 ? 0 : Math.round(watchBytes / publishes),
    watchBytesPerHour: Math.round(watchBytes / hours),
    cpuSecondsPerNode: { mean: round(perNode((n) => n.counters.cpuUs / 1e6), 3), max: round(Math.max(...cpu), 3) },
    cpuSecondsPerNodeHour: round(perNode((n) => n.counters.cpuUs / 1e6) / hours, 3),
    peakRssBytes: Math.max(...nodes.map((n) => n.counters.peakBytes)),
    restoresPerNodeHour: round(perNode((n) => n.counters.restores) / hours, 2),
    reconcilesPerNodeHour: round(perNode((n) => n.counters.reconciles) / hours, 2),
    partsParsedPerNodeHour: round(perNode((n) => n.counters.partsParsed) / hours, 2),
    failedApplies: nodes.reduce((s, n) => s + n.counters.failedApplies, 0),
    ...(rolloutMs === undefined ? {} : { rolloutMs: round(rolloutMs) }),
    work: { timers: clock.fired, pairsPlanned: pairsUsed.size, versions: publishedAt.length },
    kernelProblems,
  };
}
