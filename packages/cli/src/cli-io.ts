/**
 * What a command may touch: its output streams, environment, working folder and
 * clock. `bin.ts` passes the process's; tests pass their own.
 */
import { isIpsetsError } from '@ipsets/core';
import { colorEnabled, createStyle } from './style.js';
import type { Style } from './style.js';

/** A writable text stream (process.stdout fits). */
export interface OutStream {
  readonly isTTY?: boolean;
  /** Returns `false` when the stream's buffer is full (then wait for `drain`, if it has `once`). */
  write(text: string): unknown;
  /** A Node stream's events: long outputs wait for `drain` after a full buffer. */
  once?(event: 'drain' | 'error' | 'close', listener: (...args: any[]) => void): unknown;
  /** Removes a listener set with {@link OutStream.once}. */
  off?(event: 'drain' | 'error' | 'close', listener: (...args: any[]) => void): unknown;
}

/** The world a command runs in. */
export interface CliIo {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Milliseconds, monotonic enough for durations. */
  now(): number;
}

/** The process's streams, environment and folder. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    now: () => performance.now(),
  };
}

/** Exit codes of every command. */
export const EXIT = {
  /** Done; for apply: converged. */
  ok: 0,
  /** Apply did not converge, the demo's check failed, or the kernel could not be used. */
  failed: 1,
  /** Bad input: a bad file, option or argument (or a refused empty desired state). Nothing was changed. */
  badInput: 2,
  /** Converged except owned sets the kernel still references (in use). */
  inUse: 3,
  /** Another writer holds the kernel lock and `--wait` ran out. */
  lockHeld: 4,
  /** Agent: the consecutive-failure limit was reached (the supervisor should restart it). */
  tooManyFailures: 5,
  /** `diff --exit-code`: the kernel could not be read, so whether it differs is unknown (kubectl diff's "more than 1"). */
  diffKernelUnreadable: 6,
} as const;

/** Style for stdout under the io's environment. */
export function stdoutStyle(io: CliIo): Style {
  return createStyle(colorEnabled(io.stdout, io.env));
}

/** Style for stderr under the io's environment. */
export function stderrStyle(io: CliIo): Style {
  return createStyle(colorEnabled(io.stderr, io.env));
}

/** Error codes that mean the user's input was bad (exit 2). */
const INPUT_CODES = new Set([
  'INVALID_INPUT',
  'INVALID_ARGUMENT',
  'INVALID_MEMBER',
  'INVALID_SET_NAME',
  'INVALID_SET_TYPE',
  'KERNEL_NAME_COLLISION',
  'INVALID_REFERENCE',
]);

/** Most an error report writes to stderr: a hostile file's report stays readable (and cheap). */
export const MAX_ERROR_BYTES = 64 * 1024;

/** Longest line of an error report (the problems of a bad file are one per line). */
const MAX_ERROR_LINE = 4096;

/**
 * Bounds an error text: each line cut to {@link MAX_ERROR_LINE} characters, the whole
 * to about {@link MAX_ERROR_BYTES} (first lines in full, then how many were left out).
 */
export function boundErrorText(text: string, maxBytes = MAX_ERROR_BYTES): string {
  const out: string[] = [];
  let bytes = 0;
  let start = 0;
  let lines = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let line = text.slice(start, Math.min(end, start + MAX_ERROR_LINE));
    if (end - start > MAX_ERROR_LINE) line += `… (line cut, ${end - start} characters)`;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes - 200) {
      let rest = 0;
      for (let i = start; i !== -1 && i < text.length; i = text.indexOf('\n', i + 1)) rest++;
      out.push(`… (${rest} more line(s) of this report left out)`);
      break;
    }
    out.push(line);
    bytes += size;
    lines++;
    start = end + 1;
  }
  return out.join('\n');
}

/** Options of {@link reportError}. */
export interface ReportErrorOptions {
  /** Print the stack of an unexpected error (the global `--debug` option). */
  debug?: boolean;
}

/**
 * Prints an error the way the command reports it and returns the exit code it maps to.
 * An `IpsetsError` is its message (bounded); anything else is an internal error: one
 * line, and the stack only with `--debug`. No input can make this print a stack trace.
 */
export function reportError(io: CliIo, error: unknown, options: ReportErrorOptions = {}): number {
  const s = stderrStyle(io);
  if (isIpsetsError(error)) {
    io.stderr.write(`${s.red('ipsets: error')}: ${boundErrorText(error.message)}\n`);
    if (options.debug === true && error.stack !== undefined) io.stderr.write(`${boundErrorText(error.stack)}\n`);
    return INPUT_CODES.has(error.code) ? EXIT.badInput : EXIT.failed;
  }
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  const first = (message.split('\n', 1)[0] ?? '').slice(0, 500);
  io.stderr.write(
    `${s.red('ipsets: internal error')}: ${name}: ${first}${options.debug === true ? '' : ' (a bug in ipsets: rerun with --debug for the stack trace, and report it)'}\n`,
  );
  if (options.debug === true && error instanceof Error && error.stack !== undefined) io.stderr.write(`${boundErrorText(error.stack)}\n`);
  return EXIT.failed;
}
