/**
 * The agent: what a long-running node process wraps around an IPSet manager and a
 * port. It runs one kernel operation at a time (and, with `lock`, one per kernel
 * across processes), keeps the one consecutive-failure policy of the process (every
 * apply and reconcile counts), reconciles on a timer, stops gracefully, says whether it
 * is live and ready, and reports metrics (prom-client) and one structured log line per
 * operation (a pino logger plugs in).
 *
 * This file wires the other parts of this folder: the contract (`api`), the serial queue with
 * the kernel lock (`operation-queue`), the failure policy (`failure-policy`), the
 * loop's timer (`reconcile-loop`), the graceful stop (`graceful-stop`), health
 * (`health`), and the metrics and log lines of each operation (`operation-log`,
 * `metrics`, `state-gauges`).
 */
import { IPSetManager, IpsetsError, PreparedDesiredState, applyIPSets, isIpsetsError, quote, reconcileIPSets, resetIPSets } from '@ipsets/core';
import type { ApplyReport, DesiredState, IpsetPort, ResetReport } from '@ipsets/core';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_STUCK_AFTER_MS } from '../defaults.js';
import type { AgentCallOptions, AgentClock, AgentTick, AgentDriverOptions, AgentDrivers, AgentLogger, AgentManager, AgentStopOptions, AgentStopResult, IpsetAgent, IpsetAgentOptions } from './api.js';
import { describeFailure, FailurePolicy } from './failure-policy.js';
import { healthOf } from './health.js';
import type { LastOperation } from './health.js';
import { createAgentMetrics, DEFAULT_METRIC_PREFIX } from './metrics.js';
import type { AgentOperation } from './metrics.js';
import { errorInfoOf, logOperation, observeOperation, observeReset, observeResetError, operationSummary, reportFields } from './operation-log.js';
import { OperationQueue } from './operation-queue.js';
import { stopGracefully } from './graceful-stop.js';
import { ReconcileLoop } from './reconcile-loop.js';
import { installStateCollectors } from './state-gauges.js';


const SILENT: AgentLogger = { debug() {}, info() {}, warn() {}, error() {} };

const SYSTEM_CLOCK: AgentClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Core's `applyIPSets` (which also notices sets destroyed behind the manager's back)
 * without the manager's own consecutive-failure count: the agent's count is the
 * process's one policy (the manager would otherwise throw at its own limit, which no
 * converged reconcile ever resets).
 */
function applyDelta(manager: IPSetManager, port: IpsetPort, options: AgentDriverOptions): Promise<ApplyReport> {
  return applyIPSets(manager, port, { ...options, countFailures: false });
}

/**
 * Creates an agent over `manager` and `port` (see {@link IpsetAgent}).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a bad limit, interval or lock path.
 */
export function createIpsetAgent<M extends AgentManager = IPSetManager>(options: IpsetAgentOptions<M>): IpsetAgent {
  const { manager, port, lock } = options;
  const logger = options.logger ?? SILENT;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const maxFailures = options.maxConsecutiveFailures ?? manager?.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES;
  const interval = options.reconcileIntervalMs;
  const stuckAfterMs = options.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS;
  const livenessIntervals = options.livenessIntervals ?? 3;
  if (!Number.isInteger(maxFailures) || maxFailures < 1) {
    throw new IpsetsError('INVALID_ARGUMENT', `maxConsecutiveFailures ${quote(maxFailures)} is not allowed; expected an integer of at least 1`);
  }
  if (interval !== undefined && !(Number.isFinite(interval) && interval > 0)) {
    throw new IpsetsError('INVALID_ARGUMENT', `reconcileIntervalMs ${quote(interval)} is not a positive number of milliseconds`);
  }
  if (!(typeof stuckAfterMs === 'number' && stuckAfterMs > 0)) {
    throw new IpsetsError('INVALID_ARGUMENT', `stuckAfterMs ${quote(stuckAfterMs)} is not a positive number of milliseconds`);
  }
  if (!(typeof livenessIntervals === 'number' && livenessIntervals >= 1)) {
    throw new IpsetsError('INVALID_ARGUMENT', `livenessIntervals ${quote(livenessIntervals)} is not allowed; expected a number of at least 1`);
  }
  if (lock !== undefined && (typeof lock.path !== 'string' || lock.path === '')) {
    throw new IpsetsError('INVALID_ARGUMENT', `lock.path ${quote(lock.path)} is not usable; expected a lock file path such as "/run/ipsets/host.lock"`);
  }
  if (manager === undefined || port === undefined) {
    throw new IpsetsError('INVALID_ARGUMENT', 'createIpsetAgent needs both a manager and a port');
  }
  const drivers: AgentDrivers<M> = {
    apply: options.drivers?.apply ?? (applyDelta as unknown as AgentDrivers<M>['apply']),
    reconcile: options.drivers?.reconcile ?? reconcileIPSets,
    reset: options.drivers?.reset ?? resetIPSets,
  };
  const metrics = createAgentMetrics(options.registry, options.metricPrefix ?? DEFAULT_METRIC_PREFIX);
  installStateCollectors(metrics, manager);

  const queue = new OperationQueue({ clock, lock, maxAttempts: options.maxAttempts });
  const policy = new FailurePolicy(maxFailures, (error, failures) => {
    logger.error({ err: error, code: error.code, consecutiveFailures: failures, maxConsecutiveFailures: maxFailures }, error.message);
    loop.stop();
    try {
      options.onFatal?.(error);
    } catch (callbackError) {
      logger.error({ err: callbackError }, 'onFatal callback threw');
    }
  });
  let queuedApply: Promise<ApplyReport> | undefined;
  let last: LastOperation | undefined;
  let stopping: Promise<AgentStopResult> | undefined;

  /** Runs one operation through the queue; refused before it starts while stopping. */
  const execute = <T extends ApplyReport | ResetReport>(
    operation: AgentOperation,
    call: AgentCallOptions | undefined,
    body: (driverOptions: AgentDriverOptions) => Promise<T>,
  ): Promise<T> => {
    if (stopping !== undefined) return Promise.reject(notStarted(operation));
    return queue.execute(operation, call, body);
  };

  /**
   * Counts one finished apply or reconcile (the failure policy, metrics, health's
   * summary) and logs its one line; throws the fatal error when the count reaches the
   * limit. An apply with nothing to do is neither counted nor summarised.
   */
  const settle = (operation: AgentOperation, durationMs: number, report: ApplyReport | undefined, error?: unknown): void => {
    const outcome = observeOperation(metrics, operation, durationMs, report, error);
    if (report !== undefined && operation === 'apply' && report.attempts.length === 0 && report.linesTotal === 0 && report.converged) {
      logger.debug({ operation, durationMs, converged: true, linesTotal: 0, consecutiveFailures: policy.failures }, 'nothing to apply');
      return;
    }
    const aborted = isIpsetsError(error, 'ABORTED') || report?.fatal?.code === 'ABORTED';
    // Input its driver refused (nothing reached the kernel) is not a kernel failure: a
    // restart cannot fix it, so it never counts toward the limit (an empty desired state
    // refused by the caller's guard is kept out like an invalid file).
    const refused = report === undefined && isIpsetsError(error, 'INVALID_INPUT');
    const converged = outcome === 'converged';
    const previous = policy.record(converged, aborted || refused);
    metrics.consecutiveFailures.set(policy.failures);
    const errorInfo = errorInfoOf(report, error);
    last = { ...operationSummary(operation, outcome, aborted, durationMs, report, errorInfo), finishedAt: clock.now() };
    const fields: Record<string, unknown> = {
      operation,
      durationMs,
      converged,
      ...(report === undefined ? { err: error, code: errorInfo?.code } : reportFields(report)),
      consecutiveFailures: policy.failures,
      ...(converged && previous > 0 ? { previousFailures: previous } : {}),
    };
    logOperation(logger, operation, fields, outcome, aborted, report !== undefined);
    if (policy.reachedLimit(converged, aborted || refused)) {
      const why = report === undefined ? (errorInfo?.message ?? 'unknown error') : describeFailure(report);
      throw policy.setFatal(policy.limitError(why, report ?? error));
    }
  };

  const runCounted = async (
    operation: 'apply' | 'reconcile',
    call: AgentCallOptions | undefined,
    driver: (driverOptions: AgentDriverOptions) => Promise<ApplyReport>,
  ): Promise<ApplyReport> => {
    if (policy.fatal !== undefined) throw policy.fatal;
    // Refused before it counts or logs: work queued behind a stop never ran.
    if (stopping !== undefined) throw notStarted(operation);
    const begin = clock.now();
    const elapsed = (): number => Math.max(0, Math.round(clock.now() - begin));
    let report: ApplyReport;
    try {
      report = await execute(operation, call, driver);
    } catch (error) {
      if (isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')) {
        observeOperation(metrics, operation, elapsed(), undefined, error);
        throw policy.setFatal(error);
      }
      settle(operation, elapsed(), undefined, error);
      throw error;
    }
    settle(operation, elapsed(), report);
    return report;
  };

  const canApply = (): boolean => options.drivers?.apply !== undefined || manager instanceof IPSetManager;

  const runApply = (call: AgentCallOptions | undefined): Promise<ApplyReport> => {
    if (!canApply()) {
      // A desired-state holder can be reconciled, but only an IPSetManager has a dirty delta to apply.
      return Promise.reject(
        new IpsetsError('INVALID_ARGUMENT', 'apply() needs an IPSetManager (or drivers.apply); use reconcile() to apply a plain desired state'),
      );
    }
    return runCounted('apply', call, (o) => drivers.apply(manager, port, o));
  };

  // With core's reconcile, the desired state of the last reconcile, checked: the next one
  // checks again only the sets that changed since (an IPSetManager hands out an unchanged
  // set as the same frozen object). A driver of the caller's gets the state as it is.
  let prepared: PreparedDesiredState | undefined;
  const desiredForReconcile = (): DesiredState => {
    const desired = manager.desiredState();
    if (options.drivers?.reconcile !== undefined || desired instanceof PreparedDesiredState) return desired;
    prepared = new PreparedDesiredState(desired, prepared);
    return prepared;
  };
  const runReconcile = (call: AgentCallOptions | undefined): Promise<ApplyReport> =>
    runCounted('reconcile', call, async (o) => drivers.reconcile(desiredForReconcile(), port, o));

  const runReset = async (call: AgentCallOptions | undefined): Promise<ResetReport> => {
    const begin = clock.now();
    const owner = options.owner ?? manager.desiredState().owner;
    try {
      const report = await execute('reset', call, (o) => drivers.reset(port, { ...o, owner })).finally(() => {
        // As the reference's ResetIPSets: the manager forgets its sets whatever the kernel
        // outcome; what the kernel kept is reported, and the next reconcile removes it.
        if (options.resetManager !== false) manager.reset?.();
      });
      observeReset(metrics, logger, owner, Math.max(0, Math.round(clock.now() - begin)), report);
      return report;
    } catch (error) {
      observeResetError(metrics, logger, Math.max(0, Math.round(clock.now() - begin)), error);
      throw error;
    }
  };

  const apply = (call?: AgentCallOptions): Promise<ApplyReport> => {
    if (policy.fatal !== undefined) return Promise.reject(policy.fatal);
    // Callers that arrive while an apply is queued (not yet started) share it: it plans
    // from the manager's delta when it starts, which includes all of their changes.
    if (call?.signal === undefined && queuedApply !== undefined) return queuedApply;
    const queued: Promise<ApplyReport> = queue.enqueue(() => {
      if (queuedApply === queued) queuedApply = undefined;
      return runApply(call);
    });
    if (call?.signal === undefined) queuedApply = queued;
    return queued;
  };

  /**
   * One tick: the pending delta, then the drift repair, as one queued job under ONE
   * hold of the kernel lock (released when the tick ends), so that no other writer
   * ever sees or changes the kernel between the two.
   */
  const runTick = async (why: string): Promise<void> => {
    let tick: AgentTick = { why };
    try {
      if (options.beforeTick !== undefined) {
        try {
          await options.beforeTick(why);
        } catch (error) {
          logger.error({ err: error, trigger: why }, 'beforeTick failed; the tick goes on');
        }
      }
      if (options.garbageCollect === true) manager.reconcile?.();
      await queue.enqueue(() =>
        queue.holdingLockOnce(async () => {
          // A plain desired-state holder has no delta: its tick is the reconcile alone.
          if (canApply()) tick = { why, report: await runApply(undefined) };
          if (!loop.started) return;
          tick = { why, report: await runReconcile(undefined) };
        }),
      );
    } catch (error) {
      tick = { why, error };
      // The loop never dies of one bad tick (each operation logged its own line); the
      // failure limit stops it through the policy.
      if (!isIpsetsError(error)) logger.error({ err: error }, 'reconcile tick failed');
    }
    try {
      options.onTick?.(tick);
    } catch (callbackError) {
      logger.error({ err: callbackError }, 'onTick callback threw');
    }
  };
  const loop = new ReconcileLoop(clock, interval, runTick);

  const stop = async (stopOptions: AgentStopOptions = {}): Promise<AgentStopResult> => {
    const { graceMs } = stopOptions;
    if (graceMs !== undefined && !(typeof graceMs === 'number' && graceMs >= 0)) {
      throw new IpsetsError('INVALID_ARGUMENT', `graceMs ${quote(graceMs)} is not allowed; expected 0 or more milliseconds`);
    }
    if (stopping !== undefined) {
      if (graceMs === 0) queue.abort(new IpsetsError('ABORTED', 'the agent was stopped again; the operation in flight was aborted at once'));
      return stopping;
    }
    stopping = stopGracefully({ queue, loop, clock, logger }, graceMs);
    try {
      return await stopping;
    } finally {
      stopping = undefined;
      queue.rearm();
    }
  };

  return {
    get registry() {
      return metrics.registry;
    },
    get consecutiveFailures() {
      return policy.failures;
    },
    get fatalError() {
      return policy.fatal;
    },
    get started() {
      return loop.started;
    },
    apply,
    reconcile: (call) => (policy.fatal !== undefined ? Promise.reject(policy.fatal) : queue.enqueue(() => runReconcile(call))),
    reset: (call) => queue.enqueue(() => runReset(call)),
    start() {
      if (interval === undefined) {
        throw new IpsetsError('INVALID_ARGUMENT', 'start() needs reconcileIntervalMs; pass it to createIpsetAgent');
      }
      if (policy.fatal !== undefined) throw policy.fatal;
      if (loop.started) return;
      logger.info({ reconcileIntervalMs: interval }, 'reconcile loop started');
      loop.start();
    },
    trigger: (why = 'trigger') => loop.trigger(why),
    stop,
    idle: () => queue.idle(),
    health: () =>
      healthOf({
        now: clock.now(),
        fatal: policy.fatal,
        inFlight: queue.inFlight,
        stuckAfterMs,
        started: loop.started,
        ticking: loop.tick !== undefined,
        intervalMs: interval,
        loopBeat: loop.beat,
        livenessIntervals,
        last,
        consecutiveFailures: policy.failures,
        maxConsecutiveFailures: maxFailures,
      }),
    clearFatal() {
      policy.clear();
      manager.recordApplyResult?.(true);
      metrics.consecutiveFailures.set(0);
    },
  };
}

function notStarted(operation: AgentOperation): IpsetsError {
  return new IpsetsError('ABORTED', `the agent is stopping; the queued ${operation} was not started`, { details: { operation } });
}
