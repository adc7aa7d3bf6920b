/**
 * One simulated node: the agent as `ipsets agent DIR` runs it, on virtual time.
 *
 * Real code: the library agent {@link createIpsetAgent} as `ipsets agent` runs it (its
 * loop: start, file-change and interval triggers, ticks never overlapping, triggers
 * during a tick collapsing into one more; its serial operation queue, failure policy,
 * health and metrics), on the {@link VirtualClock}; the reconcile
 * is core's `reconcileIPSets` against the fake kernel (through the {@link PlanCache},
 * or on the node's own fake kernel with `exact`).
 *
 * Modelled: the desired source. `DesiredSource` (the CLI's file follower) reads real
 * files and watches real folders, so its behaviour is reproduced here on the simulated
 * volume: a `..data` swap schedules a check one debounce later (a new swap restarts
 * the debounce), every interval tick checks too, concurrent checks collapse into one
 * more, a check reads and hashes every file and parses only the files whose digest
 * changed (what the delivery mode's `check` charges), and a changed state triggers an
 * apply. The kernel side is charged from the cost model (`ipset save` per member,
 * `ipset restore` per line, process starts).
 */
import type { ApplyReport, CommandResult, DesiredState, IpsetPort } from '@ipsets/core';
import { reconcileIPSets } from '@ipsets/core';
import { createIpsetAgent } from '@ipsets/exec-linux';
import type { IpsetAgent } from '@ipsets/exec-linux';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import type { ClusterState, StateVersion } from './cluster-state.js';
import { reconcileCpuUs, steadyBytes } from './cost-model.js';
import type { CostModel, DeliveryMode } from './cost-model.js';
import { outcomeOf, savedMemberCount } from './plan-cache.js';
import type { PlanCache, ReconcileOutcome } from './plan-cache.js';
import type { VirtualClock } from './virtual-clock.js';

/** What every node of one run shares. */
export interface NodeContext {
  readonly clock: VirtualClock;
  readonly mode: DeliveryMode;
  readonly costs: CostModel;
  readonly state: ClusterState;
  /** The per-class reconcile cache; undefined gives each node its own fake kernel (`exact`). */
  readonly plans: Pick<PlanCache, 'outcome'> | undefined;
  readonly intervalMs: number;
  readonly debounceMs: number;
  /** How long a stop lets the apply in flight finish (the agent's `--grace`). */
  readonly graceMs: number;
  /** Costs and peaks count from this time on (the warm-up before it is not reported)… */
  readonly measureFrom: number;
  /** …up to this time (the drain after the last publish is not reported). */
  readonly measureUntil: number;
  /** Called when a node's kernel reaches a version (`from` exclusive, `to` inclusive). */
  onKernel(node: FleetNode, from: number, to: number): void;
}

/** A node's counters over the measured window. */
export interface NodeCounters {
  cpuUs: number;
  reconciles: number;
  restores: number;
  restoreLines: number;
  checks: number;
  partsParsed: number;
  peakBytes: number;
  failedApplies: number;
}

const UNUSED_PORT: IpsetPort = {
  restore: () => Promise.reject(new Error('the simulated agent reconciles through its driver only')),
  save: () => Promise.reject(new Error('the simulated agent reconciles through its driver only')),
  listNames: () => Promise.reject(new Error('the simulated agent reconciles through its driver only')),
  listHeaders: () => Promise.reject(new Error('the simulated agent reconciles through its driver only')),
};

/** One node (see the module comment). */
export class FleetNode {
  /** The version the node's volume holds (what the kubelet last wrote). */
  volume: number;
  /** The version the node's kernel holds (-1: no owned sets). */
  kernel: number;
  readonly counters: NodeCounters = { cpuUs: 0, reconciles: 0, restores: 0, restoreLines: 0, checks: 0, partsParsed: 0, peakBytes: 0, failedApplies: 0 };
  /** The library agent of the process running now (undefined while stopped). */
  agent: IpsetAgent | undefined;

  private seen: StateVersion | undefined;
  private desired: StateVersion | undefined;
  private running = false;
  private debounce: unknown;
  private checking: Promise<void> | undefined;
  private again = false;
  private ready: (() => void) | undefined;
  private readonly ownKernel: FakeKernel | undefined;

  constructor(
    readonly id: number,
    private readonly ctx: NodeContext,
    initial: { volume: number; kernel: number; kernelState?: FakeKernel },
  ) {
    this.volume = initial.volume;
    this.kernel = initial.kernel;
    this.ownKernel = ctx.plans === undefined ? (initial.kernelState ?? new FakeKernel()) : undefined;
  }

  /** This node's fake kernel (`exact` runs only). */
  get fakeKernel(): FakeKernel | undefined {
    return this.ownKernel;
  }

  /** True while an agent process runs. */
  get isRunning(): boolean {
    return this.running;
  }

  /**
   * Starts an agent process: Node starts, every file is read and parsed (a start
   * knows nothing), the first apply is triggered and the interval starts. Resolves
   * when the process has started; `ready` resolves after its first converged apply.
   */
  async start(): Promise<{ ready: Promise<void> }> {
    const { clock, costs, mode, state } = this.ctx;
    const ready = new Promise<void>((resolve) => (this.ready = resolve));
    await this.spend(costs.agent.processStartUs, 0);
    // DesiredSource.open: the whole state, read and parsed.
    const first = state.version(this.volume);
    await this.chargeCheck(mode.check(undefined, first, costs));
    this.seen = first;
    this.desired = first;
    const agent = createIpsetAgent({
      manager: { desiredState: (): DesiredState => this.desired!.desired },
      port: UNUSED_PORT,
      clock,
      reconcileIntervalMs: this.ctx.intervalMs,
      beforeTick: (why) => (why === 'interval' ? this.check() : undefined),
      onTick: ({ report }) => {
        if (report?.converged === true) {
          this.ready?.();
          this.ready = undefined;
        } else {
          this.counters.failedApplies++;
        }
      },
      drivers: { reconcile: (desired) => this.reconcile(desired) },
    });
    this.agent = agent;
    this.running = true;
    // DesiredSource.start: the watch, then one check (what changed since the open).
    await this.check();
    agent.start();
    agent.trigger('start');
    return { ready };
  }

  /** SIGTERM: the watch closes, the loop stops, the apply in flight finishes within the grace period. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.ctx.clock.clearTimeout(this.debounce);
    await this.agent!.stop({ graceMs: this.ctx.graceMs });
    this.agent = undefined;
  }

  /** The kubelet swapped the volume's `..data` to `version`. */
  swap(version: number): void {
    this.volume = version;
    if (!this.running) return;
    const { clock, debounceMs } = this.ctx;
    clock.clearTimeout(this.debounce);
    this.debounce = clock.setTimeout(() => void this.check(), debounceMs);
  }

  /** DesiredSource.check: one check at a time; calls meanwhile collapse into one more. */
  private check(): Promise<void> {
    if (this.checking !== undefined) {
      this.again = true;
      return this.checking;
    }
    this.checking = (async () => {
      do {
        this.again = false;
        await this.checkOnce();
      } while (this.again && this.running);
    })().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    const { state, mode, costs } = this.ctx;
    const now = state.version(this.volume);
    await this.chargeCheck(mode.check(this.seen, now, costs));
    if (!this.running) return;
    const seen = this.seen;
    if (seen !== undefined && mode.objectsOf(seen).every((o, i) => o.changedIn === mode.objectsOf(now)[i]!.changedIn)) return;
    this.seen = now;
    this.desired = now;
    this.agent?.trigger('file changed');
  }

  private async chargeCheck(cost: { cpuUs: number; transientBytes: number; parsed: number }): Promise<void> {
    if (this.measuring()) {
      this.counters.checks++;
      this.counters.partsParsed += cost.parsed;
    }
    await this.spend(cost.cpuUs, cost.transientBytes);
  }

  /** The agent's reconcile driver: the real reconcile's outcome, charged in virtual time. */
  private async reconcile(desired: DesiredState): Promise<ApplyReport> {
    const { state, plans, costs } = this.ctx;
    const to = state.versionOf(desired);
    const from = this.kernel;
    const outcome = plans === undefined ? await this.reconcileOwnKernel(desired) : await plans.outcome(from, to);
    if (this.measuring()) {
      this.counters.reconciles++;
      this.counters.restores += outcome.restores;
      this.counters.restoreLines += outcome.restoreLines;
    }
    await this.spend(reconcileCpuUs(costs, outcome.savedMembers, outcome.restores, outcome.restoreLines), outcome.savedMembers * costs.memory.saveBytesPerMember);
    if (outcome.report.converged && to > this.kernel) {
      const before = this.kernel;
      this.kernel = to;
      this.ctx.onKernel(this, before, to);
    }
    return outcome.report;
  }

  private async reconcileOwnKernel(desired: DesiredState): Promise<ReconcileOutcome> {
    const port = createFakePort(this.ownKernel!);
    let saved = 0;
    const counting: IpsetPort = {
      ...port,
      save: async (call): Promise<CommandResult> => {
        const result = await port.save(call);
        saved = savedMemberCount(result.stdout);
        return result;
      },
    };
    const report = await reconcileIPSets(desired, counting);
    return outcomeOf(report, saved);
  }

  /** Charges `cpuUs` of work holding `transientBytes` above the steady state, and lets that much virtual time pass. */
  private async spend(cpuUs: number, transientBytes: number): Promise<void> {
    if (this.measuring()) {
      this.counters.cpuUs += cpuUs;
      const members = this.desired?.members ?? 0;
      this.counters.peakBytes = Math.max(this.counters.peakBytes, steadyBytes(this.ctx.costs, members) + transientBytes);
    }
    await this.ctx.clock.sleep(cpuUs / 1000);
  }

  private measuring(): boolean {
    const now = this.ctx.clock.now();
    return now >= this.ctx.measureFrom && now <= this.ctx.measureUntil;
  }
}
