/**
 * The reference side: the real `ipset`, run bare (no library code) in network
 * namespaces this process creates and deletes. Nothing here ever touches the
 * default namespace: every command is `ip netns exec <ours> ipset …`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { kernelTestSupport } from '@ipsets/exec-linux';

/** Whether the real kernel can be measured, and why not. */
export interface RealKernel {
  available: boolean;
  /** Why the reference columns are empty (`not root`, `ipset not installed`, …). */
  reason?: string;
  /** `ipset version` output, e.g. `ipset v7.17, protocol version: 7`. */
  version?: string;
}

/** What one bare `ipset` run did. */
export interface BareRun {
  /** Wall time from spawn to exit, including `ip netns exec`. */
  ms: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const live = new Set<string>();
let counter = 0;
let hooksInstalled = false;

/** The installed ipset's version line, or `undefined` when it cannot be run. */
export function ipsetVersion(): string | undefined {
  const result = spawnSync('ipset', ['version'], { encoding: 'utf8' });
  if (result.status !== 0 || typeof result.stdout !== 'string') return undefined;
  return result.stdout.trim().split('\n')[0];
}

/** Probes the real kernel once (root, `ipset`, `ip`, a namespace can be made and used). */
export async function probeRealKernel(): Promise<RealKernel> {
  const version = ipsetVersion();
  if (process.env['IPSETS_BENCH_REAL'] === 'off') {
    return { available: false, reason: 'IPSETS_BENCH_REAL=off', ...(version === undefined ? {} : { version }) };
  }
  const support = await kernelTestSupport();
  if (!support.available) {
    return { available: false, reason: shortReason(support.reason ?? 'kernel not usable'), ...(version === undefined ? {} : { version }) };
  }
  return { available: true, ...(version === undefined ? {} : { version }) };
}

function shortReason(reason: string): string {
  if (/not running as root/.test(reason)) return 'not root';
  if (/`ipset` is not on PATH/.test(reason)) return 'ipset not installed';
  if (/not Linux/.test(reason)) return 'not Linux';
  return reason.length > 60 ? `${reason.slice(0, 57)}…` : reason;
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // Last resort: a crashed or interrupted run never leaves a namespace behind.
  process.once('exit', () => {
    for (const name of live) spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const name of live) spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      live.clear();
      process.exit(130);
    });
  }
}

/** A network namespace of this benchmark; `dispose()` deletes it (and the kernel drops its sets). */
export interface BenchNamespace {
  readonly name: string;
  /** `ip netns exec <name> ipset <args>`, `input` on stdin; stdout kept only when `keepStdout`. */
  ipset(args: readonly string[], input?: string, keepStdout?: boolean): Promise<BareRun>;
  dispose(): void;
}

/** Creates a fresh, uniquely named namespace (`ipsets-suite-<pid>-<n>-<hex>`). */
export function createNamespace(): BenchNamespace {
  installHooks();
  counter += 1;
  const name = `ipsets-suite-${process.pid}-${counter}-${randomBytes(2).toString('hex')}`;
  const added = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`ip netns add ${name} failed: ${String(added.stderr).trim()}`);
  live.add(name);
  let disposed = false;
  return {
    name,
    ipset: (args, input, keepStdout = false) => runIpset(name, args, input, keepStdout),
    dispose() {
      if (disposed) return;
      disposed = true;
      spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      live.delete(name);
    },
  };
}

/**
 * Runs `ip netns exec <netns> ipset <args>` as a bare child process: `input` is
 * written to its stdin in one piece, stdout is collected (as a string, the way a
 * port hands it to a parser) or discarded.
 */
function runIpset(netns: string, args: readonly string[], input: string | undefined, keepStdout: boolean): Promise<BareRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('ip', ['netns', 'exec', netns, 'ipset', ...args], {
      stdio: [input === undefined ? 'ignore' : 'pipe', keepStdout ? 'pipe' : 'ignore', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    // A child that exits early (an error line) closes its stdin: that is its answer, not ours to report.
    child.stdin?.on('error', () => undefined);
    child.on('close', (exitCode, signal) => {
      const stdout = keepStdout ? Buffer.concat(out).toString('utf8') : '';
      const ms = performance.now() - started;
      resolve({ ms, exitCode, signal, stdout, stderr: Buffer.concat(err).toString('utf8') });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Throws with the command's stderr unless it exited 0. */
export function expectOk(run: BareRun, what: string): BareRun {
  if (run.exitCode !== 0) {
    throw new Error(`${what} failed (exit ${String(run.exitCode)}, signal ${String(run.signal)}): ${run.stderr.trim().slice(0, 300)}`);
  }
  return run;
}
