/**
 * The Linux port: runs the real `ipset` binary (through execa, never a shell),
 * optionally inside a network namespace via `ip netns exec`.
 */
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { IpsetsError, quote } from '@ipsets/core';
import type { AbortSignalLike, CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';
import { heldLockDescriptors } from './held-locks.js';
import { BoundedText, StdoutPieces, stageRestoreText, trackChild } from './ipset-child.js';
import type { StagedText } from './ipset-child.js';
import { effectiveUid } from './private-dir.js';
import { DEFAULT_READ_TIMEOUT_MS, DEFAULT_RESTORE_TIMEOUT_MS } from './defaults.js';

/** Options of {@link createLinuxPort}. */
export interface LinuxPortOptions {
  /** The `ipset` executable: a name looked up on `PATH` or a path (default `ipset`). */
  ipsetPath?: string;
  /** Run every command inside this network namespace (`ip netns exec NAME ipset …`). */
  netns?: string;
  /** The `ip` executable used for `netns` (default `ip`). */
  ipPath?: string;
  /**
   * Kill an `ipset restore` that runs longer than this (milliseconds) and reject with a
   * `TIMEOUT` {@link IpsetsError}. Default {@link DEFAULT_RESTORE_TIMEOUT_MS} (5 min);
   * `Infinity` turns it off.
   */
  restoreTimeoutMs?: number;
  /**
   * The same for the reads `ipset save`, `list -n` and `list -t`. Default
   * {@link DEFAULT_READ_TIMEOUT_MS} (1 min); `Infinity` turns it off.
   */
  readTimeoutMs?: number;
  /** One timeout for every command: the default of both `restoreTimeoutMs` and `readTimeoutMs`. */
  timeoutMs?: number;
  /**
   * The folder each restore text is written to, completely, before ipset starts (it
   * reads the file as its stdin; the file's name is removed before ipset starts).
   * Made 0700 when missing; refused when it is a link, another user's, or cannot be
   * made private. Default {@link DEFAULT_RESTORE_DIR} for root, else
   * `<tmpdir>/ipsets-restore-<uid>`.
   */
  restoreDir?: string;
  /**
   * The most bytes `ipset save`, `list -n` or `list -t` may print (default
   * {@link DEFAULT_MAX_OUTPUT_BYTES}, 256 MiB); past it the read is stopped and rejects
   * with `KERNEL_READ_FAILED` naming this option.
   */
  maxOutputBytes?: number;
  /** Extra environment variables for the child (merged over `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** After a kill (timeout/abort), send SIGKILL if the child has not exited within this delay (default 2000 ms). */
  forceKillAfterMs?: number;
  /**
   * How error messages name each option when they say which one to set (default: the
   * option's own name, e.g. `or set ipsetPath`). A command line passes its flags
   * (`{ ipsetPath: '--ipset', restoreTimeoutMs: '--timeout' }`), so its users read the
   * flag they can type.
   */
  optionNames?: Readonly<Partial<Record<LinuxPortOptionName, string>>>;
}

/** The options of {@link LinuxPortOptions} that error messages may tell the caller to set. */
export type LinuxPortOptionName = 'ipsetPath' | 'ipPath' | 'netns' | 'timeoutMs' | 'restoreTimeoutMs' | 'readTimeoutMs' | 'maxOutputBytes';

/** Where root's restore texts are staged (see {@link LinuxPortOptions.restoreDir}). */
export const DEFAULT_RESTORE_DIR = '/run/ipsets/restore';

/**
 * Default limit of what one read prints (256 MiB): about 4 million members at ~60 bytes a
 * save line, and well below the longest string Node can hold (~512 MiB).
 */
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** How much of ipset's stderr a result keeps: its first 8 KiB and last 2 KiB, and a count of the rest. */
export const STDERR_HEAD_BYTES = 8 * 1024;
export const STDERR_TAIL_BYTES = 2 * 1024;


// setTimeout fires at once for delays past 2^31-1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Which port command a run belongs to (for errors and logs). */
type PortCommand = 'restore' | 'save' | 'listNames' | 'listHeaders';

const ARGS: Readonly<Record<PortCommand, readonly string[]>> = {
  restore: ['-exist', 'restore'],
  save: ['save'],
  listNames: ['list', '-n'],
  listHeaders: ['list', '-t'],
};

const NETNS_MISSING = /^Cannot open network namespace "([^"]*)": (.*)$/m;
const EXEC_FAILED = /^exec of "([^"]*)" failed: (.*)$/m;
const NOT_PERMITTED = /Kernel error received: Operation not permitted|^setting the network namespace "[^"]*" failed: Operation not permitted|^mount --make-[a-z]+ \S+ failed: Operation not permitted/m;

/**
 * Creates an {@link IpsetPort} over the real `ipset` binary.
 *
 * - `restore(text)` writes `text` completely to a private file (see `restoreDir`) and
 *   runs `ipset -exist restore` with that file as its stdin (never argv, so 30 MB texts
 *   are fine): ipset never reads a partial text, even if this process dies meanwhile.
 * - Every child inherits the kernel locks this process holds, so a lock outlives a
 *   writer that dies while its ipset still runs.
 * - A result's `stderr` keeps at most its first 8 KiB and last 2 KiB.
 * - `save()` runs `ipset save`, `listNames()` `ipset list -n`, `listHeaders()` `ipset list -t`.
 * - Non-zero exit codes resolve with the {@link CommandResult}: they are data for the
 *   recovery session. A child killed by a signal resolves with `signal` set and
 *   `exitCode` 128 + the signal number (as a shell reports it).
 * - Rejects with an {@link IpsetsError} only when the command could not run:
 *   `TIMEOUT` (past `restoreTimeoutMs` / `readTimeoutMs`, on by default) / `ABORTED`
 *   (the child is killed), or `IPSET_UNAVAILABLE` (binary
 *   missing or not executable, not permitted, unknown network namespace).
 */
export function createLinuxPort(options: LinuxPortOptions = {}): IpsetPort {
  const ipsetPath = options.ipsetPath ?? 'ipset';
  const ipPath = options.ipPath ?? 'ip';
  const { netns, env } = options;
  const nameOf = (option: LinuxPortOptionName): string => options.optionNames?.[option] ?? option;
  const forceKillAfterMs = options.forceKillAfterMs ?? 2000;
  for (const [key, value] of [['ipsetPath', ipsetPath], ['ipPath', ipPath]] as const) {
    if (value === '' || value.includes('\0')) {
      throw new IpsetsError('INVALID_ARGUMENT', `${nameOf(key)} ${quote(value)} is not usable; expected a command name or a path`, {
        details: { [key]: value },
      });
    }
  }
  if (netns !== undefined) checkNetnsName(netns);
  for (const key of ['timeoutMs', 'restoreTimeoutMs', 'readTimeoutMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(typeof value === 'number' && value > 0 && (value <= MAX_TIMER_MS || value === Infinity))) {
      throw new IpsetsError('INVALID_ARGUMENT', `${key} ${quote(value)} is not allowed; expected a positive number of milliseconds (at most ${MAX_TIMER_MS}) or Infinity`, {
        details: { [key]: value },
      });
    }
  }
  // Which option set each limit, so a TIMEOUT names the knob to turn.
  const limit = (specific: 'restoreTimeoutMs' | 'readTimeoutMs', fallback: number): { ms: number; option: string } =>
    options[specific] !== undefined
      ? { ms: options[specific], option: nameOf(specific) }
      : options.timeoutMs !== undefined
        ? { ms: options.timeoutMs, option: nameOf('timeoutMs') }
        : { ms: fallback, option: nameOf(specific) };
  const restoreLimit = limit('restoreTimeoutMs', DEFAULT_RESTORE_TIMEOUT_MS);
  const readLimit = limit('readTimeoutMs', DEFAULT_READ_TIMEOUT_MS);
  const limits: Readonly<Record<PortCommand, { ms: number; option: string }>> = {
    restore: restoreLimit,
    save: readLimit,
    listNames: readLimit,
    listHeaders: readLimit,
  };
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (!(Number.isSafeInteger(maxOutputBytes) && maxOutputBytes > 0)) {
    throw new IpsetsError('INVALID_ARGUMENT', `maxOutputBytes ${quote(maxOutputBytes)} is not allowed; expected a positive whole number of bytes`, {
      details: { maxOutputBytes },
    });
  }
  const uid = effectiveUid();
  const restoreDir = options.restoreDir ?? (uid === 0 || uid === undefined ? DEFAULT_RESTORE_DIR : join(tmpdir(), `ipsets-restore-${uid}`));
  if (typeof restoreDir !== 'string' || restoreDir === '' || restoreDir.includes('\0')) {
    throw new IpsetsError('INVALID_ARGUMENT', `restoreDir ${quote(restoreDir)} is not usable; expected a folder path`, { details: { restoreDir } });
  }
  if (!(Number.isFinite(forceKillAfterMs) && forceKillAfterMs > 0)) {
    throw new IpsetsError('INVALID_ARGUMENT', `forceKillAfterMs ${quote(forceKillAfterMs)} is not a positive number of milliseconds`);
  }

  const file = netns === undefined ? ipsetPath : ipPath;
  const prefix = netns === undefined ? [] : ['netns', 'exec', netns, ipsetPath];
  const where = netns === undefined ? '' : ` in network namespace ${quote(netns)}`;

  const run = async (command: PortCommand, input: string | undefined, call: PortCallOptions = {}): Promise<CommandResult> => {
    const args = [...prefix, ...ARGS[command]];
    const display = [file, ...args].join(' ');
    const signal = call.signal;
    if (signal?.aborted === true) throw abortedError(command, display, signal, 'before it started');

    // One internal controller carries both the caller's signal and our timer to execa,
    // and `why` records which of them fired so the rejection says the right thing.
    const controller = new AbortController();
    let why: 'timeout' | 'abort' | undefined;
    const onAbort = (): void => {
      why ??= 'abort';
      controller.abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const { ms: timeoutMs, option: timeoutOption } = limits[command];
    const timer =
      timeoutMs === Infinity
        ? undefined
        : setTimeout(() => {
            why ??= 'timeout';
            controller.abort();
          }, timeoutMs);

    let staged: StagedText | undefined;
    try {
      // The whole text is on disk before ipset starts: it can only ever read all of it.
      if (input !== undefined) staged = await stageRestoreText(restoreDir, input);
      // (Staging awaited: the caller may have aborted meanwhile.)
      if (isAborted(signal)) throw abortedError(command, display, signal, 'before it started');
      // Numeric descriptors go to child_process as they are (execa checks them), though
      // execa's types list no numbers for stdio.
      const stdio = [staged?.fd ?? 'ignore', 'pipe', 'pipe', ...heldLockDescriptors()] as unknown as ['ignore', 'pipe', 'pipe'];
      // `save` with a taker: stdout is handed over as it arrives (the caller parses it
      // while ipset prints), never held whole here.
      const take = command === 'save' ? call.stdout : undefined;
      const subprocess = execa(file, args, {
        // Its own process group: a terminal's Ctrl-C (SIGINT to the foreground group)
        // reaches only us, and our stop logic decides (grace, then abort with a report).
        detached: true,
        // stdin: the staged file itself (the kernel's descriptor, not a pipe we feed);
        // fds 3…: the kernel locks we hold, so that they live as long as this child.
        stdio,
        buffer: { stdout: take === undefined, stderr: false },
        reject: false,
        stripFinalNewline: false,
        maxBuffer: { stdout: maxOutputBytes },
        cancelSignal: controller.signal,
        forceKillAfterDelay: forceKillAfterMs,
        ...(env === undefined ? {} : { env: { ...env } }),
      });
      // The child has its own descriptor now: ours can go.
      void staged?.dispose();
      const stderrText = new BoundedText(STDERR_HEAD_BYTES, STDERR_TAIL_BYTES);
      subprocess.stderr?.on('data', (chunk: Buffer) => stderrText.push(chunk));
      const pieces = take === undefined ? undefined : new StdoutPieces(take, maxOutputBytes, () => controller.abort());
      if (pieces !== undefined) {
        subprocess.stdout?.on('data', (chunk: Buffer) => pieces.push(chunk));
        subprocess.stdout?.on('end', () => pieces.end());
      }
      const untrack = trackChild(subprocess, controller.signal, forceKillAfterMs);
      const result = await subprocess.finally(untrack);
      const stderr = stderrText.text();
      if (pieces?.failed !== undefined) throw pieces.failed;
      const tooLong = result.isMaxBuffer || pieces?.tooLong === true;
      if (result.isCanceled && !tooLong) {
        if (why === 'timeout') {
          throw new IpsetsError(
            'TIMEOUT',
            `\`${display}\`${where} ran longer than ${timeoutOption} ${timeoutMs} ms and was killed; raise ${timeoutOption} if the kernel is just slow`,
            { details: { command, argv: [file, ...args], timeoutMs, stderr } },
          );
        }
        throw abortedError(command, display, signal, 'while it ran', stderr);
      }
      if (tooLong) {
        throw new IpsetsError(
          'KERNEL_READ_FAILED',
          `\`${display}\`${where} printed more than ${nameOf('maxOutputBytes')} ${maxOutputBytes} bytes and was stopped; raise ${nameOf('maxOutputBytes')} if the kernel really holds that much`,
          { details: { command, exitCode: null, signal: null, stderr } },
        );
      }
      const stdout = String(result.stdout ?? '');
      if (result.exitCode === undefined && result.signal === undefined) {
        throw spawnError(command, file, result.code, result.shortMessage ?? result.message, result.cause, {
          ipsetPath,
          ipPath,
          netns,
        }, nameOf);
      }
      if (result.exitCode !== 0) {
        const unavailable = unavailableFromStderr(command, stderr, { ipsetPath, netns, exitCode: result.exitCode }, nameOf);
        if (unavailable !== undefined) throw unavailable;
      }
      const streamed = pieces === undefined ? {} : { streamed: true };
      if (result.signal !== undefined) {
        const number = osConstants.signals[result.signal as keyof typeof osConstants.signals] ?? 0;
        return { exitCode: result.exitCode ?? 128 + number, stdout, stderr, signal: result.signal, ...streamed };
      }
      return { exitCode: result.exitCode ?? 0, stdout, stderr, ...streamed };
    } finally {
      await staged?.dispose();
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  };

  return {
    restore: (text, call) => run('restore', text, call),
    save: (call) => run('save', undefined, call),
    listNames: (call) => run('listNames', undefined, call),
    listHeaders: (call) => run('listHeaders', undefined, call),
  };
}

/**
 * Checks a network namespace name as `ip netns` accepts it (a file name under
 * /run/netns); the lock file of a namespace is named after it too.
 *
 * @internal shared with the kernel lock
 * @throws IpsetsError `INVALID_ARGUMENT`
 */
export function checkNetnsName(netns: string): void {
  if (typeof netns !== 'string' || !/^[^/\s\0]{1,255}$/.test(netns)) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `netns ${quote(netns)} is not a network namespace name; expected 1-255 characters without "/" or whitespace`,
      { details: { netns } },
    );
  }
}

function isAborted(signal: AbortSignalLike | undefined): boolean {
  return signal?.aborted === true;
}

function abortedError(
  command: PortCommand,
  display: string,
  signal: AbortSignalLike | undefined,
  when: string,
  stderr = '',
): IpsetsError {
  const reason = signal?.reason;
  const because = reason instanceof Error ? `: ${reason.message}` : reason === undefined ? '' : `: ${String(reason)}`;
  return new IpsetsError('ABORTED', `\`${display}\` was aborted ${when}${because}`, {
    cause: reason,
    details: { command, stderr },
  });
}

function spawnError(
  command: PortCommand,
  file: string,
  code: string | undefined,
  message: string | undefined,
  cause: unknown,
  ctx: { ipsetPath: string; ipPath: string; netns: string | undefined },
  nameOf: (option: LinuxPortOptionName) => string,
): IpsetsError {
  const viaIp = ctx.netns !== undefined;
  const what = viaIp ? `the \`ip\` binary ${quote(file)}` : `the ipset binary ${quote(file)}`;
  const fix = viaIp
    ? `install iproute2 (Debian: apt-get install iproute2) or pass ${nameOf('ipPath')}`
    : `install ipset (Debian: apt-get install ipset) or pass ${nameOf('ipsetPath')}`;
  const details = { command, file, code, ...ctx };
  if (code === 'ENOENT') {
    return new IpsetsError('IPSET_UNAVAILABLE', `${what} was not found; ${fix}`, { cause, details });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new IpsetsError(
      'IPSET_UNAVAILABLE',
      `${what} could not be executed (${code}); make it executable for this user or pass ${nameOf(viaIp ? 'ipPath' : 'ipsetPath')}`,
      { cause, details },
    );
  }
  return new IpsetsError(
    'IPSET_UNAVAILABLE',
    `${what} could not be started${code === undefined ? '' : ` (${code})`}: ${firstLine(message ?? 'unknown error')}`,
    { cause, details },
  );
}

function unavailableFromStderr(
  command: PortCommand,
  stderr: string,
  ctx: { ipsetPath: string; netns: string | undefined; exitCode: number | undefined },
  nameOf: (option: LinuxPortOptionName) => string,
): IpsetsError | undefined {
  const details = { command, stderr, ...ctx };
  const netns = NETNS_MISSING.exec(stderr);
  if (netns !== null) {
    return new IpsetsError(
      'IPSET_UNAVAILABLE',
      `network namespace ${quote(netns[1])} cannot be opened (${netns[2]}); create it with \`ip netns add ${netns[1]}\` or fix ${nameOf('netns') === 'netns' ? 'the netns option' : nameOf('netns')}`,
      { details },
    );
  }
  const exec = EXEC_FAILED.exec(stderr);
  if (exec !== null) {
    const missing = /No such file/.test(exec[2] ?? '');
    return new IpsetsError(
      'IPSET_UNAVAILABLE',
      missing
        ? `the ipset binary ${quote(exec[1])} was not found inside network namespace ${quote(ctx.netns)}; install ipset (Debian: apt-get install ipset) or pass ${nameOf('ipsetPath')}`
        : `the ipset binary ${quote(exec[1])} could not be executed inside network namespace ${quote(ctx.netns)} (${exec[2]}); check its permissions or pass ${nameOf('ipsetPath')}`,
      { details },
    );
  }
  if (NOT_PERMITTED.test(stderr)) {
    return new IpsetsError(
      'IPSET_UNAVAILABLE',
      `not permitted to manage ipsets (${quote(firstLine(stderr))}); run as root or grant CAP_NET_ADMIN${ctx.netns === undefined ? '' : ' (and CAP_SYS_ADMIN for ip netns exec)'}`,
      { details },
    );
  }
  return undefined;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}
