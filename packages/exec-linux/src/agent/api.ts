/**
 * The agent's public contract: what it needs (manager, port, logger, clock, drivers,
 * lock), the options of `createIpsetAgent`, and what it says back (stop results,
 * health, the running agent). No behaviour lives here.
 */
import type { IPSetManager, IpsetsError } from '@ipsets/core';
import type { AbortSignalLike, ApplyReport, DesiredState, IpsetPort, ResetReport } from '@ipsets/core';
import type { Registry } from 'prom-client';
import type { AgentOperation, AgentOutcome } from './metrics.js';
import type { KernelLockOptions } from '../kernel-lock.js';

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

/** Options of `createIpsetAgent`. */
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

/** A running agent (see `createIpsetAgent`). */
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

