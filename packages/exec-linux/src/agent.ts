/**
 * The agent: what a long-running node process wraps around an IPSet manager and a
 * port. It runs one kernel operation at a time (and, with `lock`, one per kernel
 * across processes), keeps the one consecutive-failure policy of the process (every
 * apply and reconcile counts), reconciles on a timer, stops gracefully, says whether it
 * is live and ready, and reports metrics (prom-client) and one structured log line per
 * operation (a pino logger plugs in).
 *
 * States of one operation: queued → (waiting for the kernel lock) → running → settled.
 * Only one is past "queued" at a time. `stop({ graceMs })` lets the running one settle,
 * and aborts it (the port kills ipset) when the grace period runs out; queued ones
 * that have not started by then are rejected with `ABORTED`.
 */
import { IPSetManager, IpsetsError, applyIPSets, isIpsetsError, quote, reconcileIPSets, resetIPSets } from '@ipsets/core';
import type { AbortSignalLike, ApplyReport, DesiredState, IpsetPort, ResetReport } from '@ipsets/core';
import type { Registry } from 'prom-client';
import { createAgentMetrics, DEFAULT_METRIC_PREFIX } from './agent-metrics.js';
import type { AgentMetrics, AgentOperation, AgentOutcome } from './agent-metrics.js';
import { acquireKernelLock, withKernelLock } from './kernel-lock.js';
import type { KernelLock, KernelLockOptions } from './kernel-lock.js';
import { DEFAULT_READ_TIMEOUT_MS, DEFAULT_RESTORE_TIMEOUT_MS } from './linux-port.js';

/**
 * A logger the agent writes to; pino's loggers fit as they are
 * (`createIpsetAgent({ logger: pino() })`): `logger.info({ operation: 'apply' }, 'apply converged')`.
 */
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
  /** The reference's `Reconcile()`: soft-deletes unreferenced sets (used when `garbageCollect` is on). */
  reconcile?(): unknown;
  /** Forgets every set (called after a kernel reset, as the reference's `ResetIPSets` does). */
  reset?(): void;
  /** A limit configured on the manager: the default of the agent's `maxConsecutiveFailures`. */
  readonly maxConsecutiveFailures?: number;
  /** Resets the manager's own count (called with `true` from `clearFatal()`). */
  recordApplyResult?(ok: boolean): void;
}

/** Options every driver call gets from the agent. */
export interface AgentDriverOptions {
  maxAttempts?: number;
  /** Aborted by the call's own signal and by `stop()` when its grace period runs out. */
  signal?: AbortSignalLike;
  owner?: string;
}

/**
 * The kernel drivers the agent runs (default: core's `applyIPSets` without the
 * manager's own failure count, `reconcileIPSets` and `resetIPSets`).
 */
export interface AgentDrivers<M extends AgentManager = IPSetManager> {
  apply(manager: M, port: IpsetPort, options: AgentDriverOptions): Promise<ApplyReport>;
  reconcile(desired: DesiredState, port: IpsetPort, options: AgentDriverOptions): Promise<ApplyReport>;
  reset(port: IpsetPort, options: AgentDriverOptions): Promise<ResetReport>;
}

/** The kernel lock the agent holds around each operation (see `acquireKernelLock`). */
export type AgentLockOptions = Omit<KernelLockOptions, 'signal'>;

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
   * Applies and reconciles in a row that may fail before the agent turns fatal with
   * `MAX_CONSECUTIVE_FAILURES` (default: the manager's `maxConsecutiveFailures`, else
   * 100, the reference's). A converged one resets the count; an apply with nothing to do and
   * an operation aborted by its caller or by `stop()` leave it alone.
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
  /** With a reset, also call `manager.reset()` so it forgets every set whatever the kernel outcome, as the reference's `ResetIPSets` does (default true). */
  resetManager?: boolean;
  /**
   * Hold this kernel lock around every apply, reconcile and reset (the whole
   * read–plan–restore cycle), so that other processes writing the same kernel wait.
   * A loop tick holds it once for its apply and its reconcile together.
   * A `LOCK_HELD` after `waitMs` fails the operation (and counts as a failure).
   */
  lock?: AgentLockOptions;
  /**
   * `health().live` turns false when one operation has run (or waited for the lock)
   * longer than this (default {@link DEFAULT_STUCK_AFTER_MS}). Set it to what your
   * timeouts allow: attempts × restore timeout + two read timeouts + lock wait.
   */
  stuckAfterMs?: number;
  /** `health().live` turns false when the started loop has not ticked for this many intervals (default 3). */
  livenessIntervals?: number;
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

/** Options of {@link IpsetAgent.stop}. */
export interface AgentStopOptions {
  /**
   * How long the operation in flight may go on before it is aborted (the port kills
   * ipset and the operation ends with an `ABORTED` report). Default: no limit, wait
   * for it. 0 aborts at once.
   */
  graceMs?: number;
}

/** What {@link IpsetAgent.stop} found and did. */
export interface AgentStopResult {
  /** The operation running (or waiting for the kernel lock) when `stop()` was called. */
  inFlight?: AgentOperation;
  /** True when the grace period ran out and that operation was aborted. */
  aborted: boolean;
  /**
   * How that operation ended: its report — an aborted restore's report has
   * `fatal.code === 'ABORTED'` and lists the sets it left uncertain in `failedSets` —
   * or the error it threw (an abort during a kernel read or the lock wait).
   */
  report?: ApplyReport | ResetReport;
  error?: unknown;
  /** How long `stop()` waited, in milliseconds. */
  waitedMs: number;
}

/** The last finished apply or reconcile, as {@link IpsetAgent.health} shows it. */
export interface AgentOperationSummary {
  operation: AgentOperation;
  outcome: AgentOutcome | 'aborted';
  converged: boolean;
  durationMs: number;
  /** Milliseconds since it finished (agent clock). */
  finishedAgoMs: number;
  linesTotal?: number;
  linesApplied?: number;
  attempts?: number;
  /** Sets that did not reach their desired state (first 10). */
  failedSets: string[];
  /** Sets left in place because something references them (first 10). */
  inUseSets: string[];
  /** Why it failed, when it threw or ended early. */
  error?: { code: string; message: string };
}

/** What `/livez` and `/readyz` need (see {@link IpsetAgent.health}). */
export interface AgentHealth {
  /**
   * Not fatal, no operation stuck past `stuckAfterMs`, and — while the loop is
   * started — a tick within `livenessIntervals` intervals. A failing set never makes
   * the agent not live (restarting cannot fix it); the failure limit does.
   */
  live: boolean;
  /**
   * An apply or reconcile has finished, the last one converged (sets only in use are
   * fine), and the agent is not fatal.
   */
  ready: boolean;
  /** Why `live` or `ready` is false, one sentence each (empty when both are true). */
  problems: string[];
  started: boolean;
  consecutiveFailures: number;
  maxConsecutiveFailures: number;
  fatal?: { code: string; message: string };
  /** The operation running (or waiting for the lock) now. */
  inFlight?: { operation: AgentOperation; runningMs: number };
  lastOperation?: AgentOperationSummary;
}

/** A running agent (see {@link createIpsetAgent}). */
export interface IpsetAgent {
  /** The registry the metrics are on. */
  readonly registry: Registry;
  /** Applies and reconciles in a row that did not converge. */
  readonly consecutiveFailures: number;
  /** Set once `maxConsecutiveFailures` was reached; every later `apply()` and `reconcile()` rejects with it until `clearFatal()`. */
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
  /**
   * Compares the kernel with the manager's whole desired state and repairs drift
   * (serialised with apply). Counts like an apply: converged resets, anything else counts.
   */
  reconcile(options?: AgentCallOptions): Promise<ApplyReport>;
  /**
   * Flushes and destroys every owned set (serialised); referenced ones are reported as
   * leaked. Then the manager forgets its sets (`manager.reset()`, unless `resetManager: false`), whatever the kernel outcome, as the reference does.
   */
  reset(options?: AgentCallOptions): Promise<ResetReport>;
  /** Starts the reconcile loop (needs `reconcileIntervalMs`). */
  start(): void;
  /**
   * Stops the loop, lets the operation in flight finish (aborting it after
   * `graceMs`), rejects queued ones with `ABORTED`, and says what happened. A second
   * call while stopping with `graceMs: 0` aborts at once. Installs no signal handler:
   * the host process decides when to call it.
   */
  stop(options?: AgentStopOptions): Promise<AgentStopResult>;
  /** Resolves when no operation is running or queued. */
  idle(): Promise<void>;
  /** Liveness and readiness (see {@link AgentHealth}). */
  health(): AgentHealth;
  /** Clears the fatal state and the failure count (after an operator fixed the cause). */
  clearFatal(): void;
}

/** The reference's consecutive-failure limit. */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 100;

/**
 * Default of `stuckAfterMs`: five restore attempts at the port's default restore
 * timeout, two reads at the default read timeout, and half a minute of lock wait.
 */
export const DEFAULT_STUCK_AFTER_MS = 5 * DEFAULT_RESTORE_TIMEOUT_MS + 2 * DEFAULT_READ_TIMEOUT_MS + 30_000;

const SILENT: AgentLogger = { debug() {}, info() {}, warn() {}, error() {} };

const SYSTEM_CLOCK: AgentClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** How many set names a log line or a health summary carries. */
const LIST_CUT = 10;

/** One finished operation, for the failure count, the log line and health. */
interface Settled {
  operation: AgentOperation;
  report?: ApplyReport;
  error?: unknown;
  durationMs: number;
}

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

  let failures = 0;
  let fatal: IpsetsError | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let queuedApply: Promise<ApplyReport> | undefined;
  let started = false;
  let timer: unknown;
  let tick: Promise<void> | undefined;
  /** When the loop last showed progress (started, a tick began or ended). */
  let loopBeat = 0;
  let inFlight: { operation: AgentOperation; startedAt: number; done: Promise<{ report?: ApplyReport | ResetReport; error?: unknown }> } | undefined;
  let last: (AgentOperationSummary & { finishedAt: number }) | undefined;
  // Aborted by stop() when its grace period runs out; replaced once the stop is over.
  let halt = new AbortController();
  let stopping: Promise<AgentStopResult> | undefined;
  // Set while a loop tick runs: its apply and reconcile share one hold of the kernel lock.
  let tickLock: { held?: KernelLock } | undefined;

  const enqueue = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };

  /**
   * Runs one operation: refuses it while stopping, links the call's signal and the
   * stop signal, holds the kernel lock around it when configured, and records it as
   * in flight for stop() and health().
   */
  const execute = async <T extends ApplyReport | ResetReport>(
    operation: AgentOperation,
    call: AgentCallOptions | undefined,
    body: (driverOptions: AgentDriverOptions) => Promise<T>,
  ): Promise<T> => {
    if (stopping !== undefined) throw notStarted(operation);
    const controller = new AbortController();
    const unlink = linkSignals(controller, [call?.signal, halt.signal]);
    const driverOptions: AgentDriverOptions = {
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      signal: controller.signal,
    };
    const run = (async () => {
      if (lock === undefined) return body(driverOptions);
      if (tickLock !== undefined) {
        // Inside a loop tick: the tick's one hold, taken by its first operation.
        tickLock.held ??= await acquireKernelLock({ ...lock, signal: controller.signal });
        return body(driverOptions);
      }
      return withKernelLock({ ...lock, signal: controller.signal }, () => body(driverOptions));
    })();
    inFlight = {
      operation,
      startedAt: clock.now(),
      done: run.then(
        (report) => ({ report }),
        (error: unknown) => ({ error }),
      ),
    };
    try {
      return await run;
    } finally {
      unlink();
      inFlight = undefined;
    }
  };

  /** Counts one operation in the metrics and returns its outcome. */
  const observe = (operation: AgentOperation, durationMs: number, report: ApplyReport | undefined, error?: unknown): AgentOutcome => {
    const outcome: AgentOutcome = report === undefined ? 'error' : report.converged ? 'converged' : 'not-converged';
    metrics.duration.observe({ operation, outcome }, durationMs / 1000);
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
    logger.error({ err: error, code: error.code, consecutiveFailures: failures, maxConsecutiveFailures: maxFailures }, error.message);
    stopTimer();
    try {
      options.onFatal?.(error);
    } catch (callbackError) {
      logger.error({ err: callbackError }, 'onFatal callback threw');
    }
    return error;
  };

  /**
   * The one consecutive-failure policy: a converged apply or reconcile resets the
   * count, a failed or thrown one adds one, an apply with nothing to do and an aborted
   * operation leave it alone. Logs the operation's one line, then throws the fatal
   * error when the count reaches the limit.
   */
  const settle = ({ operation, report, error, durationMs }: Settled): void => {
    const outcome = observe(operation, durationMs, report, error);
    if (report !== undefined && operation === 'apply' && report.attempts.length === 0 && report.linesTotal === 0 && report.converged) {
      logger.debug({ operation, durationMs, converged: true, linesTotal: 0, consecutiveFailures: failures }, 'nothing to apply');
      return;
    }
    const aborted = isIpsetsError(error, 'ABORTED') || report?.fatal?.code === 'ABORTED';
    const previous = failures;
    if (!aborted) failures = outcome === 'converged' ? 0 : failures + 1;
    metrics.consecutiveFailures.set(failures);
    const errorInfo =
      error !== undefined
        ? { code: isIpsetsError(error) ? error.code : 'exception', message: error instanceof Error ? error.message : String(error) }
        : report?.fatal !== undefined
          ? { code: report.fatal.code, message: report.fatal.message }
          : undefined;
    last = {
      operation,
      outcome: aborted ? 'aborted' : outcome,
      converged: outcome === 'converged',
      durationMs,
      finishedAt: clock.now(),
      finishedAgoMs: 0,
      ...(report === undefined ? {} : { linesTotal: report.linesTotal, linesApplied: report.linesApplied, attempts: report.attempts.length }),
      failedSets: report?.failedSets.slice(0, LIST_CUT) ?? [],
      inUseSets: report?.inUseSets.slice(0, LIST_CUT) ?? [],
      ...(errorInfo === undefined ? {} : { error: errorInfo }),
    };
    const fields: Record<string, unknown> = {
      operation,
      durationMs,
      converged: outcome === 'converged',
      ...(report === undefined ? { err: error, code: errorInfo?.code } : summary(report)),
      consecutiveFailures: failures,
      ...(outcome === 'converged' && previous > 0 ? { previousFailures: previous } : {}),
    };
    if (aborted) logger.warn(fields, `${operation} aborted`);
    else if (outcome === 'converged') logger.info(fields, `${operation} converged`);
    else if (report !== undefined) logger.warn(fields, `${operation} did not converge`);
    else logger.error(fields, `${operation} failed`);
    if (!aborted && outcome !== 'converged' && failures >= maxFailures) {
      const why = report === undefined ? (errorInfo?.message ?? 'unknown error') : describeFailure(report);
      throw setFatal(
        new IpsetsError(
          'MAX_CONSECUTIVE_FAILURES',
          `${failures} applies and reconciles in a row did not converge (maxConsecutiveFailures ${maxFailures}); last: ${why}`,
          { cause: report ?? error, details: { consecutiveFailures: failures, maxConsecutiveFailures: maxFailures } },
        ),
      );
    }
  };

  const runCounted = async (
    operation: 'apply' | 'reconcile',
    call: AgentCallOptions | undefined,
    driver: (driverOptions: AgentDriverOptions) => Promise<ApplyReport>,
  ): Promise<ApplyReport> => {
    if (fatal !== undefined) throw fatal;
    // Refused before it counts or logs: work queued behind a stop never ran.
    if (stopping !== undefined) throw notStarted(operation);
    const begin = clock.now();
    let report: ApplyReport;
    try {
      report = await execute(operation, call, driver);
    } catch (error) {
      const durationMs = Math.max(0, Math.round(clock.now() - begin));
      if (isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')) {
        observe(operation, durationMs, undefined, error);
        throw setFatal(error);
      }
      settle({ operation, error, durationMs });
      throw error;
    }
    settle({ operation, report, durationMs: Math.max(0, Math.round(clock.now() - begin)) });
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

  const runReconcile = (call: AgentCallOptions | undefined): Promise<ApplyReport> =>
    runCounted('reconcile', call, (o) => drivers.reconcile(manager.desiredState(), port, o));

  const runReset = async (call: AgentCallOptions | undefined): Promise<ResetReport> => {
    const begin = clock.now();
    const owner = options.owner ?? manager.desiredState().owner;
    try {
      const report = await execute('reset', call, (o) => drivers.reset(port, { ...o, owner })).finally(() => {
        // As the reference's ResetIPSets: the manager forgets its sets whatever the kernel
        // outcome; what the kernel kept is reported, and the next reconcile removes it.
        if (options.resetManager !== false) manager.reset?.();
      });
      const durationMs = Math.max(0, Math.round(clock.now() - begin));
      const { leaked } = report;
      metrics.leakedSets.set(leaked.length);
      const outcome: AgentOutcome = report.converged ? 'converged' : 'not-converged';
      for (const session of [report.flush, report.destroy]) {
        for (const attempt of session?.attempts ?? []) {
          if (attempt.error !== undefined) metrics.failures.inc({ kind: attempt.error.kind });
        }
      }
      metrics.duration.observe({ operation: 'reset', outcome }, durationMs / 1000);
      metrics.operations.inc({ operation: 'reset', outcome });
      const counts = {
        operation: 'reset',
        durationMs,
        converged: report.converged,
        owner,
        destroyed: report.destroyed.length,
        leakedCount: leaked.length,
        failedCount: report.failed.length,
      };
      if (!report.converged) logger.warn({ ...counts, failed: report.failed.slice(0, LIST_CUT), problems: report.problems }, 'reset did not converge');
      else if (leaked.length > 0) logger.warn({ ...counts, leaked: leaked.slice(0, LIST_CUT) }, 'reset left referenced sets in the kernel');
      else logger.info(counts, 'reset owned ipsets');
      return report;
    } catch (error) {
      const durationMs = Math.max(0, Math.round(clock.now() - begin));
      metrics.duration.observe({ operation: 'reset', outcome: 'error' }, durationMs / 1000);
      metrics.operations.inc({ operation: 'reset', outcome: 'error' });
      metrics.failures.inc({ kind: isIpsetsError(error) ? error.code : 'exception' });
      logger.error({ operation: 'reset', durationMs, converged: false, err: error, code: isIpsetsError(error) ? error.code : 'exception' }, 'reset failed');
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
      loopBeat = clock.now();
      tick = runTick().finally(() => {
        tick = undefined;
        loopBeat = clock.now();
        schedule();
      });
    }, interval);
  };

  /**
   * One tick: the pending delta, then the drift repair, as one queued job under ONE
   * hold of the kernel lock (released when the tick ends), so that no other writer
   * ever sees or changes the kernel between the two.
   */
  const runTick = async (): Promise<void> => {
    try {
      if (options.garbageCollect === true) manager.reconcile?.();
      await enqueue(async () => {
        tickLock = {};
        try {
          // A plain desired-state holder has no delta: its tick is the reconcile alone.
          if (canApply()) await runApply(undefined);
          if (!started) return;
          await runReconcile(undefined);
        } finally {
          const held = tickLock.held;
          tickLock = undefined;
          await held?.release();
        }
      });
    } catch (error) {
      // The loop never dies of one bad tick (each operation logged its own line); the
      // failure limit stops it through setFatal.
      if (!isIpsetsError(error)) logger.error({ err: error }, 'reconcile tick failed');
    }
  };

  const stop = async (stopOptions: AgentStopOptions = {}): Promise<AgentStopResult> => {
    const { graceMs } = stopOptions;
    if (graceMs !== undefined && !(typeof graceMs === 'number' && graceMs >= 0)) {
      throw new IpsetsError('INVALID_ARGUMENT', `graceMs ${quote(graceMs)} is not allowed; expected 0 or more milliseconds`);
    }
    if (stopping !== undefined) {
      if (graceMs === 0) halt.abort(new IpsetsError('ABORTED', 'the agent was stopped again; the operation in flight was aborted at once'));
      return stopping;
    }
    const begin = clock.now();
    const wasStarted = started;
    stopTimer();
    const current = inFlight;
    stopping = (async () => {
      let aborted = false;
      let outcome: { report?: ApplyReport | ResetReport; error?: unknown } = {};
      if (current !== undefined) {
        const graceTimer =
          graceMs === undefined
            ? undefined
            : clock.setTimeout(() => {
                aborted = true;
                halt.abort(new IpsetsError('ABORTED', `the agent was stopped and the grace period of ${graceMs} ms ran out`, { details: { graceMs } }));
              }, graceMs);
        outcome = await current.done;
        if (graceTimer !== undefined) clock.clearTimeout(graceTimer);
      }
      if (tick !== undefined) await tick;
      await tail;
      const waitedMs = Math.max(0, Math.round(clock.now() - begin));
      const result: AgentStopResult = {
        aborted,
        waitedMs,
        ...(current === undefined ? {} : { inFlight: current.operation }),
        ...(outcome.report === undefined ? {} : { report: outcome.report }),
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
      };
      if (wasStarted || current !== undefined) {
        const fields = {
          operation: 'stop',
          durationMs: waitedMs,
          inFlight: current?.operation ?? null,
          aborted,
          ...(graceMs === undefined ? {} : { graceMs }),
          ...(outcome.report === undefined ? {} : { converged: outcome.report.converged }),
        };
        if (aborted) logger.warn(fields, `agent stopped; the ${current?.operation} in flight was aborted after the grace period`);
        else logger.info(fields, current === undefined ? 'agent stopped' : `agent stopped after the ${current.operation} in flight finished`);
      }
      return result;
    })();
    try {
      return await stopping;
    } finally {
      stopping = undefined;
      halt = new AbortController();
    }
  };

  const health = (): AgentHealth => {
    const now = clock.now();
    const problems: string[] = [];
    let live = true;
    let ready = true;
    if (fatal !== undefined) {
      live = false;
      ready = false;
      problems.push(`the consecutive-failure limit was reached: ${fatal.message}`);
    }
    const running = inFlight === undefined ? undefined : { operation: inFlight.operation, runningMs: Math.max(0, Math.round(now - inFlight.startedAt)) };
    if (running !== undefined && running.runningMs > stuckAfterMs) {
      live = false;
      problems.push(`the ${running.operation} in flight has run for ${running.runningMs} ms, past stuckAfterMs ${stuckAfterMs}`);
    }
    if (started && running === undefined && tick === undefined && interval !== undefined && now - loopBeat > livenessIntervals * interval) {
      live = false;
      problems.push(`the reconcile loop has not ticked for ${Math.round(now - loopBeat)} ms (interval ${interval} ms)`);
    }
    if (last === undefined) {
      ready = false;
      problems.push('no apply or reconcile has finished yet');
    } else if (!last.converged) {
      ready = false;
      const sets = last.failedSets.length > 0 ? `; not converged: ${last.failedSets.join(', ')}` : '';
      problems.push(`the last ${last.operation} did not converge (${last.outcome}${last.error === undefined ? '' : `: ${last.error.message}`})${sets}`);
    }
    const { finishedAt, ...lastSummary } = last ?? { finishedAt: 0 };
    return {
      live,
      ready,
      problems,
      started,
      consecutiveFailures: failures,
      maxConsecutiveFailures: maxFailures,
      ...(fatal === undefined ? {} : { fatal: { code: fatal.code, message: fatal.message } }),
      ...(running === undefined ? {} : { inFlight: running }),
      ...(last === undefined ? {} : { lastOperation: { ...(lastSummary as AgentOperationSummary), finishedAgoMs: Math.max(0, Math.round(now - finishedAt)) } }),
    };
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
    reconcile: (call) => (fatal !== undefined ? Promise.reject(fatal) : enqueue(() => runReconcile(call))),
    reset: (call) => enqueue(() => runReset(call)),
    start() {
      if (interval === undefined) {
        throw new IpsetsError('INVALID_ARGUMENT', 'start() needs reconcileIntervalMs; pass it to createIpsetAgent');
      }
      if (fatal !== undefined) throw fatal;
      if (started) return;
      started = true;
      loopBeat = clock.now();
      logger.info({ reconcileIntervalMs: interval }, 'reconcile loop started');
      schedule();
    },
    stop,
    async idle() {
      await tail;
    },
    health,
    clearFatal() {
      fatal = undefined;
      failures = 0;
      manager.recordApplyResult?.(true);
      metrics.consecutiveFailures.set(0);
    },
  };
}

function notStarted(operation: AgentOperation): IpsetsError {
  return new IpsetsError('ABORTED', `the agent is stopping; the queued ${operation} was not started`, { details: { operation } });
}

/** Aborts `controller` when any of `signals` aborts; returns the unlinking function. */
function linkSignals(controller: AbortController, signals: readonly (AbortSignalLike | undefined)[]): () => void {
  const unlinks: (() => void)[] = [];
  for (const signal of signals) {
    if (signal === undefined) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      continue;
    }
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    unlinks.push(() => signal.removeEventListener('abort', onAbort));
  }
  return () => {
    for (const unlink of unlinks) unlink();
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
    failedSets: report.failedSets.slice(0, LIST_CUT),
    failedSetsCount: report.failedSets.length,
    inUseSets: report.inUseSets.slice(0, LIST_CUT),
    inUseSetsCount: report.inUseSets.length,
    ...(report.fatal === undefined ? {} : { fatal: report.fatal.code, fatalMessage: report.fatal.message }),
  };
}

function describeFailure(report: ApplyReport): string {
  if (report.fatal !== undefined) return `${report.fatal.code}: ${report.fatal.message}`;
  const first = report.skipped.find((s) => s.outcome === 'not-converged');
  if (first !== undefined) return `${report.failedSets.length} set(s) not converged, first: ${first.text} (${first.kind}: ${first.message})`;
  return `${report.failedSets.length} set(s) not converged`;
}

