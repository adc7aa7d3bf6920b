/**
 * A port that returns canned results in order and records every call (and every
 * restore text) it received. For unit tests of sessions and drivers.
 */
import type { CommandResult, IpsetPort, PortCallOptions } from '../../src/types.js';

/** One scripted answer: a result, a function of the input, or an error to reject with. */
export type Scripted = CommandResult | Error | ((text: string, options?: PortCallOptions) => CommandResult | Promise<CommandResult>);

/** Port methods a test can script. */
export type PortMethod = 'restore' | 'save' | 'listNames' | 'listHeaders';

/** One call the port received. */
export interface PortCall {
  method: PortMethod;
  /** Restore text (restore only). */
  text?: string;
  options?: PortCallOptions;
}

/** A scripted port: the {@link IpsetPort} plus what it saw. */
export interface ScriptedPort extends IpsetPort {
  /** Every call, in order. */
  readonly calls: PortCall[];
  /** Every restore text, in order. */
  readonly restores: string[];
  /** Appends answers for a method. */
  push(method: PortMethod, ...answers: Scripted[]): void;
}

/** `exitCode 0`, optional stdout. */
export function ok(stdout = ''): CommandResult {
  return { exitCode: 0, stdout, stderr: '' };
}

/** A failed run with `stderr` (a newline is appended if missing). */
export function fail(stderr: string, exitCode = 1): CommandResult {
  return { exitCode, stdout: '', stderr: stderr.endsWith('\n') ? stderr : `${stderr}\n` };
}

/** `ipset v7.17: Error in line N: <message>` with rc 1, as `ipset restore` prints it. */
export function lineError(n: number | string, message: string): CommandResult {
  return fail(`ipset v7.17: Error in line ${n}: ${message}`);
}

/** A run killed by `signal` (exit 128 + n as a shell would report, no stderr). */
export function killed(signal = 'SIGSEGV'): CommandResult {
  return { exitCode: signal === 'SIGSEGV' ? 139 : 137, stdout: '', stderr: '', signal };
}

/** Verbatim kernel/userspace messages (docs/ipset-semantics.md §3). */
export const MSG = {
  setMissing: 'The set with the given name does not exist',
  setExists: 'Set cannot be created: set with the same name already exists',
  inUse: 'Set cannot be destroyed: it is in use by a kernel component',
  memberMissing: 'Set to be added/deleted/tested as element does not exist.',
  hashFull: 'Hash is full, cannot add more elements',
  syntax: 'Syntax error: cannot parse 1.1.1.300: resolving to IPv4 address failed',
  busy: 'Kernel error received: Device or resource busy',
  elementExists: "Element cannot be added to the set: it's already added",
} as const;

/**
 * A port answering each method from its queue. With an empty queue, `restore`
 * succeeds and the read methods print nothing (exit 0) — unless `strict`, where an
 * unscripted call rejects with a plain Error (a test bug, not a port failure).
 */
export function createScriptedPort(
  script: Partial<Record<PortMethod, Scripted[]>> = {},
  options: { strict?: boolean } = {},
): ScriptedPort {
  const queues: Record<PortMethod, Scripted[]> = {
    restore: [...(script.restore ?? [])],
    save: [...(script.save ?? [])],
    listNames: [...(script.listNames ?? [])],
    listHeaders: [...(script.listHeaders ?? [])],
  };
  const calls: PortCall[] = [];
  const restores: string[] = [];

  async function answer(method: PortMethod, text: string, callOptions?: PortCallOptions): Promise<CommandResult> {
    const call: PortCall = { method };
    if (method === 'restore') {
      call.text = text;
      restores.push(text);
    }
    if (callOptions !== undefined) call.options = callOptions;
    calls.push(call);
    const next = queues[method].shift();
    if (next === undefined) {
      if (options.strict) throw new Error(`scripted port: unexpected ${method} call #${calls.length}`);
      return ok();
    }
    if (next instanceof Error) throw next;
    if (typeof next === 'function') return next(text, callOptions);
    return { ...next };
  }

  return {
    calls,
    restores,
    push(method, ...answers) {
      queues[method].push(...answers);
    },
    restore: (text, o) => answer('restore', text, o),
    save: (o) => answer('save', '', o),
    listNames: (o) => answer('listNames', '', o),
    listHeaders: (o) => answer('listHeaders', '', o),
  };
}
