/**
 * The agent: what a long-running node process wraps around an IPSet manager and a
 * port. It runs one kernel operation at a time, counts applies that did not converge
 * and turns the seed's panic at the limit into a typed error, reconciles on a timer,
 * and reports metrics (prom-client) and logs (a pino-shaped logger).
 */
import { applyIPSets, IPSetManager, IpsetsError, isIpsetsError, quote, reconcileIPSets, resetIPSets } from '@ipsets/core';
import type { AbortSignalLike, ApplyReport, DesiredState, IpsetPort, ResetReport } from '@ipsets/core';
import type { Registry } from 'prom-client';
import { createAgentMetrics, DEFAULT_METRIC_PREFIX } from './agent-metrics.js';
import type { AgentMetrics, AgentOperation, AgentOutcome } from './agent-metrics.js';

/** A logger the agent writes to; pino's loggers fit (`logger.info({ sets: 3 }, 'applied')`). */
export interface AgentLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

/** Time source and timers of the agent; injectable so tests can drive the reconcile loop. */
export interface AgentClock {
  /** Milliseconds from an arbitrary origin (monotonic). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What the agent needs of a manager (an `IPSetManager` fits). */
export interface AgentManager {
  desiredState(): DesiredState;
  /** The seed's `Reconcile()`: soft-deletes unreferenced sets (used when `garbageCollect` is on). */
  reconcile?(): unknown;
  /** Forgets every set (called after a kernel reset, as the seed's `ResetIPSets` does). */
  reset?(): void;
  /** The manager's own failure limit (the agent's default). */
  readonly maxConsecutiveFailures?: number;
  /** Counts an apply (the agent calls it with `true` from `clearFatal()` to reset the manager's count). */
  recordApplyResult?(ok: boolean): void;
}

/** Options every driver call gets from the agent. */
export interface AgentDriverOptions {
  maxAttempts?: number;
  signal?: AbortSignalLike;
  owner?: string;
}

/** The kernel drivers the agent runs (default: `applyIPSets`, `reconcileIPSets`, `resetIPSets` of @ipsets/core). */
export interface AgentDrivers<M extends AgentManager = IPSetManager> {
  apply(manager: M, port: IpsetPort, options: AgentDriverOptions): Promise<ApplyReport>;
  reconcile(desired: DesiredState, port: IpsetPort, options: AgentDriverOptions): Promise<ApplyReport>;
  reset(port: IpsetPort, options: AgentDriverOptions): Promise<ResetReport>;
}

/** Options of {@link createIpsetAgent}. */
export interface IpsetAgentOptions<M extends AgentManager = IPSetManager> {
  manager: M;
  port: IpsetPort;
  /** Registry for the metrics (default: a private one, exposed as `agent.registry`). Never the global registry. */
  registry?: Registry;
  /** Metric name prefix (default `ipsets_`). */
  metricPrefix?: string;
  /** Default: silent. */
  logger?: AgentLogger;
  /**
   * Applies in a row that may fail before the agent stops with `MAX_CONSECUTIVE_FAILURES`
   * (default: the manager's `maxConsecutiveFailures`, else 100, the seed's). The core
   * `applyIPSets` driver also counts on the manager and throws at the manager's limit;
   * either limit makes the agent fatal.
   */
  maxConsecutiveFailures?: number;
  /** Period of the reconcile loop that `start()` runs (apply the pending delta, then repair drift). */
  reconcileIntervalMs?: number;
  /** Call `manager.reconcile()` (soft-delete unreferenced sets) at the start of each loop tick (default false). */
  garbageCollect?: boolean;
  /** `ipset restore` runs per operation (default: the drivers' default, 5). */
  maxAttempts?: number;
  /** Owner prefix for `reset()` (default: the manager's desired state owner). */
  owner?: string;
  /** After a kernel reset, also call `manager.reset()` so it forgets every set, as the seed's `ResetIPSets` does (default true). */
  resetManager?: boolean;
  clock?: AgentClock;
  /** Called once when the failure limit is reached. */
  onFatal?: (error: IpsetsError) => void;
  /** Replace the drivers (tests, instrumentation). */
  drivers?: Partial<AgentDrivers<M>>;
}

/** Per-call options of the agent's operations. */
export interface AgentCallOptions {
  /** Aborts the operation; a running `ipset` is killed. Calls with a signal are never merged with others. */
  signal?: AbortSignalLike;
}

/** A running agent (see {@link createIpsetAgent}). */
export interface IpsetAgent {
  /** The registry the metrics are on. */
  readonly registry: Registry;
  /** Applies in a row that did not converge. */
  readonly consecutiveFailures: number;
  /** Set once `maxConsecutiveFailures` was reached; every later `apply()` rejects with it until `clearFatal()`. */
  readonly fatalError: IpsetsError | undefined;
  /** True between `start()` and `stop()`. */
  readonly started: boolean;
  /**
   * Applies the manager's pending delta. Calls never overlap: a call made while another
   * operation runs waits for it, and calls that wait together share one apply (made from
   * the delta at the time it starts). Resolves with the report, converged or not (a
   * non-converged apply counts as a failure); rejects with `MAX_CONSECUTIVE_FAILURES`
   * when that failure reaches the limit.
   */
  apply(options?: AgentCallOptions): Promise<ApplyReport>;
  /** Compares the kernel with the manager's whole desired state and repairs drift (serialised with apply). */
  reconcile(options?: AgentCallOptions): Promise<ApplyReport>;
  /**
   * Flushes and destroys every owned set (serialised); referenced ones are reported as
   * leaked. Then the manager forgets its sets (`manager.reset()`, unless `resetManager: false`).
   */
  reset(options?: AgentCallOptions): Promise<ResetReport>;
  /** Starts the reconcile loop (needs `reconcileIntervalMs`). */
  start(): void;
  /** Stops the loop and waits for the operation in flight, if any. */
  stop(): Promise<void>;
  /** Resolves when no operation is running or queued. */
  idle(): Promise<void>;
  /** Clears the fatal state and the failure count (after an operator fixed the cause). */
  clearFatal(): void;
}

/** The seed's consecutive-failure limit. */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 100;

const SILENT: AgentLogger = { debug() {}, info() {}, warn() {}, error() {} };

const SYSTEM_CLOCK: AgentClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Creates an agent over `manager` and `port` (see {@link IpsetAgent}).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a bad limit or interval.
 */
export function createIpsetAgent<M extends AgentManager = IPSetManager>(options: IpsetAgentOptions<M>): IpsetAgent {
  const { manager, port } = options;
  const logger = options.logger ?? SILENT;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const maxFailures = options.maxConsecutiveFailures ?? manager?.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES;
  const interval = options.reconcileIntervalMs;
  if (!Number.isInteger(maxFailures) || maxFailures < 1) {
    throw new IpsetsError('INVALID_ARGUMENT', `maxConsecutiveFailures ${quote(maxFailures)} is not allowed; expected an integer of at least 1`);
  }
  if (interval !== undefined && !(Number.isFinite(interval) && interval > 0)) {
    throw new IpsetsError('INVALID_ARGUMENT', `reconcileIntervalMs ${quote(interval)} is not a positive number of milliseconds`);
  }
  if (manager === undefined || port === undefined) {
    throw new IpsetsError('INVALID_ARGUMENT', 'createIpsetAgent needs both a manager and a port');
  }
  const drivers: AgentDrivers<M> = {
    apply: options.drivers?.apply ?? (applyIPSets as unknown as AgentDrivers<M>['apply']),
    reconcile: options.drivers?.reconcile ?? reconcileIPSets,
    reset: options.drivers?.reset ?? resetIPSets,
  };
  const metrics = createAgentMetrics(options.registry, options.metricPrefix ?? DEFAULT_METRIC_PREFIX);
  installStateCollectors(metrics, manager);

  let failures = 0;
  let fatal: IpsetsError | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let queuedApply: Promise<ApplyReport> | undefined;
  let started = false;
  let timer: unknown;
  let tick: Promise<void> | undefined;

  const enqueue = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };

  const driverOptions = (call: AgentCallOptions | undefined): AgentDriverOptions => ({
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(call?.signal === undefined ? {} : { signal: call.signal }),
  });

  /** Counts one operation in the metrics and returns its outcome. */
  const observe = (operation: AgentOperation, started: number, report: ApplyReport | undefined, error?: unknown): AgentOutcome => {
    const outcome: AgentOutcome = report === undefined ? 'error' : report.converged ? 'converged' : 'not-converged';
    metrics.duration.observe({ operation, outcome }, Math.max(0, clock.now() - started) / 1000);
    metrics.operations.inc({ operation, outcome });
    if (report !== undefined) {
      metrics.attempts.observe({ operation }, report.attempts.length);
      for (const attempt of report.attempts) {
        if (attempt.error !== undefined) metrics.failures.inc({ kind: attempt.error.kind });
      }
      if (report.fatal !== undefined && report.fatal.error === undefined) metrics.failures.inc({ kind: report.fatal.code });
      metrics.inUseSets.set(report.inUseSets.length);
    } else {
      metrics.failures.inc({ kind: isIpsetsError(error) ? error.code : 'exception' });
    }
    return outcome;
  };

  const setFatal = (error: IpsetsError): IpsetsError => {
    if (fatal !== undefined) return fatal;
    fatal = error;
    logger.error({ err: error, code: error.code, consecutiveFailures: failures }, error.message);
    stopTimer();
    try {
      options.onFatal?.(error);
    } catch (callbackError) {
      logger.error({ err: callbackError }, 'onFatal callback threw');
    }
    return error;
  };

  const countFailure = (why: string, last: unknown): void => {
    failures += 1;
    metrics.consecutiveFailures.set(failures);
    if (failures >= maxFailures) {
      throw setFatal(
        new IpsetsError(
          'MAX_CONSECUTIVE_FAILURES',
          `${failures} applies in a row did not converge (maxConsecutiveFailures ${maxFailures}); last: ${why}`,
          { cause: last, details: { consecutiveFailures: failures, maxConsecutiveFailures: maxFailures } },
        ),
      );
    }
  };

  const runApply = async (call: AgentCallOptions | undefined): Promise<ApplyReport> => {
    if (fatal !== undefined) throw fatal;
    if (options.drivers?.apply === undefined && !(manager instanceof IPSetManager)) {
      // A desired-state holder can be reconciled, but only an IPSetManager has a dirty delta to apply.
      throw new IpsetsError('INVALID_ARGUMENT', 'apply() needs an IPSetManager (or drivers.apply); use reconcile() to apply a plain desired state');
    }
    const begin = clock.now();
    logger.debug({ operation: 'apply' }, 'applying pending ipset changes');
    let report: ApplyReport;
    try {
      report = await drivers.apply(manager, port, driverOptions(call));
    } catch (error) {
      observe('apply', begin, undefined, error);
      if (isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')) throw setFatal(error);
      logger.error({ err: error, operation: 'apply' }, 'apply threw');
      countFailure(error instanceof Error ? error.message : String(error), error);
      throw error;
    }
    const outcome = observe('apply', begin, report);
    if (outcome === 'converged' && report.attempts.length === 0) {
      // Nothing was dirty: as in the seed, this does not touch the failure count.
      logger.debug({ operation: 'apply' }, 'nothing to apply');
      return report;
    }
    if (outcome === 'converged') {
      if (failures > 0) logger.info({ previousFailures: failures }, 'apply converged again');
      failures = 0;
      metrics.consecutiveFailures.set(0);
      logger.info(summary(report), 'applied ipset changes');
      return report;
    }
    logger.warn({ ...summary(report), consecutiveFailures: failures + 1 }, 'apply did not converge');
    countFailure(describeFailure(report), report);
    return report;
  };

  const runReconcile = async (call: AgentCallOptions | undefined): Promise<ApplyReport> => {
    const begin = clock.now();
    let report: ApplyReport;
    try {
      report = await drivers.reconcile(manager.desiredState(), port, driverOptions(call));
    } catch (error) {
      observe('reconcile', begin, undefined, error);
      logger.error({ err: error, operation: 'reconcile' }, 'reconcile threw');
      throw error;
    }
    const outcome = observe('reconcile', begin, report);
    if (outcome === 'converged') logger.info(summary(report), 'reconciled the kernel with the desired state');
    else logger.warn(summary(report), 'reconcile did not converge');
    return report;
  };

  const runReset = async (call: AgentCallOptions | undefined): Promise<ResetReport> => {
    const begin = clock.now();
    const owner = options.owner ?? manager.desiredState().owner;
    try {
      const report = await drivers.reset(port, { ...driverOptions(call), owner });
      if (options.resetManager !== false) manager.reset?.();
      const { leaked } = report;
      metrics.leakedSets.set(leaked.length);
      const outcome: AgentOutcome = report.converged ? 'converged' : 'not-converged';
      for (const session of [report.flush, report.destroy]) {
        for (const attempt of session?.attempts ?? []) {
          if (attempt.error !== undefined) metrics.failures.inc({ kind: attempt.error.kind });
        }
      }
      metrics.duration.observe({ operation: 'reset', outcome }, Math.max(0, clock.now() - begin) / 1000);
      metrics.operations.inc({ operation: 'reset', outcome });
      const counts = { owner, destroyed: report.destroyed.length, leakedCount: leaked.length, failedCount: report.failed.length };
      if (!report.converged) logger.warn({ ...counts, failed: report.failed.slice(0, 10), problems: report.problems }, 'reset did not converge');
      else if (leaked.length > 0) logger.warn({ ...counts, leaked: leaked.slice(0, 10) }, 'reset left referenced sets in the kernel');
      else logger.info(counts, 'reset owned ipsets');
      return report;
    } catch (error) {
      metrics.duration.observe({ operation: 'reset', outcome: 'error' }, Math.max(0, clock.now() - begin) / 1000);
      metrics.operations.inc({ operation: 'reset', outcome: 'error' });
      metrics.failures.inc({ kind: isIpsetsError(error) ? error.code : 'exception' });
      logger.error({ err: error, operation: 'reset' }, 'reset failed');
      throw error;
    }
  };

  const apply = (call?: AgentCallOptions): Promise<ApplyReport> => {
    if (fatal !== undefined) return Promise.reject(fatal);
    // Callers that arrive while an apply is queued (not yet started) share it: it plans
    // from the manager's delta when it starts, which includes all of their changes.
    if (call?.signal === undefined && queuedApply !== undefined) return queuedApply;
    const queued: Promise<ApplyReport> = enqueue(() => {
      if (queuedApply === queued) queuedApply = undefined;
      return runApply(call);
    });
    if (call?.signal === undefined) queuedApply = queued;
    return queued;
  };

  const stopTimer = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    started = false;
  };

  const schedule = (): void => {
    if (!started || interval === undefined) return;
    timer = clock.setTimeout(() => {
      timer = undefined;
      tick = runTick().finally(() => {
        tick = undefined;
        schedule();
      });
    }, interval);
  };

  const runTick = async (): Promise<void> => {
    try {
      if (options.garbageCollect === true) manager.reconcile?.();
      await apply();
      if (!started) return;
      await enqueue(() => runReconcile(undefined));
    } catch (error) {
      // The loop never dies of one bad tick; the fatal limit stops it through setFatal.
      if (!isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')) logger.error({ err: error }, 'reconcile tick failed');
    }
  };

  return {
    get registry() {
      return metrics.registry;
    },
    get consecutiveFailures() {
      return failures;
    },
    get fatalError() {
      return fatal;
    },
    get started() {
      return started;
    },
    apply,
    reconcile: (call) => enqueue(() => runReconcile(call)),
    reset: (call) => enqueue(() => runReset(call)),
    start() {
      if (interval === undefined) {
        throw new IpsetsError('INVALID_ARGUMENT', 'start() needs reconcileIntervalMs; pass it to createIpsetAgent');
      }
      if (fatal !== undefined) throw fatal;
      if (started) return;
      started = true;
      logger.info({ reconcileIntervalMs: interval }, 'reconcile loop started');
      schedule();
    },
    async stop() {
      const wasStarted = started;
      stopTimer();
      if (tick !== undefined) await tick;
      await tail;
      if (wasStarted) logger.info({}, 'reconcile loop stopped');
    },
    async idle() {
      await tail;
    },
    clearFatal() {
      fatal = undefined;
      failures = 0;
      manager.recordApplyResult?.(true);
      metrics.consecutiveFailures.set(0);
    },
  };
}

/** Gauges of the desired state are computed when scraped, so applies never pay for them. */
function installStateCollectors(metrics: AgentMetrics, manager: AgentManager): void {
  let cached: { sets: number; entries: number } | undefined;
  const read = (): { sets: number; entries: number } => {
    if (cached === undefined) {
      const desired = manager.desiredState();
      let entries = 0;
      for (const set of desired.sets) entries += set.members.length;
      cached = { sets: desired.sets.length, entries };
      // One scrape reads the state once for both gauges.
      queueMicrotask(() => {
        cached = undefined;
      });
    }
    return cached;
  };
  const setsGauge = metrics.sets as unknown as { collect?: () => void };
  const entriesGauge = metrics.entries as unknown as { collect?: () => void };
  setsGauge.collect = function collect(this: { set(v: number): void }) {
    this.set(read().sets);
  };
  entriesGauge.collect = function collect(this: { set(v: number): void }) {
    this.set(read().entries);
  };
}

function summary(report: ApplyReport): Record<string, unknown> {
  return {
    converged: report.converged,
    linesTotal: report.linesTotal,
    linesApplied: report.linesApplied,
    attempts: report.attempts.length,
    skipped: report.skipped.length,
    failedSets: report.failedSets.slice(0, 10),
    inUseSets: report.inUseSets.slice(0, 10),
    ...(report.fatal === undefined ? {} : { fatal: report.fatal.code, fatalMessage: report.fatal.message }),
  };
}

function describeFailure(report: ApplyReport): string {
  if (report.fatal !== undefined) return `${report.fatal.code}: ${report.fatal.message}`;
  const first = report.skipped.find((s) => s.outcome === 'not-converged');
  if (first !== undefined) return `${report.failedSets.length} set(s) not converged, first: ${first.text} (${first.kind}: ${first.message})`;
  return `${report.failedSets.length} set(s) not converged`;
}

