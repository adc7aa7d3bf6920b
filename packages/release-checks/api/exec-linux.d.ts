// ---- dist/index.d.ts ----
/**
 * @ipsets/exec-linux — the Linux port for @ipsets/core and a node agent.
 *
 * @packageDocumentation
 */
import { AbortSignalLike, ApplyReport, DesiredState, IPSetManager, IpsetPort, IpsetsError, ResetReport } from "@ipsets/core";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
/** Options of {@link createLinuxPort}. */
interface LinuxPortOptions {
  /** The `ipset` executable: a name looked up on `PATH` or a path (default `ipset`). */
  ipsetPath?: string;
  /** Run every command inside this network namespace (`ip netns exec NAME ipset …`). */
  netns?: string;
  /** The `ip` executable used for `netns` (default `ip`). */
  ipPath?: string;
  /**
   * Kill an `ipset restore` that runs longer than this (milliseconds) and reject with a
   * `TIMEOUT` {@link IpsetsError}. Default {@link DEFAULT_RESTORE_TIMEOUT_MS} (5 min);
   * `Infinity` turns it off.
   */
  restoreTimeoutMs?: number;
  /**
   * The same for the reads `ipset save`, `list -n` and `list -t`. Default
   * {@link DEFAULT_READ_TIMEOUT_MS} (1 min); `Infinity` turns it off.
   */
  readTimeoutMs?: number;
  /** One timeout for every command: the default of both `restoreTimeoutMs` and `readTimeoutMs`. */
  timeoutMs?: number;
  /**
   * The folder each restore text is written to, completely, before ipset starts (it
   * reads the file as its stdin; the file's name is removed before ipset starts).
   * Made 0700 when missing; refused when it is a link, another user's, or cannot be
   * made private. Default {@link DEFAULT_RESTORE_DIR} for root, else
   * `<tmpdir>/ipsets-restore-<uid>`.
   */
  restoreDir?: string;
  /**
   * The most bytes `ipset save`, `list -n` or `list -t` may print (default
   * {@link DEFAULT_MAX_OUTPUT_BYTES}, 256 MiB); past it the read is stopped and rejects
   * with `KERNEL_READ_FAILED` naming this option.
   */
  maxOutputBytes?: number;
  /** Extra environment variables for the child (merged over `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** After a kill (timeout/abort), send SIGKILL if the child has not exited within this delay (default 2000 ms). */
  forceKillAfterMs?: number;
  /**
   * How error messages name each option when they say which one to set (default: the
   * option's own name, e.g. `or set ipsetPath`). A command line passes its flags
   * (`{ ipsetPath: '--ipset', restoreTimeoutMs: '--timeout' }`), so its users read the
   * flag they can type.
   */
  optionNames?: Readonly<Partial<Record<LinuxPortOptionName, string>>>;
}
/** The options of {@link LinuxPortOptions} that error messages may tell the caller to set. */
type LinuxPortOptionName = 'ipsetPath' | 'ipPath' | 'netns' | 'timeoutMs' | 'restoreTimeoutMs' | 'readTimeoutMs' | 'maxOutputBytes';
/** Where root's restore texts are staged (see {@link LinuxPortOptions.restoreDir}). */
export declare const DEFAULT_RESTORE_DIR = "/run/ipsets/restore";
/**
 * Default limit of what one read prints (256 MiB): about 4 million members at ~60 bytes a
 * save line, and well below the longest string Node can hold (~512 MiB).
 */
export declare const DEFAULT_MAX_OUTPUT_BYTES: number;
/** Default limit of one `ipset restore` (5 minutes): a 1,000,000-line restore takes a few seconds. */
export declare const DEFAULT_RESTORE_TIMEOUT_MS: number;
/** Default limit of one `ipset save` / `list` (1 minute). */
export declare const DEFAULT_READ_TIMEOUT_MS = 60000;
/**
 * Creates an {@link IpsetPort} over the real `ipset` binary.
 *
 * - `restore(text)` writes `text` completely to a private file (see `restoreDir`) and
 *   runs `ipset -exist restore` with that file as its stdin (never argv, so 30 MB texts
 *   are fine): ipset never reads a partial text, even if this process dies meanwhile.
 * - Every child inherits the kernel locks this process holds, so a lock outlives a
 *   writer that dies while its ipset still runs.
 * - A result's `stderr` keeps at most its first 8 KiB and last 2 KiB.
 * - `save()` runs `ipset save`, `listNames()` `ipset list -n`, `listHeaders()` `ipset list -t`.
 * - Non-zero exit codes resolve with the {@link CommandResult}: they are data for the
 *   recovery session. A child killed by a signal resolves with `signal` set and
 *   `exitCode` 128 + the signal number (as a shell reports it).
 * - Rejects with an {@link IpsetsError} only when the command could not run:
 *   `TIMEOUT` (past `restoreTimeoutMs` / `readTimeoutMs`, on by default) / `ABORTED`
 *   (the child is killed), or `IPSET_UNAVAILABLE` (binary
 *   missing or not executable, not permitted, unknown network namespace).
 */
export declare function createLinuxPort(options?: LinuxPortOptions): IpsetPort;
/** What `ipset --version` said. */
interface IpsetVersion {
  /** The executable asked (a name on `PATH` or a path). */
  readonly path: string;
  /** `7.17`, when the output had it. */
  readonly version?: string;
  /** The netlink protocol version (`7`), when the output had it. */
  readonly protocol?: number;
  /** Why the version is unknown or incomplete (not found, killed, a kernel error as non-root), when it is. */
  readonly problem?: string;
}
/** Options of {@link readIpsetVersion}. */
interface ReadIpsetVersionOptions {
  /** The `ipset` executable (default `ipset`). */
  ipsetPath?: string;
  /** Kill it after this long (default 5 s). */
  timeoutMs?: number;
}
/**
 * Runs `ipset --version` and reads its answer. Never rejects: an `ipset` that is
 * missing or fails is described in `problem`. Without root, ipset prints its version
 * and then fails its kernel check (`Operation not permitted`): the version is still
 * read, and the problem says so.
 */
export declare function readIpsetVersion(options?: ReadIpsetVersionOptions): Promise<IpsetVersion>;
/** Directory of the default lock files. */
export declare const DEFAULT_LOCK_DIR = "/run/ipsets";
/** How long {@link acquireKernelLock} waits for another writer by default (30 s). */
export declare const DEFAULT_LOCK_WAIT_MS = 30000;
/** Who holds (or held) a kernel lock, as its holder wrote it into the lock file. */
interface KernelLockHolder {
  /** Process id of the holder, in the holder's own PID namespace. */
  pid: number;
  /** Host name of the holder (a pod name inside a container). */
  hostname: string;
  /** The holder's command line (cut to 200 characters). */
  command: string;
  /** When the holder process started (ISO 8601): with `pid`, tells a reused pid apart. */
  processStartedAt: string;
  /** When it took the lock (ISO 8601). */
  acquiredAt: string;
}
/** Options of {@link acquireKernelLock} and {@link withKernelLock}. */
interface KernelLockOptions {
  /**
   * The lock file (see {@link defaultLockPath}); its directory is created (0700) when
   * missing. A symbolic link, or a file that is not this user's own 0600 regular file,
   * is refused. The default folder {@link DEFAULT_LOCK_DIR} must be this user's and is
   * made 0700.
   */
  path: string;
  /**
   * How long to wait for another holder, in milliseconds (default {@link DEFAULT_LOCK_WAIT_MS});
   * 0 tries once, `Infinity` waits until the lock is free or `signal` aborts.
   */
  waitMs?: number;
  /** Stops waiting: the call rejects with `ABORTED`. */
  signal?: AbortSignalLike;
  /** The command written into the lock file (default: this process's argv). */
  command?: string;
  /** The `flock` executable of util-linux or busybox (default `flock`, looked up on `PATH`). */
  flockPath?: string;
  /**
   * How a missing `flock`'s message says to choose another (default `flockPath`, this
   * option); a command without such a flag passes e.g. `a PATH that has flock`.
   */
  flockPathName?: string;
}
/** A held kernel lock (see {@link acquireKernelLock}). */
interface KernelLock {
  /** The lock file. */
  readonly path: string;
  /** What this process wrote into the lock file. */
  readonly holder: KernelLockHolder;
  /** How long the acquisition waited for another holder, in milliseconds. */
  readonly waitedMs: number;
  /** Empties the lock file and releases the lock. Idempotent. */
  release(): Promise<void>;
}
/**
 * The default lock file of a network namespace: `/run/ipsets/<netns>.lock`, or
 * `/run/ipsets/host.lock` for the host's own namespace.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a namespace name that is not a file name.
 */
export declare function defaultLockPath(netns?: string): string;
/**
 * Takes the exclusive kernel lock in `options.path`, waiting up to `waitMs` for
 * another holder (polling with backoff; the event loop is never blocked). Locks of two
 * acquisitions exclude each other also inside one process. Not reentrant: taking a
 * lock this process already holds waits for itself.
 *
 * @throws IpsetsError `LOCK_HELD` when another holder kept it for `waitMs`; the
 *   message names the holder's pid, host and command (`details.holder`).
 * @throws IpsetsError `ABORTED` when `signal` aborted the wait.
 * @throws IpsetsError `INVALID_ARGUMENT` for a bad path or `waitMs`;
 *   `IPSET_UNAVAILABLE` (`details.reason: 'lock-unavailable'`) when the lock file
 *   cannot be opened or `flock` cannot be run.
 */
export declare function acquireKernelLock(options: KernelLockOptions): Promise<KernelLock>;
/**
 * Runs `fn` while holding the kernel lock (see {@link acquireKernelLock}); releases it
 * when `fn` settles, also when it throws.
 */
export declare function withKernelLock<T>(options: KernelLockOptions, fn: (lock: KernelLock) => Promise<T> | T): Promise<T>;
/**
 * Reads who holds (or last held) the lock in `path`, as the holder wrote it;
 * `undefined` when the file is missing, empty or unreadable. It does not test whether
 * the lock is held: only {@link acquireKernelLock} can tell.
 */
export declare function readKernelLockHolder(path: string): Promise<KernelLockHolder | undefined>;
/** The operations the agent runs against the kernel (a metrics label). */
type AgentOperation = 'apply' | 'reconcile' | 'reset';
/** How an operation ended (a metrics label). */
type AgentOutcome = 'converged' | 'not-converged' | 'error';
/** The metric objects of one agent. */
interface AgentMetrics {
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
export declare const DEFAULT_METRIC_PREFIX = "ipsets_";
/** Creates and registers the agent's metrics on `registry` (a fresh private one when omitted). */
export declare function createAgentMetrics(registry?: Registry, prefix?: string): AgentMetrics;
/**
 * A logger the agent writes to; pino's loggers fit as they are
 * (`createIpsetAgent({ logger: pino() })`): `logger.info({ operation: 'apply' }, 'apply converged')`.
 */
interface AgentLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}
/** Time source and timers of the agent; injectable so tests can drive the reconcile loop. */
interface AgentClock {
  /** Milliseconds from an arbitrary origin (monotonic). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
/** What the agent needs of a manager (an `IPSetManager` fits). */
interface AgentManager {
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
interface AgentDriverOptions {
  maxAttempts?: number;
  /** Aborted by the call's own signal and by `stop()` when its grace period runs out. */
  signal?: AbortSignalLike;
  owner?: string;
}
/**
 * The kernel drivers the agent runs (default: core's `applyIPSets` without the
 * manager's own failure count, `reconcileIPSets` and `resetIPSets`).
 */
interface AgentDrivers<M extends AgentManager = IPSetManager> {
  apply(manager: M, port: IpsetPort, options: AgentDriverOptions): Promise<ApplyReport>;
  reconcile(desired: DesiredState, port: IpsetPort, options: AgentDriverOptions): Promise<ApplyReport>;
  reset(port: IpsetPort, options: AgentDriverOptions): Promise<ResetReport>;
}
/** The kernel lock the agent holds around each operation (see `acquireKernelLock`). */
type AgentLockOptions = Omit<KernelLockOptions, 'signal'>;
/** Options of `createIpsetAgent`. */
interface IpsetAgentOptions<M extends AgentManager = IPSetManager> {
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
interface AgentCallOptions {
  /** Aborts the operation; a running `ipset` is killed. Calls with a signal are never merged with others. */
  signal?: AbortSignalLike;
}
/** Options of {@link IpsetAgent.stop}. */
interface AgentStopOptions {
  /**
   * How long the operation in flight may go on before it is aborted (the port kills
   * ipset and the operation ends with an `ABORTED` report). Default: no limit, wait
   * for it. 0 aborts at once.
   */
  graceMs?: number;
}
/** What {@link IpsetAgent.stop} found and did. */
interface AgentStopResult {
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
interface AgentOperationSummary {
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
  error?: {
    code: string;
    message: string;
  };
}
/** What `/livez` and `/readyz` need (see {@link IpsetAgent.health}). */
interface AgentHealth {
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
  fatal?: {
    code: string;
    message: string;
  };
  /** The operation running (or waiting for the lock) now. */
  inFlight?: {
    operation: AgentOperation;
    runningMs: number;
  };
  lastOperation?: AgentOperationSummary;
}
/** A running agent (see `createIpsetAgent`). */
interface IpsetAgent {
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
export declare const DEFAULT_MAX_CONSECUTIVE_FAILURES = 100;
/**
 * Default of `stuckAfterMs`: five restore attempts at the port's default restore
 * timeout, two reads at the default read timeout, and half a minute of lock wait.
 */
export declare const DEFAULT_STUCK_AFTER_MS: number;
/**
 * Creates an agent over `manager` and `port` (see {@link IpsetAgent}).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a bad limit, interval or lock path.
 */
export declare function createIpsetAgent<M extends AgentManager = IPSetManager>(options: IpsetAgentOptions<M>): IpsetAgent;
export type { AgentCallOptions, AgentClock, AgentDriverOptions, AgentDrivers, AgentHealth, AgentLockOptions, AgentLogger, AgentManager, AgentMetrics, AgentOperation, AgentOperationSummary, AgentOutcome, AgentStopOptions, AgentStopResult, IpsetAgent, IpsetAgentOptions, IpsetVersion, KernelLock, KernelLockHolder, KernelLockOptions, LinuxPortOptionName, LinuxPortOptions, ReadIpsetVersionOptions };

// ---- dist/testing.d.ts ----
/**
 * @ipsets/exec-linux/testing — helpers for tests that touch the real kernel: throwaway
 * network namespaces and the gate that decides whether such tests run, skip (with a
 * one-line reason) or fail (`IPSETS_KERNEL_TESTS=require`). They need root, so they
 * live behind this subpath rather than in the package's main entry.
 *
 * @packageDocumentation
 */
import { CommandResult } from "@ipsets/core";
/** Whether real-kernel tests can run here, and if not, why (one line). */
interface KernelTestSupport {
  available: boolean;
  /** One-line explanation when `available` is false. */
  reason?: string;
}
/** A network namespace made for one test (or one batch of tests). */
interface TestNamespace {
  /** The namespace name as `ip netns list` shows it. */
  readonly name: string;
  /**
   * Runs `cmd` (argv, no shell) inside the namespace, with `input` on stdin.
   * Non-zero exit codes resolve: they are data.
   */
  run(cmd: readonly string[], input?: string): Promise<CommandResult>;
  /**
   * Flushes iptables rules made inside the namespace, deletes it, and removes the
   * kernel lock file writers made for it (`/run/ipsets/<name>.lock`). Idempotent.
   */
  dispose(): Promise<void>;
}
/** The outcome of {@link kernelTestGate}. */
interface KernelTestGate {
  /** True when kernel-backed tests should run. */
  run: boolean;
  /** One-line reason when they are skipped. */
  reason?: string;
}
/** Options of {@link kernelTestGate}. */
interface KernelTestGateOptions {
  /** Environment to read `IPSETS_KERNEL_TESTS` from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The support probe (default {@link kernelTestSupport}); injectable for tests. */
  probe?: () => Promise<KernelTestSupport>;
}
/** The environment variable that turns a skipped kernel test into a failure (`require`) or forces a skip (`skip`). */
export declare const KERNEL_TESTS_ENV = "IPSETS_KERNEL_TESTS";
/**
 * Probes (once per process) whether real-kernel tests can run: Linux, root, `ipset`
 * and `ip` on `PATH`, and a probe namespace can be created, used (`ipset list -n`
 * inside it) and deleted.
 */
export declare function kernelTestSupport(): Promise<KernelTestSupport>;
/**
 * Decides whether kernel-backed tests run. Returns `{ run: true }` when
 * {@link kernelTestSupport} says the kernel is usable, `{ run: false, reason }` otherwise.
 * With `IPSETS_KERNEL_TESTS=require` an unusable kernel throws an `IPSET_UNAVAILABLE`
 * {@link IpsetsError} carrying the reason (so the test fails); `IPSETS_KERNEL_TESTS=skip`
 * skips without probing.
 */
export declare function kernelTestGate(options?: KernelTestGateOptions): Promise<KernelTestGate>;
/**
 * Creates a uniquely named network namespace (`ipsets-<prefix>-<pid>-<counter>-<random>`).
 * Call `dispose()` when done; namespaces still alive when the process exits are deleted
 * by an exit hook as a last resort.
 */
export declare function createTestNamespace(prefix?: string): Promise<TestNamespace>;
export type { KernelTestGate, KernelTestGateOptions, KernelTestSupport, TestNamespace };
