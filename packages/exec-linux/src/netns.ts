/**
 * Throwaway network namespaces for tests that touch the real kernel, and the gate
 * that decides whether such tests run, skip (with a one-line reason) or fail.
 *
 * Sets are per network namespace: a test that works inside a namespace it created
 * never sees or changes the host's sets, and everything it made vanishes with the
 * namespace.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, readdir, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { IpsetsError } from '@ipsets/core';
import type { CommandResult } from '@ipsets/core';
import { DEFAULT_LOCK_DIR } from './kernel-lock.js';

/** Whether real-kernel tests can run here, and if not, why (one line). */
export interface KernelTestSupport {
  available: boolean;
  /** One-line explanation when `available` is false. */
  reason?: string;
}

/** A network namespace made for one test (or one batch of tests). */
export interface TestNamespace {
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
export interface KernelTestGate {
  /** True when kernel-backed tests should run. */
  run: boolean;
  /** One-line reason when they are skipped. */
  reason?: string;
}

/** Options of {@link kernelTestGate}. */
export interface KernelTestGateOptions {
  /** Environment to read `IPSETS_KERNEL_TESTS` from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The support probe (default {@link kernelTestSupport}); injectable for tests. */
  probe?: () => Promise<KernelTestSupport>;
}

/** The environment variable that turns a skipped kernel test into a failure (`require`) or forces a skip (`skip`). */
export const KERNEL_TESTS_ENV = 'IPSETS_KERNEL_TESTS';

const MAX_OUTPUT = 1024 * 1024 * 1024;

/** `ipsets-<prefix>-<pid>-<counter>-<random>`: the names {@link createTestNamespace} makes. */
const OUR_NAME = /^ipsets-(?:[a-z0-9][a-z0-9-]*)-(\d+)-(\d+)-[0-9a-f]{6}$/i;

let supportPromise: Promise<KernelTestSupport> | undefined;
let swept: Promise<void> | undefined;
let counter = 0;
const live = new Set<string>();
let exitHookInstalled = false;

/**
 * Probes (once per process) whether real-kernel tests can run: Linux, root, `ipset`
 * and `ip` on `PATH`, and a probe namespace can be created, used (`ipset list -n`
 * inside it) and deleted.
 */
export function kernelTestSupport(): Promise<KernelTestSupport> {
  supportPromise ??= probeSupport();
  return supportPromise;
}

async function probeSupport(): Promise<KernelTestSupport> {
  if (process.platform !== 'linux') {
    return unavailable(`not Linux (platform ${process.platform}); ipset needs a Linux kernel`);
  }
  const uid = process.getuid?.();
  if (uid !== 0) {
    return unavailable(`not running as root (uid ${String(uid)}); creating network namespaces needs root`);
  }
  if (!(await onPath('ipset'))) {
    return unavailable('`ipset` is not on PATH; install it (Debian: apt-get install ipset)');
  }
  if (!(await onPath('ip'))) {
    return unavailable('`ip` (iproute2) is not on PATH; install it (Debian: apt-get install iproute2)');
  }
  let ns: TestNamespace;
  try {
    ns = await createTestNamespace('probe');
  } catch (error) {
    return unavailable(`cannot create a network namespace: ${firstLine(errorText(error))}`);
  }
  try {
    const listed = await ns.run(['ipset', 'list', '-n']);
    if (listed.exitCode !== 0) {
      return unavailable(
        `\`ipset list -n\` failed inside a network namespace (exit ${listed.exitCode}): ${firstLine(listed.stderr) || 'no message'}`,
      );
    }
  } catch (error) {
    return unavailable(`cannot run ipset inside a network namespace: ${firstLine(errorText(error))}`);
  } finally {
    await ns.dispose().catch(() => undefined);
  }
  if (await namespaceExists(ns.name)) {
    return unavailable(`cannot delete the probe network namespace ${JSON.stringify(ns.name)}`);
  }
  return { available: true };
}

/**
 * Decides whether kernel-backed tests run. Returns `{ run: true }` when
 * {@link kernelTestSupport} says the kernel is usable, `{ run: false, reason }` otherwise.
 * With `IPSETS_KERNEL_TESTS=require` an unusable kernel throws an `IPSET_UNAVAILABLE`
 * {@link IpsetsError} carrying the reason (so the test fails); `IPSETS_KERNEL_TESTS=skip`
 * skips without probing.
 */
export async function kernelTestGate(options: KernelTestGateOptions = {}): Promise<KernelTestGate> {
  const env = options.env ?? process.env;
  const mode = (env[KERNEL_TESTS_ENV] ?? '').trim().toLowerCase();
  if (mode === 'skip' || mode === '0' || mode === 'false') {
    return { run: false, reason: `${KERNEL_TESTS_ENV}=${mode} asks to skip kernel tests` };
  }
  const support = await (options.probe ?? kernelTestSupport)();
  if (support.available) return { run: true };
  const reason = support.reason ?? 'the kernel is not usable for tests';
  if (mode === 'require' || mode === '1' || mode === 'true') {
    throw new IpsetsError(
      'IPSET_UNAVAILABLE',
      `kernel tests are required (${KERNEL_TESTS_ENV}=${mode}) but cannot run: ${reason}`,
      { details: { reason } },
    );
  }
  return { run: false, reason };
}

/**
 * Creates a uniquely named network namespace (`ipsets-<prefix>-<pid>-<counter>-<random>`).
 * Call `dispose()` when done; namespaces still alive when the process exits are deleted
 * by an exit hook as a last resort.
 */
export async function createTestNamespace(prefix = 'test'): Promise<TestNamespace> {
  if (!/^[a-z0-9][a-z0-9-]{0,23}$/i.test(prefix)) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `namespace prefix ${JSON.stringify(prefix)} is not allowed; expected 1-24 letters, digits or dashes`,
      { details: { prefix } },
    );
  }
  swept ??= sweepOrphanNamespaces();
  await swept;
  counter += 1;
  const name = `ipsets-${prefix}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}`;
  const added = await execa('ip', ['netns', 'add', name], { reject: false, stdin: 'ignore' });
  if (added.failed) {
    throw new IpsetsError(
      'IPSET_UNAVAILABLE',
      `cannot create network namespace ${JSON.stringify(name)}: ${firstLine(String(added.stderr ?? '')) || added.shortMessage || 'unknown error'}`,
      { details: { name, exitCode: added.exitCode, stderr: added.stderr } },
    );
  }
  live.add(name);
  installExitHook();

  let disposed: Promise<void> | undefined;
  const run = async (cmd: readonly string[], input?: string): Promise<CommandResult> => {
    if (cmd.length === 0) {
      throw new IpsetsError('INVALID_ARGUMENT', 'an empty command cannot be run; expected argv like ["ipset", "list", "-n"]');
    }
    const result = await execa('ip', ['netns', 'exec', name, ...cmd], {
      reject: false,
      stripFinalNewline: false,
      maxBuffer: MAX_OUTPUT,
      ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
    });
    if (result.exitCode === undefined && result.signal === undefined) {
      throw new IpsetsError(
        'IPSET_UNAVAILABLE',
        `cannot run ${JSON.stringify(cmd.join(' '))} in namespace ${JSON.stringify(name)}: ${result.shortMessage ?? 'spawn failed'}`,
        { cause: result.cause },
      );
    }
    return {
      exitCode: result.exitCode ?? 128,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      ...(result.signal === undefined ? {} : { signal: result.signal }),
    };
  };
  const dispose = (): Promise<void> => {
    disposed ??= (async () => {
      // The kernel drops a namespace's rules and sets with it; flushing first makes the
      // order explicit (rules hold references that would otherwise pin sets a while longer).
      await execa('ip', ['netns', 'exec', name, 'iptables', '-F'], { reject: false, stdin: 'ignore' });
      await execa('ip', ['netns', 'exec', name, 'iptables', '-X'], { reject: false, stdin: 'ignore' });
      const deleted = await execa('ip', ['netns', 'del', name], { reject: false, stdin: 'ignore' });
      live.delete(name);
      // A writer run with --netns made this namespace's lock file in the host's lock folder: it goes with the namespace.
      await removeLockFile(name);
      if (deleted.failed && (await namespaceExists(name))) {
        throw new IpsetsError(
          'IPSET_UNAVAILABLE',
          `cannot delete network namespace ${JSON.stringify(name)}: ${firstLine(String(deleted.stderr ?? ''))}`,
        );
      }
    })();
    return disposed;
  };
  return { name, run, dispose };
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    // Last resort for a test run that crashed before dispose(): never leave namespaces behind.
    for (const name of live) {
      spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      spawnSync('rm', ['-f', '--', lockFileOf(name)], { stdio: 'ignore' });
    }
  });
}

/**
 * Deletes namespaces this helper made in processes that are gone (a test run killed
 * with SIGKILL never runs its exit hook). Only names of our exact pattern whose pid is
 * not alive are touched. Runs once per process before the first namespace is made.
 *
 * @internal exported for tests
 */
export async function sweepOrphanNamespaces(): Promise<void> {
  const orphan = (name: string): boolean => {
    const pid = Number(OUR_NAME.exec(name)?.[1]);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
  };
  for (const name of await namespaceNames()) {
    if (orphan(name)) await execa('ip', ['netns', 'del', name], { reject: false, stdin: 'ignore' });
  }
  // Lock files of such namespaces (their writers are gone with the test run that made them).
  const locks = await readdir(DEFAULT_LOCK_DIR).catch(() => [] as string[]);
  for (const file of locks) {
    if (file.endsWith('.lock') && orphan(file.slice(0, -'.lock'.length))) await removeLockFile(file.slice(0, -'.lock'.length));
  }
}

/** The kernel lock file writers use for namespace `name` (`defaultLockPath`). */
function lockFileOf(name: string): string {
  return join(DEFAULT_LOCK_DIR, `${name}.lock`);
}

async function removeLockFile(name: string): Promise<void> {
  await rm(lockFileOf(name), { force: true }).catch(() => undefined);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function namespaceNames(): Promise<string[]> {
  const listed = await execa('ip', ['netns', 'list'], { reject: false, stdin: 'ignore' });
  return String(listed.stdout ?? '')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter(Boolean);
}

async function namespaceExists(name: string): Promise<boolean> {
  const listed = await execa('ip', ['netns', 'list'], { reject: false, stdin: 'ignore' });
  return String(listed.stdout ?? '')
    .split('\n')
    .some((line) => line.split(' ')[0] === name);
}

async function onPath(command: string): Promise<boolean> {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    try {
      await access(join(dir, command), fsConstants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

function unavailable(reason: string): KernelTestSupport {
  return { available: false, reason };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
