/**
 * One writer per kernel: an exclusive lock per network namespace, held for the whole
 * read–plan–restore cycle of an apply, reconcile or reset.
 *
 * Why flock(2) and not a pid file: the kernel drops a flock when the last descriptor
 * of the open file goes away, so a holder killed with SIGKILL (or OOM-killed, or a
 * container torn down) never leaves the lock behind, and no waiter ever has to guess
 * whether a pid in a file is stale. The lock is on the file's inode, so processes in
 * other PID namespaces (a DaemonSet pod and an operator's shell on the host) that see
 * the same file exclude each other too.
 *
 * How, without a native addon: this process opens the lock file and keeps the
 * descriptor; a short-lived `flock -n -x 3` child inherits that descriptor as fd 3 and
 * locks the open file description it shares with us, then exits. A flock belongs to
 * the open file description, not to the process that called flock(2), so the lock
 * stays held by our descriptor until we close it (release) or die. The child never
 * blocks (`-n`), so waiting is a poll with backoff on timers: the event loop is never
 * blocked. Every ipset child the Linux port starts inherits the held descriptor (see
 * `held-locks`): a writer that dies while its ipset still runs leaves the lock held by
 * that ipset until it exits.
 *
 * Only this user can take it: the default folder is made 0700 and must be ours, the
 * file is opened with O_NOFOLLOW (a planted symbolic link is refused, never followed),
 * created 0600, and refused when it is not a regular file of ours with one name and no
 * group or world access. It is never truncated before it is locked and checked.
 *
 * The lock file is never deleted: unlinking a flock file lets a waiter lock the old
 * inode while a newcomer creates and locks a new one. The holder writes who it is
 * (pid, process start time, command, hostname) into the file so that a waiter that
 * gives up can name it; it empties the file before it lets go.
 */
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { IpsetsError, quote } from '@ipsets/core';
import type { AbortSignalLike } from '@ipsets/core';
import { DEFAULT_LOCK_WAIT_MS } from './defaults.js';
import { addHeldLock, removeHeldLock } from './held-locks.js';
import { checkNetnsName } from './linux-port.js';
import { ensurePrivateDir, NO_FOLLOW, tightenOwnFile, whyNotPrivate } from './private-dir.js';

/** Directory of the default lock files. */
export const DEFAULT_LOCK_DIR = '/run/ipsets';

/** Who holds (or held) a kernel lock, as its holder wrote it into the lock file. */
export interface KernelLockHolder {
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
export interface KernelLockOptions {
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
export interface KernelLock {
  /** The lock file. */
  readonly path: string;
  /** What this process wrote into the lock file. */
  readonly holder: KernelLockHolder;
  /** How long the acquisition waited for another holder, in milliseconds. */
  readonly waitedMs: number;
  /** Empties the lock file and releases the lock. Idempotent. */
  release(): Promise<void>;
}

const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;
// setTimeout fires at once for delays past 2^31-1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The default lock file of a network namespace: `/run/ipsets/<netns>.lock`, or
 * `/run/ipsets/host.lock` for the host's own namespace.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a namespace name that is not a file name.
 */
export function defaultLockPath(netns?: string): string {
  if (netns === undefined) return `${DEFAULT_LOCK_DIR}/host.lock`;
  checkNetnsName(netns);
  return `${DEFAULT_LOCK_DIR}/${netns}.lock`;
}

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
export async function acquireKernelLock(options: KernelLockOptions): Promise<KernelLock> {
  const { path, signal } = options;
  const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const flockPath = options.flockPath ?? 'flock';
  if (typeof path !== 'string' || path === '' || path.includes('\0') || path.endsWith('/')) {
    throw new IpsetsError('INVALID_ARGUMENT', `lock path ${quote(path)} is not usable; expected a file path such as ${quote(defaultLockPath())}`, {
      details: { path },
    });
  }
  if (typeof waitMs !== 'number' || Number.isNaN(waitMs) || waitMs < 0) {
    throw new IpsetsError('INVALID_ARGUMENT', `waitMs ${quote(waitMs)} is not allowed; expected 0 or more milliseconds (or Infinity)`, {
      details: { waitMs },
    });
  }
  if (signal?.aborted === true) throw abortedWait(path, signal);

  const started = performance.now();
  const file = await openLockFile(path);
  let held = false;
  try {
    let delay = FIRST_POLL_MS;
    for (;;) {
      if (await tryLock(file, path, flockPath, options.flockPathName ?? 'flockPath')) break;
      const elapsed = performance.now() - started;
      if (elapsed >= waitMs) throw await lockHeld(file, path, waitMs);
      await sleep(Math.min(delay, waitMs - elapsed), signal, path);
      delay = Math.min(delay * 2, MAX_POLL_MS);
    }
    const holder = describeSelf(options.command);
    await recordHolder(file, path, holder);
    held = true;
    addHeldLock(file.fd);
    const waitedMs = Math.round(performance.now() - started);
    let released: Promise<void> | undefined;
    return {
      path,
      holder,
      waitedMs,
      release() {
        released ??= (async () => {
          removeHeldLock(file.fd);
          // Emptied while still held, so the next holder's record is never overwritten.
          await file.truncate(0).catch(() => undefined);
          await file.close();
        })();
        return released;
      },
    };
  } finally {
    // Every way out without the lock closes the descriptor: nothing keeps a flock we gave up on.
    if (!held) await file.close().catch(() => undefined);
  }
}

/** Writes the holder record into the locked, checked file (the only time it is truncated). */
async function recordHolder(file: FileHandle, path: string, holder: KernelLockHolder): Promise<void> {
  try {
    await file.truncate(0);
    await file.write(`${JSON.stringify(holder)}\n`, 0, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new IpsetsError(
      'IPSET_UNAVAILABLE',
      `the holder record could not be written to the kernel lock file ${quote(path)} (${code ?? String(error)}${code === 'ENOSPC' ? ': no space left on the device' : ''}); the lock was let go. Free space on its file system, or pass a lock path elsewhere`,
      { cause: error, details: { reason: 'lock-unavailable', path, code } },
    );
  }
}

/**
 * Runs `fn` while holding the kernel lock (see {@link acquireKernelLock}); releases it
 * when `fn` settles, also when it throws.
 */
export async function withKernelLock<T>(options: KernelLockOptions, fn: (lock: KernelLock) => Promise<T> | T): Promise<T> {
  const lock = await acquireKernelLock(options);
  try {
    return await fn(lock);
  } finally {
    await lock.release();
  }
}

/**
 * Reads who holds (or last held) the lock in `path`, as the holder wrote it;
 * `undefined` when the file is missing, empty or unreadable. It does not test whether
 * the lock is held: only {@link acquireKernelLock} can tell.
 */
export async function readKernelLockHolder(path: string): Promise<KernelLockHolder | undefined> {
  let file: FileHandle;
  try {
    file = await open(path, fsConstants.O_RDONLY | NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    return parseHolder(await readRecord(file));
  } finally {
    await file.close();
  }
}

async function openLockFile(path: string): Promise<FileHandle> {
  const unavailable = (why: string, code?: string, cause?: unknown): IpsetsError =>
    new IpsetsError('IPSET_UNAVAILABLE', `the kernel lock file ${quote(path)} ${why}`, { cause, details: { reason: 'lock-unavailable', path, code } });
  const dir = dirname(path);
  if (dir === DEFAULT_LOCK_DIR) await ensurePrivateDir(dir, 'the kernel lock folder', 'lock-unavailable');
  let file: FileHandle;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Read-write so the holder can record itself; never O_TRUNC: the current holder's
    // record stays. O_NOFOLLOW: a symbolic link in its place is refused (ELOOP), never followed.
    file = await open(path, fsConstants.O_RDWR | fsConstants.O_CREAT | NO_FOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A link owned by another user in a sticky folder fails with EACCES (fs.protected_symlinks) before ELOOP.
    const link = code === 'ELOOP' || (code === 'EACCES' && (await lstat(path).then((st) => st.isSymbolicLink(), () => false)));
    if (link) throw unavailable('is a symbolic link; refusing to follow it: pass the real path of a lock file', code, error);
    throw unavailable(`cannot be opened (${code ?? String(error)}); run as root, or pass a lock path in a folder this user can write`, code, error);
  }
  try {
    // This user's own 0644 file (an older version's, or flock(1)'s) is made 0600; another
    // user's file, a second name or a non-regular file is refused.
    const why = whyNotPrivate(await tightenOwnFile(file));
    if (why !== undefined) {
      throw unavailable(
        `${why}; only a file of this user that no one else can open can be the lock (anyone who can open it could take it or fake its holder). Remove it when no ipsets writer runs, or pass another lock path`,
      );
    }
    return file;
  } catch (error) {
    await file.close().catch(() => undefined);
    throw error;
  }
}

/** One non-blocking flock(2) on `file`'s open file description, done by a `flock` child. */
function tryLock(file: FileHandle, path: string, flockPath: string, flockPathName: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const child = spawn(flockPath, ['-n', '-x', '3'], { stdio: ['ignore', 'ignore', 'pipe', file.fd] });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new IpsetsError(
          'IPSET_UNAVAILABLE',
          error.code === 'ENOENT'
            ? `the \`flock\` binary ${quote(flockPath)} was not found; install util-linux (Debian: apt-get install util-linux) or pass ${flockPathName}`
            : `the \`flock\` binary ${quote(flockPath)} could not be started (${error.code ?? error.message}); check it or pass ${flockPathName}`,
          { cause: error, details: { reason: 'lock-unavailable', path, flockPath, code: error.code } },
        ),
      );
    });
    child.on('close', (code, signalName) => {
      if (code === 0) resolve(true);
      // With -n, util-linux and busybox both exit 1 when someone else holds the lock.
      else if (code === 1 && stderr.trim() === '') resolve(false);
      else {
        reject(
          new IpsetsError(
            'IPSET_UNAVAILABLE',
            `\`${flockPath} -n -x 3\` on the kernel lock file ${quote(path)} ${signalName === null ? `exited with ${code}` : `was killed by ${signalName}`}: ${quote(stderr.trim())}; expected exit 0 (locked) or 1 (held by another process)`,
            { details: { reason: 'lock-unavailable', path, flockPath, exitCode: code, signal: signalName, stderr } },
          ),
        );
      }
    });
  });
}

async function lockHeld(file: FileHandle, path: string, waitMs: number): Promise<IpsetsError> {
  const holder = parseHolder(await readRecord(file).catch(() => ''));
  const find = `\`fuser -v ${path}\` lists every process holding it`;
  const who =
    holder === undefined
      ? `another process (it wrote no holder record; ${find})`
      : `pid ${holder.pid}${holder.hostname === hostname() ? '' : ` on host ${quote(holder.hostname)}`} (${quote(holder.command)}, holding it since ${holder.acquiredAt}, process started ${holder.processStartedAt}; see \`ls -l /proc/${holder.pid}\`; if that process is gone, an ipset it started still holds it: ${find})`;
  return new IpsetsError(
    'LOCK_HELD',
    `the kernel lock ${quote(path)} is held by ${who}; waited ${waitMs} ms. Another writer is changing these ipsets: wait longer, or stop that process`,
    { details: { path, waitMs, holder } },
  );
}

// A holder record is one short JSON line; anything longer is not one.
const MAX_RECORD_BYTES = 4096;

async function readRecord(file: FileHandle): Promise<string> {
  const buffer = Buffer.alloc(MAX_RECORD_BYTES);
  const { bytesRead } = await file.read(buffer, 0, MAX_RECORD_BYTES, 0);
  return buffer.subarray(0, bytesRead).toString('utf8');
}

function describeSelf(command: string | undefined): KernelLockHolder {
  const now = Date.now();
  const cmd = command ?? process.argv.join(' ');
  return {
    pid: process.pid,
    hostname: hostname(),
    command: cmd.length > 200 ? `${cmd.slice(0, 199)}…` : cmd,
    processStartedAt: new Date(now - process.uptime() * 1000).toISOString(),
    acquiredAt: new Date(now).toISOString(),
  };
}

function parseHolder(text: string): KernelLockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<KernelLockHolder> | null;
    if (value === null || typeof value !== 'object' || !Number.isInteger(value.pid)) return undefined;
    return {
      pid: value.pid as number,
      hostname: String(value.hostname ?? ''),
      command: String(value.command ?? ''),
      processStartedAt: String(value.processStartedAt ?? ''),
      acquiredAt: String(value.acquiredAt ?? ''),
    };
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignalLike | undefined, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortedWait(path, signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedWait(path, signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, Math.min(ms, MAX_TIMER_MS)));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortedWait(path: string, signal: AbortSignalLike | undefined): IpsetsError {
  const reason = signal?.reason;
  const because = reason instanceof Error ? `: ${reason.message}` : reason === undefined ? '' : `: ${String(reason)}`;
  return new IpsetsError('ABORTED', `waiting for the kernel lock ${quote(path)} was aborted${because}`, {
    cause: reason,
    details: { path },
  });
}
