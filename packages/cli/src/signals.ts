/**
 * Stopping on SIGTERM/SIGINT without dying mid-restore. The listeners are persistent
 * (`process.on`, not `once`): execa's exit hook re-raises a signal when it sees no
 * listener but its own, which killed `ipsets apply` and the agent at once (exit
 * 143/130, nothing logged, sets half-filled). The first signal asks the command to
 * stop; a second one forces the exit.
 */
import { IpsetsError } from '@ipsets/core';
import type { AbortSignalLike, IpsetPort, PortCallOptions } from '@ipsets/core';
import { wrapPort } from './port-wrap.js';
import type { PortCommand } from './port-wrap.js';

/** The signals a command stops on. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** One of {@link STOP_SIGNALS}. */
export type StopSignalName = (typeof STOP_SIGNALS)[number];

const SIGNAL_NUMBER: Readonly<Record<StopSignalName, number>> = { SIGINT: 2, SIGTERM: 15 };

/** What a process that can be asked to stop needs. */
export interface StopListener {
  /** Resolves with the first signal's name. */
  readonly stopped: Promise<string>;
  /** The first signal, once one arrived. */
  readonly signal: string | undefined;
  /** Removes the listeners (after the command's work is done). */
  dispose(): void;
}

/** Options of {@link listenForStop}. */
export interface ListenForStopOptions {
  /** Called on the first signal. */
  onStop?: (signal: StopSignalName) => void;
  /** Called on the second signal, just before the process exits with 128 + its number. */
  onForce?: (signal: StopSignalName) => void;
  /** The process (tests pass their own emitter). */
  target?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** How a forced stop ends (default `process.exit`). */
  exit?: (code: number) => void;
}

/** Installs persistent SIGTERM/SIGINT listeners (see the module comment). */
export function listenForStop(options: ListenForStopOptions = {}): StopListener {
  const target = options.target ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let first: string | undefined;
  const { promise: stopped, resolve } = Promise.withResolvers<string>();
  const handlers = STOP_SIGNALS.map((name) => {
    const handler = (): void => {
      if (first === undefined) {
        first = name;
        options.onStop?.(name);
        resolve(name);
        return;
      }
      options.onForce?.(name);
      exit(128 + SIGNAL_NUMBER[name]);
    };
    target.on(name, handler);
    return [name, handler] as const;
  });
  return {
    stopped,
    get signal() {
      return first;
    },
    dispose() {
      for (const [name, handler] of handlers) target.off(name, handler);
    },
  };
}

const COMMAND_LABEL: Readonly<Record<PortCommand, string>> = {
  restore: 'ipset restore',
  save: 'ipset save',
  listNames: 'ipset list -n',
  listHeaders: 'ipset list -t',
};

/** A port whose calls can be stopped: new calls refused, calls in flight aborted. */
export interface StoppablePort extends IpsetPort {
  /** From now on every new call rejects with `ABORTED` (the call in flight runs on). */
  refuseNewCalls(why: string): void;
  /** Aborts the calls in flight (their `ipset` is killed). */
  abortInFlight(why: string): void;
  /** Resolves when no call is in flight. */
  settled(): Promise<void>;
  /** True while a call runs. */
  readonly busy: boolean;
}

/**
 * Wraps `port` so that a stop lets the restore in flight finish and starts no other:
 * the session then ends with an `ABORTED` report naming what did not reach the kernel.
 */
export function stoppablePort(port: IpsetPort): StoppablePort {
  let refused: string | undefined;
  const controller = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const call = <T>(name: string, fn: (o: PortCallOptions) => Promise<T>, o?: PortCallOptions): Promise<T> => {
    if (refused !== undefined) return Promise.reject(new IpsetsError('ABORTED', `${name} was not started: ${refused}`));
    const outer = o?.signal;
    // Both the caller's signal and the stop's abort kill the child.
    let signal: AbortSignalLike = controller.signal;
    let unlink = (): void => {};
    if (outer !== undefined) {
      const both = new AbortController();
      const fire = (): void => both.abort(outer.aborted ? outer.reason : controller.signal.reason);
      if (outer.aborted || controller.signal.aborted) fire();
      outer.addEventListener('abort', fire, { once: true });
      controller.signal.addEventListener('abort', fire, { once: true });
      unlink = () => {
        outer.removeEventListener('abort', fire);
        controller.signal.removeEventListener('abort', fire);
      };
      signal = both.signal;
    }
    const run = fn({ ...o, signal });
    inFlight.add(run);
    const done = (): void => {
      inFlight.delete(run);
      unlink();
    };
    run.then(done, done);
    return run;
  };
  return {
    ...wrapPort(port, { around: (command, run, o) => call(COMMAND_LABEL[command], run, o) }),
    refuseNewCalls(why) {
      refused ??= why;
    },
    abortInFlight(why) {
      refused ??= why;
      controller.abort(new Error(why));
    },
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    get busy() {
      return inFlight.size > 0;
    },
  };
}
