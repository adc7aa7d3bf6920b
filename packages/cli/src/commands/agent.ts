/**
 * `ipsets agent FILE`: keeps the kernel equal to the file. Applies on start, when the
 * file changes (however Kubernetes or an editor changes it, see `agent/desired-source`),
 * and on every interval tick (which also re-reads the file). Applies never overlap.
 * A file that turns bad is reported and ignored: the last good state stays in force.
 * Logs are JSON lines (text on a terminal); `/metrics`, `/livez` and `/readyz` are
 * served on `--metrics-bind-address`. SIGTERM/SIGINT stop it cleanly (exit 0) after
 * the apply in flight, or after aborting it once `--grace` ran out; a second signal
 * forces the exit. At `--max-failures` failing applies in a row it exits 5.
 */
import { stat } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Registry } from 'prom-client';
import { IpsetsError, PreparedDesiredState, isIpsetsError, reconcileIPSets } from '@ipsets/core';
import type { ApplyReport, DesiredState, IpsetPort } from '@ipsets/core';
import { createIpsetAgent, readIpsetVersion } from '@ipsets/exec-linux';
import { EXIT } from '../cli-io.js';
import { cliVersion } from '../package-version.js';
import type { CliIo } from '../cli-io.js';
import { desiredStateOf, parseDesiredText } from '../desired/file.js';
import type { DesiredFile } from '../desired/file.js';
import {
  DEFAULT_GRACE_MS,
  DEFAULT_LOCK_WAIT_MS,
  DEFAULT_MAX_FAILURES,
  DEFAULT_METRICS_BIND_ADDRESS,
  DEFAULT_READ_TIMEOUT_MS,
  DEFAULT_RESTORE_TIMEOUT_MS,
} from '../defaults.js';
import { CLI_OPTION_NAMES, checkKernelOptions, openKernel } from '../kernel/index.js';
import type { KernelOptions } from '../kernel/index.js';
import { parseListenAddress } from '../listen-address.js';
import { createLogger } from '../logging.js';
import type { LogFormat, LogLevel } from '../logging.js';
import { lockPathFor } from '../kernel-lock.js';
import { listenForStop } from '../signals.js';
import { wrapPort } from '../port-wrap.js';
import { DesiredSource } from '../agent/desired-source.js';
import type { DesiredProblemKind } from '../agent/desired-source.js';
import { allowed, guardDestroyBudget } from '../destroy-budget.js';
import { prefetchReads } from '../kernel/prefetch.js';
import { checkKernelAfterEarlyEnd, endedEarlyBy, formatKernelCheck } from '../kernel/after-abort.js';
import { labelsOf } from '../output/labels.js';
import { AgentProbes } from '../agent/health.js';
import { closeServer, serveAgentHttp } from '../agent/http-server.js';
import { addProcessMetrics, createFileAgentMetrics } from '../agent/metrics.js';

export type { BuildInfo, FileAgentMetrics } from '../agent/metrics.js';

/** Options of {@link agentCommand}. */
export interface AgentCommandOptions extends KernelOptions {
  /** Reconcile (and re-read the file) this often (ms). */
  intervalMs: number;
  /** Wait this long (ms) after a change of the file before applying. */
  debounceMs: number;
  /** `HOST:PORT` for `/metrics`, `/livez`, `/readyz` (default {@link DEFAULT_METRICS_BIND_ADDRESS}). */
  metricsBindAddress?: string;
  /** Serve nothing. */
  noMetrics?: boolean;
  /** The address came from the deprecated `--metrics` flag (a warning is logged). */
  deprecatedMetricsFlag?: boolean;
  /** After a stop signal, let the apply in flight run this long (ms) before aborting it. */
  graceMs?: number;
  /** How long each apply waits for another writer of the kernel (ms; default 30 s). */
  waitMs?: number;
  /** The kernel lock file (default: see `lockPathFor`). */
  lockFile?: string;
  /** Failing applies in a row before exit 5 (default {@link DEFAULT_MAX_FAILURES}). */
  maxFailures?: number;
  /** Apply once and return (0 converged, 3 only in-use leftovers, 1 not). */
  once?: boolean;
  /** Apply a FILE with no sets even when that destroys owned sets (refused otherwise). */
  allowEmpty?: boolean;
  /** Apply even when more than the destroy budget of owned sets would go (`--allow-destroy`; see `destroy-budget`). */
  allowDestroy?: boolean;
  /** The owner prefix when FILE names none (`--owner`; default `ipsets-`); a FILE naming another is invalid. */
  owner?: string;
  logFormat?: LogFormat;
  logLevel?: LogLevel;
  /** Resolves when the agent should stop (default: SIGINT or SIGTERM). */
  stopSignal?: Promise<unknown>;
  /** Watch the file's folder (default true); tests turn it off to play a missed event. */
  watch?: boolean;
}

/** The library agent's lines at `warn` and above (its info lines repeat the command's), or all with `debug`. */
function libraryLevel(level: LogLevel): LogLevel {
  if (level === 'debug') return 'debug';
  return level === 'info' ? 'warn' : level;
}

/** `ipsets_build_info`'s `ipset_version`: the ipset found (`7.17`), `fake`, or `unknown`. */
async function ipsetVersionLabel(options: KernelOptions): Promise<string> {
  if (options.kernel === 'fake') return 'fake';
  const found = await readIpsetVersion(options.ipset === undefined ? {} : { ipsetPath: options.ipset });
  return found.version ?? 'unknown';
}

/** True when `path` is a folder (of desired-state parts); false for anything else, missing included. */
async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

/** The exit code of one apply: 0 converged, 3 converged except in-use leftovers, 1 not converged. */
function exitOfReport(report: ApplyReport): number {
  if (!report.converged) return EXIT.failed;
  return report.inUseSets.length > 0 ? EXIT.inUse : EXIT.ok;
}

/** Runs `ipsets agent`; resolves with the exit code when stopped. */
export async function agentCommand(file: string, options: AgentCommandOptions, io: CliIo): Promise<number> {
  if (file === '-') {
    throw new IpsetsError('INVALID_ARGUMENT', 'the agent needs a FILE it can re-read; "-" (stdin) works for plan, diff and apply');
  }
  const path = resolve(io.cwd, file);
  const log = createLogger({
    stream: io.stderr,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
    ...(options.logLevel === undefined ? {} : { level: options.logLevel }),
  });
  if (options.deprecatedMetricsFlag === true) log.warn({ flag: '--metrics' }, '--metrics is deprecated; use --metrics-bind-address');
  // Bad input at start is refused before anything runs: no kernel touched, no lock taken, exit 2.
  const serve = options.once !== true && options.noMetrics !== true;
  const address = serve ? parseListenAddress(options.metricsBindAddress ?? DEFAULT_METRICS_BIND_ADDRESS) : undefined;
  await checkKernelOptions(options);
  const lockFile = await lockPathFor(options, io.cwd);
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  // Listeners first: a SIGTERM while a big file is still being read ends the agent cleanly too.
  let stopping = false;
  const stopper =
    options.stopSignal === undefined
      ? listenForStop({
          onStop: (signal) => {
            stopping = true;
            log.info({ signal, graceMs }, 'stop requested; letting the apply in flight finish');
          },
          onForce: (signal) => log.warn({ signal }, 'second signal: exiting now, the apply in flight is cut off'),
        })
      : undefined;
  try {
    return await runAgent();
  } finally {
    stopper?.dispose();
  }

  async function runAgent(): Promise<number> {
    const registry = new Registry();
    const metrics = createFileAgentMetrics(registry);
    addProcessMetrics(registry, { version: cliVersion(), ipsetVersion: await ipsetVersionLabel(options) });
    let trigger: ((why: string) => void) | undefined;
    let probes: AgentProbes | undefined;
    const ownerOption = options.owner === undefined ? {} : { owner: options.owner, ownerSource: '--owner' };
    // A folder is a desired state made of parts (a projected volume of several ConfigMaps).
    const folder = await isFolder(path);
    const sourceOptions = {
      path,
      debounceMs: options.debounceMs,
      onChange: () => trigger?.('file changed'),
      onProblem: (kind: DesiredProblemKind, message: string, error: unknown) => {
        metrics.fileError();
        metrics.fileValid(false);
        probes?.setFileProblem(message);
        const what = folder
          ? kind === 'missing'
            ? 'the desired folder has no usable part'
            : 'a desired-state part is invalid or conflicts with another part'
          : kind === 'missing'
            ? 'the desired file is missing'
            : kind === 'invalid'
              ? 'the desired file is invalid'
              : 'the desired file cannot be read';
        log.warn({ file: path, problem: kind, err: error }, `${what}; keeping the last good state`);
      },
      onRecovered: () => {
        metrics.fileValid(true);
        probes?.setFileProblem(undefined);
        log.info({ file: path }, 'the desired file is valid again');
      },
      ...(options.watch === false ? { watch: false } : {}),
    };
    // Every tick reconciles the state loaded last: it is checked once, when it is loaded
    // (a state core refuses is a bad file, and the last good state stays).
    const stateOf = (file: DesiredFile): DesiredState => new PreparedDesiredState(desiredStateOf(file));
    const source = folder
      ? await DesiredSource.openFolder(sourceOptions, {
          parts: ownerOption,
          toState: stateOf,
          onPartRead: (part) => log.info({ part }, 'desired part changed; re-read it'),
        })
      : await DesiredSource.open({ ...sourceOptions, load: (text) => stateOf(parseDesiredText(text, { source: path, ...ownerOption })) });
    await openKernel(options, io.cwd);

    const holder = { desiredState: (): DesiredState => source.desired };
    // The fake kernel is reloaded per apply: the port follows whichever kernel is open.
    let currentPort: IpsetPort | undefined;
    const kernelPort = wrapPort(() => {
      if (currentPort === undefined) throw new IpsetsError('IPSET_UNAVAILABLE', 'no kernel is open');
      return currentPort;
    });
    const restoreMs = options.timeoutMs ?? DEFAULT_RESTORE_TIMEOUT_MS;
    const readMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    let onFatal: (() => void) | undefined;
    const fatalReached = new Promise<'fatal'>((ok) => (onFatal = () => ok('fatal')));
    // When the tick running now started its apply (the tick's file re-check excluded).
    let tickStarted = 0;
    const agent = createIpsetAgent({
      manager: holder,
      port: kernelPort,
      registry,
      // The library's loop: at start, on a change of the file (trigger) and every interval
      // tick, which first re-reads the file. Ticks never overlap.
      reconcileIntervalMs: options.intervalMs,
      beforeTick: async (why) => {
        if (why === 'interval') await source.check();
        tickStarted = io.now();
      },
      onTick: (tick) => void settle(tick.why, tickStarted, tick.report, tick.error),
      maxConsecutiveFailures: options.maxFailures ?? DEFAULT_MAX_FAILURES,
      // The whole read–plan–restore cycle of every apply holds the kernel lock.
      lock: { path: lockFile, flockPathName: CLI_OPTION_NAMES.flockPath, ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }) },
      // Five restore attempts, two reads, two more after an apply cut short (the kernel
      // check), and the lock wait: anything longer is stuck.
      stuckAfterMs: 5 * restoreMs + 4 * readMs + (options.waitMs ?? DEFAULT_LOCK_WAIT_MS) + 30_000,
      drivers: {
        // Inside the agent's lock: a fake kernel's state file is re-read and written back
        // there, so that another writer's change is never lost.
        reconcile: async (desired, port, driverOptions) => {
          const kernel = await openKernel(options, io.cwd);
          currentPort = kernel.port;
          // One save and one list -t per tick, started together: the destroy budget and the
          // reconcile share the headers (inside the lock, nothing changes them in between).
          const reads = prefetchReads(port, driverOptions.signal === undefined ? undefined : { signal: driverOptions.signal });
          // A truncated or badly templated FILE must not wipe the node: refused, and the kernel keeps what it has.
          await guardDestroyBudget(desired, reads, { source: path, ...allowed(options) });
          const report = await reconcileIPSets(desired, reads, driverOptions);
          // An apply cut short (the stop's grace, --timeout) saw none of the killed restore's
          // lines: the kernel, read again, says which sets reached their desired state.
          const endedBy = endedEarlyBy(report);
          if (endedBy !== undefined) {
            const check = await checkKernelAfterEarlyEnd(desired, kernel.port, report, endedBy);
            log.warn(
              {
                endedBy,
                countedNotConverged: check.counted,
                convergedAfterAll: check.converged.length,
                stillDiffer: check.notConverged.slice(0, 20),
                stillDifferCount: check.notConverged.length,
                uncertain: check.uncertain.slice(0, 20),
                ...(check.readError === undefined ? {} : { readError: check.readError }),
              },
              formatKernelCheck(check, labelsOf(desired)).trim(),
            );
          }
          await kernel.persist();
          return report;
        },
      },
      // The library's own lines repeat the apply line below; its warnings and errors stay.
      logger: log.child({ component: 'agent' }, { level: libraryLevel(options.logLevel ?? 'info') }),
    });
    probes = new AgentProbes({ health: () => agent.health() });
    if (source.fileProblem !== undefined) probes.setFileProblem(source.fileProblem);
    // Why the last apply's desired state was refused (an empty file that would destroy
    // owned sets): shown like an invalid file until an apply is accepted again.
    let refusal: string | undefined;
    /** Logs one apply (a loop tick's or `--once`'s) and counts it in the metrics; returns its exit code. */
    function settle(why: string, started: number, report: ApplyReport | undefined, error?: unknown): number {
      try {
        if (report === undefined) throw error;
        const durationMs = Math.round(io.now() - started);
        if (refusal !== undefined) {
          refusal = undefined;
          if (source.fileProblem === undefined) {
            probes?.setFileProblem(undefined);
            metrics.fileValid(true);
          }
        }
        metrics.observe(report);
        const fields = {
          trigger: why,
          converged: report.converged,
          durationMs,
          lines: report.linesTotal,
          linesApplied: report.linesApplied,
          attempts: report.attempts.length,
          failedSets: report.failedSets.slice(0, 20),
          inUseSets: report.inUseSets.slice(0, 20),
          consecutiveFailures: agent.consecutiveFailures,
          ...(report.fatal === undefined ? {} : { fatal: report.fatal.code, fatalMessage: report.fatal.message }),
        };
        if (report.converged) log.info(fields, 'apply converged');
        else log.warn(fields, 'apply did not converge');
        if (agent.fatalError !== undefined) throw agent.fatalError;
        return exitOfReport(report);
      } catch (error) {
        if (isIpsetsError(error, 'INVALID_INPUT')) {
          // Refused before anything reached the kernel (not counted toward --max-failures):
          // the kernel keeps the last good state, as with an invalid file.
          if (refusal !== error.message) {
            refusal = error.message;
            metrics.fileError();
            metrics.fileValid(false);
            probes?.setFileProblem(error.message);
            log.warn({ trigger: why, file: path, err: error }, 'the desired state was refused; keeping the last good state');
          }
          return EXIT.badInput;
        }
        metrics.kernelError();
        if (isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')) {
          log.error(
            { trigger: why, err: error, consecutiveFailures: agent.consecutiveFailures, exitCode: EXIT.tooManyFailures },
            'the consecutive-failure limit was reached; exiting so that the supervisor restarts the agent',
          );
          onFatal?.();
          return EXIT.tooManyFailures;
        }
        if (stopping && isIpsetsError(error, 'ABORTED')) {
          log.warn({ trigger: why, err: error }, 'apply aborted by the stop');
          return EXIT.failed;
        }
        const lockHeld = isIpsetsError(error) && (error.code as string) === 'LOCK_HELD';
        log.error({ trigger: why, err: error, durationMs: Math.round(io.now() - started), consecutiveFailures: agent.consecutiveFailures }, 'apply failed');
        return lockHeld ? EXIT.lockHeld : EXIT.failed;
      }
    }
    const applyOnce = async (why: string): Promise<number> => {
      const started = io.now();
      try {
        return settle(why, started, await agent.reconcile());
      } catch (error) {
        return settle(why, started, undefined, error);
      }
    };

    const stopAgent = async (why: string): Promise<void> => {
      const result = await agent.stop({ graceMs });
      if (result.aborted) {
        const report = result.report as ApplyReport | undefined;
        log.warn(
          { graceMs, inFlight: result.inFlight, waitedMs: Math.round(result.waitedMs), failedSets: report?.failedSets?.slice(0, 20) ?? [] },
          'the grace period ran out; the apply in flight was aborted (the next start repairs it)',
        );
      } else if (result.inFlight !== undefined) {
        log.info({ inFlight: result.inFlight, waitedMs: Math.round(result.waitedMs), why }, 'the apply in flight finished');
      }
    };

    if (stopper?.signal !== undefined) {
      log.info({ signal: stopper.signal, exitCode: EXIT.ok }, 'stopped before the first apply; nothing was changed');
      return EXIT.ok;
    }
    if (options.once === true) {
      const once = applyOnce('once');
      const first = await Promise.race([once.then(() => 'done' as const), stopper?.stopped ?? new Promise<never>(() => {})]);
      if (first !== 'done') await stopAgent(first);
      const code = await once;
      if (stopper?.signal !== undefined) log.info({ signal: stopper.signal, exitCode: code }, 'stopped');
      return code;
    }

    let server: Server | undefined;
    if (address !== undefined) {
      server = await serveAgentHttp(address, registry, probes);
      const bound = server.address() as AddressInfo;
      const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
      log.info({ address: `${host}:${bound.port}`, url: `http://${host}:${bound.port}/metrics` }, 'serving /metrics, /livez and /readyz');
    }
    await source.start();
    const parts = source.partFiles;
    log.info({ file: path, ...(parts === undefined ? {} : { parts: parts.length }), lockFile, intervalMs: options.intervalMs, debounceMs: options.debounceMs }, 'agent started');
    agent.start();
    trigger = (why) => agent.trigger(why);
    agent.trigger('start');

    const why = await Promise.race([options.stopSignal ?? stopper!.stopped, fatalReached]);
    stopping = true;
    source.close();
    await stopAgent(String(why));
    if (server !== undefined) await closeServer(server);
    if (why === 'fatal') {
      log.error({ exitCode: EXIT.tooManyFailures, consecutiveFailures: agent.consecutiveFailures }, 'stopped');
      return EXIT.tooManyFailures;
    }
    log.info({ signal: String(why), exitCode: EXIT.ok }, 'stopped');
    return EXIT.ok;
  }
}
