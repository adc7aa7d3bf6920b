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
  write(text: string): unknown;
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
  /** Bad input: a bad file, option or argument. Nothing was changed. */
  badInput: 2,
  /** Converged except owned sets the kernel still references (in use). */
  inUse: 3,
  /** Another writer holds the kernel lock and `--wait` ran out. */
  lockHeld: 4,
  /** Agent: the consecutive-failure limit was reached (the supervisor should restart it). */
  tooManyFailures: 5,
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

/** Prints an error the way the command reports it and returns the exit code it maps to. */
export function reportError(io: CliIo, error: unknown): number {
  const s = stderrStyle(io);
  if (isIpsetsError(error)) {
    io.stderr.write(`${s.red('ipsets: error')}: ${error.message}\n`);
    return INPUT_CODES.has(error.code) ? EXIT.badInput : EXIT.failed;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(`${s.red('ipsets: unexpected error')}: ${message}\n`);
  return EXIT.failed;
}
