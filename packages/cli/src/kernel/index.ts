/**
 * The kernel a command works on: the real one through `ipset` (`--kernel linux`, the
 * default, optionally inside a network namespace) or the embedded fake kernel with
 * its state in a file (`--kernel fake`). Every real kernel call has a timeout.
 */
import { resolve } from 'node:path';
import { IpsetsError, quote } from '@ipsets/core';
import type { IpsetPort } from '@ipsets/core';
import type { FakeKernel } from '@ipsets/fake-kernel';
import { DEFAULT_READ_TIMEOUT_MS, DEFAULT_RESTORE_TIMEOUT_MS, DEFAULT_STATE_FILE } from '../defaults.js';
import { loadFakeKernel, saveFakeKernel } from './fake-state-file.js';

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
 * How the Linux port's and the lock's messages name what to set: the command's flags
 * (a command line has no `ipsetPath` option to pass).
 */
export const CLI_OPTION_NAMES = {
  ipsetPath: '--ipset',
  ipPath: 'a PATH that has `ip`',
  netns: '--netns',
  timeoutMs: '--timeout',
  restoreTimeoutMs: '--timeout',
  readTimeoutMs: '--read-timeout',
  flockPath: 'a PATH that has `flock`',
} as const;

/**
 * Checks the kernel options on their own — which kernel, whether the options fit it,
 * a namespace name — without opening anything. Every command calls it before it takes
 * a lock or reads a kernel, so a bad flag is bad input (exit 2) whoever runs it, even
 * a user who could not take the lock.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an unknown kind or options that do not fit it.
 */
export async function checkKernelOptions(options: KernelOptions): Promise<'fake' | 'linux'> {
  const kind = options.kernel ?? 'linux';
  if (kind === 'fake') {
    if (options.netns !== undefined || options.ipset !== undefined) {
      throw new IpsetsError('INVALID_ARGUMENT', '--netns and --ipset need --kernel linux; the fake kernel keeps its state in --state');
    }
    return 'fake';
  }
  if (kind === 'linux') {
    if (options.state !== undefined) {
      throw new IpsetsError(
        'INVALID_ARGUMENT',
        `--state ${quote(options.state)} needs --kernel fake; the real kernel (the default) keeps its own state`,
      );
    }
    // The port checks its options when it is made, and runs nothing until it is called.
    makeLinuxPort(options, await import('@ipsets/exec-linux'));
    return 'linux';
  }
  throw new IpsetsError('INVALID_ARGUMENT', `unknown kernel ${quote(kind)}; expected fake or linux`);
}

function makeLinuxPort(options: KernelOptions, linux: typeof import('@ipsets/exec-linux')) {
  // Restores and reads get their own budgets: a restore of a million members is slow
  // and legitimate, a save that takes minutes is a hang.
  return linux.createLinuxPort({
    ...(options.ipset === undefined ? {} : { ipsetPath: options.ipset }),
    ...(options.netns === undefined ? {} : { netns: options.netns }),
    restoreTimeoutMs: options.timeoutMs ?? DEFAULT_RESTORE_TIMEOUT_MS,
    readTimeoutMs: options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
    optionNames: CLI_OPTION_NAMES,
  });
}

/**
 * Opens the kernel `options` name (after {@link checkKernelOptions}).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an unknown kind, options that do not fit
 *   it, or a state file that is not a fake kernel's state.
 */
export async function openKernel(options: KernelOptions, cwd = process.cwd()): Promise<KernelHandle> {
  const kind = await checkKernelOptions(options);
  if (kind === 'fake') {
    const path = resolve(cwd, options.state ?? DEFAULT_STATE_FILE);
    const fake = await loadFakeKernel(path);
    const { createFakePort } = await import('@ipsets/fake-kernel');
    return {
      kind: 'fake',
      port: createFakePort(fake),
      description: `fake kernel (state ${path})`,
      statePath: path,
      fake,
      persist: () => saveFakeKernel(path, fake),
    };
  }
  const port = makeLinuxPort(options, await import('@ipsets/exec-linux'));
  const where = options.netns === undefined ? 'default network namespace' : `netns ${options.netns}`;
  return {
    kind: 'linux',
    port,
    description: `linux kernel (${where})`,
    ...(options.netns === undefined ? {} : { netns: options.netns }),
    persist: async () => {},
  };
}
