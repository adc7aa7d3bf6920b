/**
 * `ipsets agent FILE`: keeps the kernel equal to the file. Applies on start, when
 * the file changes (fs.watch on its folder, so editors that replace the file are
 * seen, then a debounce), and on an interval (drift repair). Applies never overlap:
 * a trigger during an apply queues exactly one more. A file that turns bad is
 * reported and ignored: the last good state stays in force. Metrics are served on a
 * loopback address only. SIGINT/SIGTERM stop it after the apply in flight.
 */
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { FSWatcher } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, resolve } from 'node:path';
import { Counter, Gauge, Registry } from 'prom-client';
import { IpsetsError, isIpsetsError } from '@ipsets/core';
import type { ApplyReport, CommandResult, DesiredState, IpsetPort, PortCallOptions } from '@ipsets/core';
import { createIpsetAgent } from '@ipsets/exec-linux';
import { EXIT } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { desiredStateOf, loadDesiredFile } from '../desired-file.js';
import { formatApplyReport, formatDuration, labelsOf } from '../format.js';
import { parseListenAddress } from '../listen-address.js';
import type { ListenAddress } from '../listen-address.js';
import { openKernel } from '../kernel.js';
import type { KernelOptions } from '../kernel.js';

/** Options of {@link agentCommand}. */
export interface AgentCommandOptions extends KernelOptions {
  /** Reconcile this often (ms) even when nothing changed. */
  intervalMs: number;
  /** Wait this long (ms) after a change of the file before applying. */
  debounceMs: number;
  /** `HOST:PORT` on loopback for Prometheus metrics. */
  metrics?: string;
  /** Apply once and return (exit 0 converged, 1 not). */
  once?: boolean;
  /** Resolves when the agent should stop (default: SIGINT or SIGTERM). */
  stopSignal?: Promise<unknown>;
}

/** Metrics the command adds to the agent's registry (the agent counts operations, durations, failures). */
export interface FileAgentMetrics {
  observe(report: ApplyReport): void;
  fileError(): void;
  kernelError(): void;
}

/** Adds the command's own metrics to `registry`: converged, last apply time, file errors. */
export function createFileAgentMetrics(registry: Registry): FileAgentMetrics {
  const converged = new Gauge({ name: 'ipsets_converged', help: '1 when the last apply converged, else 0.', registers: [registry] });
  const notConverged = new Gauge({
    name: 'ipsets_sets_not_converged',
    help: 'Sets that did not reach their desired state in the last apply.',
    registers: [registry],
  });
  const last = new Gauge({ name: 'ipsets_last_apply_timestamp_seconds', help: 'When the last apply ended (unix seconds).', registers: [registry] });
  const fileErrors = new Counter({
    name: 'ipsets_file_errors_total',
    help: 'Times the desired-state file was unreadable or invalid (the last good state stayed in force).',
    registers: [registry],
  });
  return {
    observe(report) {
      converged.set(report.converged ? 1 : 0);
      notConverged.set(report.failedSets.length);
      last.set(Date.now() / 1000);
    },
    fileError() {
      fileErrors.inc();
    },
    kernelError() {
      converged.set(0);
      last.set(Date.now() / 1000);
    },
  };
}

/** Serves `/metrics` (Prometheus text) and `/healthz` on a loopback address. */
export async function serveMetrics(address: ListenAddress, registry: Registry, healthy: () => boolean): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (req.url === '/metrics') {
      registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
    } else if (req.url === '/healthz') {
      const ok = healthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'not converged\n');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(address.port, address.host, () => {
      server.off('error', fail);
      ok();
    });
  });
  return server;
}

/** A port that forwards to whichever port is current (the fake kernel is reloaded per apply). */
class SwitchablePort implements IpsetPort {
  current: IpsetPort | undefined;
  private get port(): IpsetPort {
    if (this.current === undefined) throw new IpsetsError('IPSET_UNAVAILABLE', 'no kernel is open');
    return this.current;
  }
  restore(text: string, o?: PortCallOptions): Promise<CommandResult> {
    return this.port.restore(text, o);
  }
  save(o?: PortCallOptions): Promise<CommandResult> {
    return this.port.save(o);
  }
  listNames(o?: PortCallOptions): Promise<CommandResult> {
    return this.port.listNames(o);
  }
  listHeaders(o?: PortCallOptions): Promise<CommandResult> {
    return this.port.listHeaders(o);
  }
}

function defaultStopSignal(): Promise<string> {
  return new Promise((ok) => {
    const stop = (signal: string) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      ok(signal);
    };
    const onInt = stop('SIGINT');
    const onTerm = stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}

/** Runs `ipsets agent`; resolves with the exit code when stopped. */
export async function agentCommand(file: string, options: AgentCommandOptions, io: CliIo): Promise<number> {
  const path = resolve(io.cwd, file);
  const log = (text: string) => io.stderr.write(`${new Date().toISOString()} ipsets agent: ${text}\n`);
  // Bad input at start is refused before anything runs: no kernel touched, exit 2.
  const address = options.metrics === undefined ? undefined : parseListenAddress(options.metrics);
  let lastText: string | undefined = await readFile(path, 'utf8').catch(() => undefined);
  let desired = desiredStateOf(await loadDesiredFile(path));
  await openKernel(options, io.cwd);

  const registry = new Registry();
  const metrics = createFileAgentMetrics(registry);
  // The agent serialises operations and counts durations, attempts and failures by kind;
  // its "manager" is the file's latest good desired state.
  const holder = { desiredState: (): DesiredState => desired };
  const kernelPort = new SwitchablePort();
  const agent = createIpsetAgent({ manager: holder, port: kernelPort, registry });
  // No logger: every apply's outcome is logged below, from its report.
  let lastConverged = false;

  const applyOnce = async (why: string): Promise<boolean> => {
    const started = io.now();
    try {
      // Reopened every time: a fake kernel's state file may have been changed by another command.
      const kernel = await openKernel(options, io.cwd);
      kernelPort.current = kernel.port;
      const report = await agent.reconcile();
      await kernel.persist();
      const ms = io.now() - started;
      metrics.observe(report);
      lastConverged = report.converged;
      const changed = report.linesTotal === 0 ? 'nothing to do' : `${report.linesApplied}/${report.linesTotal} lines`;
      log(`apply (${why}): ${report.converged ? 'converged' : 'NOT converged'}, ${changed}, ${formatDuration(ms)}`);
      if (!report.converged || report.skipped.length > 0) {
        io.stderr.write(formatApplyReport(report, { labels: labelsOf(desired), durationMs: ms }));
      }
      return report.converged;
    } catch (error) {
      metrics.kernelError();
      lastConverged = false;
      log(`apply (${why}) failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  };

  if (options.once === true) return (await applyOnce('once')) ? EXIT.ok : EXIT.failed;

  // One apply at a time; triggers during an apply collapse into one follow-up.
  let running: Promise<void> | undefined;
  let pending: string | undefined;
  let stopped = false;
  const trigger = (why: string): void => {
    if (stopped) return;
    if (running !== undefined) {
      pending ??= why;
      return;
    }
    running = (async () => {
      let next: string | undefined = why;
      while (next !== undefined) {
        pending = undefined;
        await applyOnce(next);
        next = pending;
      }
      running = undefined;
    })();
  };

  const reload = async (): Promise<void> => {
    try {
      // Unchanged bytes (an editor touching the file, a platform without file names in
      // watch events) are not a change: no apply.
      const text = await readFile(path, 'utf8').catch(() => undefined);
      if (text !== undefined && text === lastText) return;
      desired = desiredStateOf(await loadDesiredFile(path));
      lastText = text;
      trigger('file changed');
    } catch (error) {
      metrics.fileError();
      const message = isIpsetsError(error) ? error.message : String(error);
      log(`${file} was not applied, keeping the last good state:\n${message}`);
    }
  };

  let server: Server | undefined;
  if (address !== undefined) {
    server = await serveMetrics(address, registry, () => lastConverged);
    const bound = server.address() as AddressInfo;
    const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    log(`metrics on http://${host}:${bound.port}/metrics`);
  }

  let debounce: NodeJS.Timeout | undefined;
  const target = basename(path);
  const watcher: FSWatcher = watch(dirname(path), (_event, name) => {
    // Some platforms omit the name; then any change in the folder counts.
    if (name !== null && name !== target) return;
    clearTimeout(debounce);
    debounce = setTimeout(() => void reload(), options.debounceMs);
  });
  const interval = setInterval(() => trigger('interval'), options.intervalMs);

  log(`watching ${path}; reconciling every ${formatDuration(options.intervalMs)}`);
  trigger('start');

  const signal = await (options.stopSignal ?? defaultStopSignal());
  stopped = true;
  log(`stopping${typeof signal === 'string' ? ` (${signal})` : ''}`);
  watcher.close();
  clearInterval(interval);
  clearTimeout(debounce);
  while (running !== undefined) await running;
  await agent.stop();
  if (server !== undefined) {
    const s = server;
    await new Promise<void>((ok) => s.close(() => ok()));
  }
  log('stopped');
  return EXIT.ok;
}
