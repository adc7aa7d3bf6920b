/**
 * One writer per kernel, for the commands: apply and reset hold the kernel lock of
 * `@ipsets/exec-linux` for their whole read–plan–restore cycle (the agent passes the
 * same path to the library agent, which holds it per operation). Readers (save, diff,
 * plan) never take it. A writer that waits says whom it waits for; one that gives up
 * fails with `LOCK_HELD` (exit 4) naming the holder's pid.
 */
import { resolve } from 'node:path';
import { isIpsetsError } from '@ipsets/core';
import type { AbortSignalLike } from '@ipsets/core';
import type { KernelLock } from '@ipsets/exec-linux';
import { DEFAULT_STATE_FILE } from './defaults.js';
import { CLI_OPTION_NAMES } from './kernel/index.js';
import type { KernelOptions } from './kernel/index.js';
import type { CommandLogger } from './logging.js';

/** Options of the lock a writer takes. */
export interface WriterLockOptions {
  /** How long to wait for another writer (ms; default 30 s). */
  waitMs?: number;
  /** The lock file (default: per kernel, see {@link lockPathFor}). */
  lockFile?: string;
  /** Stops waiting (a stop signal): rejects with `ABORTED`. */
  signal?: AbortSignalLike;
}

/**
 * The lock file of the kernel `options` name: `--lock-file` when given, else
 * `/run/ipsets/<netns or "host">.lock` for linux and `<state file>.lock` for the fake.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a namespace name that is no file name.
 */
export async function lockPathFor(options: KernelOptions & { lockFile?: string }, cwd: string): Promise<string> {
  if (options.lockFile !== undefined) return resolve(cwd, options.lockFile);
  if (options.kernel === 'fake') return `${resolve(cwd, options.state ?? DEFAULT_STATE_FILE)}.lock`;
  const { defaultLockPath } = await import('@ipsets/exec-linux');
  return defaultLockPath(options.netns);
}

/**
 * Runs `fn` holding the kernel lock in `path`. Tries once first so that a wait is
 * logged with the holder it waits for.
 *
 * @throws IpsetsError `LOCK_HELD` (the message names the holder pid) when `waitMs` ran out.
 */
export async function withWriterLock<T>(path: string, options: WriterLockOptions, log: Pick<CommandLogger, 'info'>, fn: () => Promise<T>): Promise<T> {
  const { acquireKernelLock, DEFAULT_LOCK_WAIT_MS } = await import('@ipsets/exec-linux');
  const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const signal = { flockPathName: CLI_OPTION_NAMES.flockPath, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  let lock: KernelLock;
  try {
    lock = await acquireKernelLock({ path, waitMs: 0, ...signal });
  } catch (error) {
    if (!isIpsetsError(error, 'LOCK_HELD') || waitMs === 0) throw error;
    const holder = error.details['holder'] as { pid?: number; command?: string } | undefined;
    log.info({ lockFile: path, waitMs, holderPid: holder?.pid, holderCommand: holder?.command }, 'waiting for another writer of this kernel');
    lock = await acquireKernelLock({ path, waitMs, ...signal });
  }
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
