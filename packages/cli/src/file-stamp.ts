/**
 * When a file need not be read again: its stat stamp (device, inode, size, change and
 * modification times, in nanoseconds) is the one of a read that can vouch for it.
 *
 * Every write, truncate, rename over the file or `..data` symlink swap changes the stamp
 * of the file a path resolves to: the inode (a new file), the size, or the change time,
 * which no one can set back. The one gap is time resolution: a filesystem may keep times
 * coarser than a nanosecond (a second, two on some), so a write in the same tick as the
 * last one leaves the times as they were. A read vouches for what it read only when the
 * file's last change lay more than {@link SETTLE_MS} before the read started (the rule
 * git applies to its index): any later write then lands in a later tick.
 */
import { stat } from 'node:fs/promises';

/** What stat says about the content behind a path (it follows symlinks). */
export interface FileStamp {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/** How long before a read the file's last change must lie for the read to vouch for it (ms). */
export const SETTLE_MS = 3000;

/** The stamp of `path`, or undefined when it cannot be stat'ed (or is not a regular file). */
export async function fileStamp(path: string): Promise<FileStamp | undefined> {
  try {
    const s = await stat(path, { bigint: true });
    if (!s.isFile()) return undefined;
    return { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
  } catch {
    return undefined;
  }
}

/** True when `a` and `b` are stamps of the same content. */
export function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/**
 * `stamp` (taken before a read that started at `startedMs`, wall clock) when that read
 * vouches for the content (see the module documentation), else undefined.
 */
export function settledStamp(stamp: FileStamp | undefined, startedMs: number): FileStamp | undefined {
  if (stamp === undefined) return undefined;
  const changedMs = Number(stamp.ctimeNs > stamp.mtimeNs ? stamp.ctimeNs : stamp.mtimeNs) / 1e6;
  return changedMs < startedMs - SETTLE_MS ? stamp : undefined;
}
