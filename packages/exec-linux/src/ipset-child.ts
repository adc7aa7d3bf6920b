/**
 * The life of one ipset child beside the port's logic: it runs in a process group of
 * its own (a terminal's Ctrl-C reaches only us) and therefore must be killed by us when
 * we exit; a restore's stdin is a private file holding the whole text; its stderr is
 * kept bounded.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { open, readdir, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { IpsetsError, quote } from '@ipsets/core';
import { ensurePrivateDir, NO_FOLLOW } from './private-dir.js';

/** What this module needs of a running child (an execa subprocess fits). */
interface RunningChild {
  readonly pid?: number | undefined;
  kill(signal?: NodeJS.Signals): boolean;
}

/** The ipset children running now; killed when this process exits (see {@link trackChild}). */
const liveChildren = new Set<RunningChild>();

function killLiveChildren(): void {
  for (const child of liveChildren) killGroup(child, 'SIGKILL');
}

/**
 * Signals the whole process group the child leads (it was started detached, so the
 * group is its own): what it started goes too, as a terminal's signal would have taken
 * it (a wrapper script's pipeline, say). Falls back to the child alone.
 */
function killGroup(child: RunningChild, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) {
      process.kill(-child.pid, signal);
      return;
    }
  } catch {
    // The group is gone already, or was never formed: the child alone.
  }
  child.kill(signal);
}

/**
 * Tracks a detached child until it settles (call the returned function then):
 *
 * - A detached child outlives its parent, and execa's own exit cleanup skips detached
 *   children: a process that exits while `ipset restore` runs (the CLI's forced exit on
 *   a second signal) kills its group here, so that it never goes on alone with a cut
 *   stdin. One `exit` listener while any child runs (an exit listener, not a signal
 *   handler: the host process keeps every say over signals).
 * - When `cancel` aborts (a timeout or the caller's abort) the group gets SIGTERM, and
 *   SIGKILL after `forceKillAfterMs` if the child has not settled: execa kills only the
 *   child's pid, and anything else holding its output pipes would keep the call open.
 */
export function trackChild(child: RunningChild, cancel: AbortSignal, forceKillAfterMs: number): () => void {
  if (liveChildren.size === 0) process.on('exit', killLiveChildren);
  liveChildren.add(child);
  let force: ReturnType<typeof setTimeout> | undefined;
  const onCancel = (): void => {
    killGroup(child, 'SIGTERM');
    force = setTimeout(() => killGroup(child, 'SIGKILL'), forceKillAfterMs);
    force.unref();
  };
  if (cancel.aborted) onCancel();
  else cancel.addEventListener('abort', onCancel, { once: true });
  return () => {
    cancel.removeEventListener('abort', onCancel);
    if (force !== undefined) clearTimeout(force);
    liveChildren.delete(child);
    if (liveChildren.size === 0) process.off('exit', killLiveChildren);
  };
}

// Written in newline-aligned pieces so a 30 MB text never needs a second 30 MB buffer.
const WRITE_CHUNK = 1 << 20;
const STAGED = /^restore-(\d+)-[0-9a-f]{16}$/;

/** A restore text written completely to a private file, open for the child's stdin. */
export interface StagedText {
  /** A read-only descriptor at offset 0: the child's stdin. */
  readonly fd: number;
  /** Closes our descriptor (the child keeps its own copy; the file has no name any more). */
  dispose(): Promise<void>;
}

/**
 * Writes `text` completely to a new private file in `dir` (0600, `O_EXCL`, a random
 * name, in a folder only this user can enter) and opens it for reading: `ipset
 * restore` reads its stdin from that file, never from a pipe we feed. Whatever
 * happens to this process afterwards (SIGKILL, the OOM killer), an orphaned ipset
 * reads the whole text or nothing: never a line cut at a pipe-buffer boundary, such
 * as a bare `-F` (which flushes every set of the namespace) or a member cut short.
 *
 * The file's name is removed once it is open for reading, before ipset starts: ipset
 * reads it through the inherited descriptor. A writer killed in the moment between
 * creating and removing it leaves a file; the next restore removes such files of
 * writers that no longer exist.
 *
 * @throws IpsetsError `IPSET_UNAVAILABLE` (`details.reason: 'restore-file'`) when the folder or file cannot be made or written.
 */
export async function stageRestoreText(dir: string, text: string): Promise<StagedText> {
  await ensurePrivateDir(dir, 'the restore folder', 'restore-file');
  await removeStale(dir);
  const path = join(dir, `restore-${process.pid}-${randomBytes(8).toString('hex')}`);
  let reader: FileHandle | undefined;
  try {
    const writer = await open(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | NO_FOLLOW, 0o600);
    try {
      let at = 0;
      while (at < text.length) {
        let end = Math.min(text.length, at + WRITE_CHUNK);
        if (end < text.length) {
          // Cutting at a newline never splits a UTF-16 surrogate pair.
          const newline = text.lastIndexOf('\n', end - 1);
          if (newline >= at) end = newline + 1;
        }
        await writer.write(text.slice(at, end), null, 'utf8');
        at = end;
      }
    } finally {
      await writer.close();
    }
    reader = await open(path, fsConstants.O_RDONLY | NO_FOLLOW);
    // The name goes before ipset starts: the descriptor is all it needs, and a writer
    // killed from here on leaves nothing behind.
    await rm(path);
  } catch (error) {
    await reader?.close().catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    throw new IpsetsError(
      'IPSET_UNAVAILABLE',
      `the restore text could not be written to ${quote(path)} (${code ?? String(error)}${code === 'ENOSPC' ? ': no space left on the device' : ''}); nothing was sent to ipset. Free space in ${quote(dir)} or choose another restore folder`,
      { cause: error, details: { reason: 'restore-file', path, code } },
    );
  }
  const handle = reader;
  let disposed: Promise<void> | undefined;
  return {
    fd: handle.fd,
    dispose() {
      disposed ??= handle.close().catch(() => undefined);
      return disposed;
    },
  };
}

/** Removes the staged files of processes that no longer exist (killed before they could). */
async function removeStale(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(STAGED.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processExists(pid)) continue;
    await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Keeps the head and the tail of a stream that may be huge (ipset's stderr), counting
 * what it dropped between them: memory stays bounded whatever the child prints.
 */
export class BoundedText {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit: number,
  ) {}

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headBytes);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.dropped += excess;
      }
    }
  }

  /** The text kept, with a marker saying how many bytes were dropped where. */
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (this.dropped === 0) return head + tail;
    return `${head}\n[… ${this.dropped} bytes dropped …]\n${tail}`;
  }
}

/**
 * Hands a child's stdout to `take` as it arrives, decoded as UTF-8 (a character cut
 * between two chunks is handed over whole), until more than `limit` bytes came: then
 * `over()` is called once and nothing more is handed over. A `take` that throws ends
 * the handing over the same way, through `failed`.
 */
export class StdoutPieces {
  private readonly decoder = new StringDecoder('utf8');
  private bytes = 0;
  private stopped = false;
  /** What `take` threw, if it did. */
  failed: unknown;

  constructor(
    private readonly take: (piece: string) => void,
    private readonly limit: number,
    private readonly over: () => void,
  ) {}

  /** True once more than the limit arrived. */
  get tooLong(): boolean {
    return this.bytes > this.limit;
  }

  push(chunk: Buffer): void {
    if (this.stopped) return;
    this.bytes += chunk.length;
    if (this.bytes > this.limit) {
      this.stop();
      return;
    }
    this.give(this.decoder.write(chunk));
  }

  /** The end of stdout: the rest of a cut character, if any. */
  end(): void {
    if (!this.stopped) this.give(this.decoder.end());
  }

  private give(piece: string): void {
    if (piece === '') return;
    try {
      this.take(piece);
    } catch (error) {
      this.failed = error;
      this.stop();
    }
  }

  private stop(): void {
    this.stopped = true;
    this.over();
  }
}
