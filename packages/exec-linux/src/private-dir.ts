/**
 * Folders and files only this user can reach: the kernel lock's folder and the folder
 * restore texts are staged in. Shared by the lock and the port so that both check the
 * same things the same way.
 */
import { constants as fsConstants } from 'node:fs';
import type { Stats } from 'node:fs';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { IpsetsError, quote } from '@ipsets/core';

/** This process's effective uid (`undefined` where the platform has none). */
export function effectiveUid(): number | undefined {
  return typeof process.geteuid === 'function' ? process.geteuid() : undefined;
}

/** Opens without following a symbolic link in the last component, and never blocks on a FIFO. */
export const NO_FOLLOW = fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;

/**
 * Makes `dir` (and missing parents, 0700) and checks it is a real directory owned by
 * this user that no one else can enter or change. A directory of ours that is group-
 * or world-accessible (a `DirectoryOrCreate` hostPath, a systemd `RuntimeDirectory`,
 * an older version's 0755) is tightened to 0700: only we could have made it so.
 *
 * @throws IpsetsError `IPSET_UNAVAILABLE` (`details.reason: 'lock-unavailable'` or as `reason` says) naming the fix.
 */
export async function ensurePrivateDir(dir: string, what: string, reason: string): Promise<void> {
  const fail = (why: string, code?: string, cause?: unknown): IpsetsError =>
    new IpsetsError('IPSET_UNAVAILABLE', `${what} ${quote(dir)} ${why}`, { cause, details: { reason, path: dir, code } });
  let stats: Stats;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    stats = await lstat(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fail(`cannot be created (${code ?? String(error)}); run as root, or pass a path in a folder this user can write`, code, error);
  }
  if (stats.isSymbolicLink()) throw fail('is a symbolic link; refusing to follow it: pass the real folder');
  if (!stats.isDirectory()) throw fail('is not a directory');
  const uid = effectiveUid();
  if (uid !== undefined && stats.uid !== uid) {
    throw fail(`is owned by uid ${stats.uid}, not by this user (uid ${uid}); only its owner may use it: remove it, or run as its owner`);
  }
  if ((stats.mode & 0o077) !== 0) {
    try {
      await chmod(dir, 0o700);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw fail(`is accessible to other users (mode ${(stats.mode & 0o777).toString(8)}) and cannot be made 0700 (${code ?? String(error)})`, code, error);
    }
  }
}

/**
 * Why an open file may not be trusted as private to this user: not a regular file,
 * owned by someone else, group- or world-accessible, or with a second name (a hard
 * link planted to another file). `undefined` when it is fine.
 */
export function whyNotPrivate(stats: Stats): string | undefined {
  const uid = effectiveUid();
  if (!stats.isFile()) return 'is not a regular file';
  if (uid !== undefined && stats.uid !== uid) return `is owned by uid ${stats.uid}, not by this user (uid ${uid})`;
  if ((stats.mode & 0o077) !== 0) return `is accessible to other users (mode ${(stats.mode & 0o777).toString(8)}; expected 600)`;
  if (stats.nlink !== 1) return `has ${stats.nlink} names (a hard link)`;
  return undefined;
}

/**
 * The stats of an open file after tightening it when it is this user's own single-named
 * regular file that is group- or world-accessible (a 0644 lock file of an older version,
 * or one `flock(1)` created): like {@link ensurePrivateDir} with its folder, what only we
 * could have made is made 0600 through the descriptor (never through a path, so no link
 * can redirect it). Anything else is returned as it is, for {@link whyNotPrivate} to refuse.
 */
export async function tightenOwnFile(file: FileHandle): Promise<Stats> {
  const stats = await file.stat();
  const uid = effectiveUid();
  const own = stats.isFile() && stats.nlink === 1 && (uid === undefined || stats.uid === uid);
  if (!own || (stats.mode & 0o077) === 0) return stats;
  await file.chmod(0o600);
  return file.stat();
}
