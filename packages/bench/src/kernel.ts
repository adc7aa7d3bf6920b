/**
 * The reference side: the real `ipset`, run bare (no library code) in network
 * namespaces this process creates and deletes. Nothing here ever touches the
 * default namespace: every command is `ip netns exec <ours> ipset …`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { kernelTestSupport } from '@ipsets/exec-linux/testing';

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
  /** CPU time (user + system) of the `ipset` process, as its shell's `times` reports it. */
  cpuMs: number;
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

/** How to run one bare `ipset`. */
export interface IpsetRunOptions {
  /** Written to stdin in one piece. */
  input?: string;
  /** Keep stdout (as a string, the way a port hands it to a parser); otherwise it is discarded. */
  keepStdout?: boolean;
  /**
   * Measure ipset's CPU time through a shell's `times` (default true). The shell adds a
   * few ms of wall time; a reference that must be exactly `ip netns exec NS ipset …` turns it off.
   */
  cpu?: boolean;
}

/** A network namespace of this benchmark; `dispose()` destroys its sets and deletes it. */
export interface BenchNamespace {
  readonly name: string;
  /** `ip netns exec <name> ipset <args>` (see {@link IpsetRunOptions}). */
  ipset(args: readonly string[], options?: IpsetRunOptions): Promise<BareRun>;
  dispose(): void;
}

/** Creates a fresh, uniquely named namespace (`<prefix>-<pid>-<n>-<hex>`, default prefix `ipsets-suite`). */
export function createNamespace(prefix = 'ipsets-suite'): BenchNamespace {
  installHooks();
  counter += 1;
  const name = `${prefix}-${process.pid}-${counter}-${randomBytes(2).toString('hex')}`;
  const added = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`ip netns add ${name} failed: ${String(added.stderr).trim()}`);
  live.add(name);
  let disposed = false;
  return {
    name,
    ipset: (args, options = {}) => runIpset(name, args, options),
    dispose() {
      if (disposed) return;
      disposed = true;
      // Destroy the sets first, synchronously and untimed: a deleted namespace is torn
      // down by a kernel worker in the background, and freeing a million entries there
      // would steal CPU from the next measurement.
      spawnSync('ip', ['netns', 'exec', name, 'ipset', 'destroy'], { stdio: 'ignore' });
      spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      live.delete(name);
    },
  };
}

/** Runs `ip netns exec <netns> ipset <args>` as a bare child process (see {@link IpsetRunOptions}). */
function runIpset(netns: string, args: readonly string[], options: IpsetRunOptions): Promise<BareRun> {
  const { input, keepStdout = false, cpu = true } = options;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // A shell in between reports ipset's CPU time (`times`: children's user and system
    // time) on stderr after it exits; it costs a few ms of wall time, not ipset's CPU.
    const command = cpu ? ['bash', '-c', CPU_WRAPPER, 'ipset', ...args] : ['ipset', ...args];
    const child = spawn('ip', ['netns', 'exec', netns, ...command], {
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
      const ms = performance.now() - started;
      const stdout = keepStdout ? Buffer.concat(out).toString('utf8') : '';
      const { stderr, cpuMs } = splitTimes(Buffer.concat(err).toString('utf8'));
      resolve({ ms, cpuMs, exitCode, signal, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

const CPU_WRAPPER = 'ipset "$@"; status=$?; times >&2; exit $status';
const TIMES = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\n(\d+)m([\d.]+)s (\d+)m([\d.]+)s\n$/;

/** Removes the shell's `times` lines from `stderr` and returns the children's CPU time (NaN when missing). */
export function splitTimes(stderr: string): { stderr: string; cpuMs: number } {
  const m = TIMES.exec(stderr);
  if (m === null) return { stderr, cpuMs: Number.NaN };
  const seconds = (min: string, sec: string): number => Number(min) * 60 + Number(sec);
  const cpuMs = (seconds(m[5]!, m[6]!) + seconds(m[7]!, m[8]!)) * 1000;
  return { stderr: stderr.slice(0, m.index), cpuMs };
}

/** Throws with the command's stderr unless it exited 0. */
export function expectOk(run: BareRun, what: string): BareRun {
  if (run.exitCode !== 0) {
    throw new Error(`${what} failed (exit ${String(run.exitCode)}, signal ${String(run.signal)}): ${run.stderr.trim().slice(0, 300)}`);
  }
  return run;
}
