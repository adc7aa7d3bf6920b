/**
 * The kernel a command works on: the real one through `ipset` (`--kernel linux`, the
 * default, optionally inside a network namespace) or the embedded fake kernel with
 * its state in a file (`--kernel fake`). Every real kernel call has a timeout.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { IpsetsError, isIpsetsError, quote } from '@ipsets/core';
import type { CommandResult, IpsetPort } from '@ipsets/core';
import type { FakeKernel } from '@ipsets/testing';
import { formatCount, formatDuration } from './format.js';
import { wrapPort } from './port-wrap.js';

/** Default name of the fake kernel's state file (in the working folder). */
export const DEFAULT_STATE_FILE = '.ipsets-state.json';

/** Kernel options shared by every command that needs a kernel. */
export interface KernelOptions {
  kernel?: string;
  /** Fake kernel: the state file. */
  state?: string;
  /** Linux: network namespace name (`ip netns exec NAME`). */
  netns?: string;
  /** Linux: path of the `ipset` binary. */
  ipset?: string;
  /** Linux: kill a restore that runs longer than this (ms; default {@link DEFAULT_RESTORE_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Linux: kill a save or list that runs longer than this (ms; default {@link DEFAULT_READ_TIMEOUT_MS}). */
  readTimeoutMs?: number;
}

/** Default restore timeout: 5 minutes (a 1M-member first apply takes seconds; a hang never ends). */
export const DEFAULT_RESTORE_TIMEOUT_MS = 5 * 60_000;
/** Default timeout of `ipset save` and `ipset list`: 1 minute. */
export const DEFAULT_READ_TIMEOUT_MS = 60_000;

/** An open kernel. */
export interface KernelHandle {
  readonly kind: 'fake' | 'linux';
  readonly port: IpsetPort;
  /** One line for people: `fake kernel (state …/.ipsets-state.json)`, `linux kernel (netns x)`. */
  readonly description: string;
  /** Linux: the network namespace (undefined: the process's own); fake: undefined. */
  readonly netns?: string;
  /** Fake: the state file's absolute path; undefined for linux. */
  readonly statePath?: string;
  /** Fake: the in-memory kernel (for the agent and tests); undefined for linux. */
  readonly fake?: FakeKernel;
  /** Writes the fake kernel's state back to its file (no-op for linux). */
  persist(): Promise<void>;
}

/**
 * Opens the kernel `options` name.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an unknown kind, options that do not fit
 *   it, or a state file that is not a fake kernel's state.
 */
export async function openKernel(options: KernelOptions, cwd = process.cwd()): Promise<KernelHandle> {
  const kind = options.kernel ?? 'linux';
  if (kind === 'fake') {
    if (options.netns !== undefined || options.ipset !== undefined) {
      throw new IpsetsError('INVALID_ARGUMENT', '--netns and --ipset need --kernel linux; the fake kernel keeps its state in --state');
    }
    const path = resolve(cwd, options.state ?? DEFAULT_STATE_FILE);
    const fake = await loadFakeKernel(path);
    const { createFakePort } = await import('@ipsets/testing');
    return {
      kind: 'fake',
      port: createFakePort(fake),
      description: `fake kernel (state ${path})`,
      statePath: path,
      fake,
      persist: () => saveFakeKernel(path, fake),
    };
  }
  if (kind === 'linux') {
    if (options.state !== undefined) {
      throw new IpsetsError(
        'INVALID_ARGUMENT',
        `--state ${quote(options.state)} needs --kernel fake; the real kernel (the default) keeps its own state`,
      );
    }
    const { createLinuxPort } = await import('@ipsets/exec-linux');
    const base = {
      ...(options.ipset === undefined ? {} : { ipsetPath: options.ipset }),
      ...(options.netns === undefined ? {} : { netns: options.netns }),
    };
    // Restores and reads get their own budgets: a restore of a million members is slow
    // and legitimate, a save that takes minutes is a hang.
    const linux = createLinuxPort({
      ...base,
      restoreTimeoutMs: options.timeoutMs ?? DEFAULT_RESTORE_TIMEOUT_MS,
      readTimeoutMs: options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
    });
    const port = wrapPort(linux, { around: (_command, run, o) => run(o).catch(withFlagNames) });
    const where = options.netns === undefined ? 'default network namespace' : `netns ${options.netns}`;
    return {
      kind: 'linux',
      port,
      description: `linux kernel (${where})`,
      ...(options.netns === undefined ? {} : { netns: options.netns }),
      persist: async () => {},
    };
  }
  throw new IpsetsError('INVALID_ARGUMENT', `unknown kernel ${quote(kind)}; expected fake or linux`);
}

/** A timeout names the library's option; people at the command line set the flag. */
function withFlagNames(error: unknown): never {
  if (isIpsetsError(error, 'TIMEOUT')) {
    const message = error.message.replace(/\brestoreTimeoutMs\b/g, '--timeout').replace(/\breadTimeoutMs\b/g, '--read-timeout');
    throw new IpsetsError('TIMEOUT', message, { cause: error.cause, details: error.details });
  }
  throw error;
}

/** Reads a fake kernel's state file; a missing file is an empty kernel. */
export async function loadFakeKernel(path: string): Promise<FakeKernel> {
  const { FakeKernel } = await import('@ipsets/testing');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new FakeKernel();
    throw new IpsetsError('INVALID_ARGUMENT', `cannot read fake kernel state ${quote(path)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    return FakeKernel.fromJSON(JSON.parse(text));
  } catch (error) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `${quote(path)} is not a fake kernel state file (${(error as Error).message}); expected the JSON that ipsets writes, or no file (an empty kernel)`,
      { cause: error },
    );
  }
}

/** Writes a fake kernel's state atomically (temp file + rename), so a reader never sees half a file. */
export async function saveFakeKernel(path: string, kernel: FakeKernel): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(kernel.toJSON()) + '\n');
  await rename(tmp, path);
}

/** A stream progress can be written to. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Wraps a port so that each restore shows a live line on `stream` (`restore 2:
 * 120,000 lines … 1.4 s`), cleared when it ends. Only when `stream` is a terminal:
 * a pipe or a log file gets nothing.
 */
export function withProgress(port: IpsetPort, stream: ProgressStream, now: () => number = Date.now): IpsetPort {
  if (stream.isTTY !== true) return port;
  let count = 0;
  return wrapPort(port, {
    async restore(text, o, next): Promise<CommandResult> {
      count += 1;
      let lines = 0;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
      const started = now();
      const label = `ipsets: restore ${count}: ${formatCount(lines)} lines`;
      const draw = () => stream.write(`\r\u001b[2K${label} … ${formatDuration(now() - started)}`);
      draw();
      const timer = setInterval(draw, 200);
      try {
        return await next(text, o);
      } finally {
        clearInterval(timer);
        stream.write('\r\u001b[2K');
      }
    },
  });
}
