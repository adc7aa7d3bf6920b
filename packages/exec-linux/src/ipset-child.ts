/**
 * The life of one ipset child beside the port's logic: it runs in a process group of
 * its own (a terminal's Ctrl-C reaches only us) and therefore must be killed by us when
 * we exit, and its stdin is fed in newline-aligned chunks with backpressure.
 */
import type { Writable } from 'node:stream';

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

// Large enough to keep the pipe full, small enough that ipset starts parsing the first
// lines while later ones are still being encoded (the two overlap on separate cores).
const STDIN_CHUNK = 1 << 20;

/**
 * Writes `text` to the child's stdin in newline-aligned chunks, honouring backpressure.
 * A child that exits early (an error on line 1 of a 30 MB text) closes the pipe: the
 * write errors (EPIPE) are expected and dropped, the exit code tells what happened.
 */
export async function feed(stdin: Writable, text: string): Promise<void> {
  stdin.on('error', () => undefined);
  let at = 0;
  while (at < text.length) {
    if (stdin.destroyed) return;
    let end = Math.min(text.length, at + STDIN_CHUNK);
    if (end < text.length) {
      // Cutting at a newline never splits a UTF-16 surrogate pair.
      const newline = text.lastIndexOf('\n', end - 1);
      if (newline >= at) end = newline + 1;
    }
    const more = stdin.write(text.slice(at, end));
    at = end;
    if (!more) await drained(stdin);
  }
  if (!stdin.destroyed) stdin.end();
}

function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}
