/**
 * One way to wrap an `IpsetPort`: the CLI changes ports in four places (flag names in
 * timeout messages, the terminal's progress line, stopping on a signal, the demo's
 * recording, the agent's port that follows the kernel reopened per apply), and each
 * used to forward the four calls by hand. A wrapper says only what it changes.
 */
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';

/** The four calls of an {@link IpsetPort}. */
export type PortCommand = 'restore' | 'save' | 'listNames' | 'listHeaders';

/** Makes one call on the target port. */
export type PortRun = (options?: PortCallOptions) => Promise<CommandResult>;

/** What {@link wrapPort} changes; whatever is left out forwards unchanged. */
export interface PortWrapper {
  /** Around every call (restore included): `run(options)` makes it on the target. */
  around?(command: PortCommand, run: PortRun, options: PortCallOptions | undefined): Promise<CommandResult>;
  /** Instead of the target's restore (inside `around`); `next` is the target's. */
  restore?(text: string, options: PortCallOptions | undefined, next: (text: string, options?: PortCallOptions) => Promise<CommandResult>): Promise<CommandResult>;
}

/**
 * A port that forwards to `target` (a port, or a function giving the current one at
 * each call) through `wrapper`.
 */
export function wrapPort(target: IpsetPort | (() => IpsetPort), wrapper: PortWrapper = {}): IpsetPort {
  const current = typeof target === 'function' ? target : () => target;
  const around = wrapper.around ?? ((_command: PortCommand, run: PortRun, options: PortCallOptions | undefined) => run(options));
  const restore = (text: string, options?: PortCallOptions): Promise<CommandResult> => {
    const port = current();
    return wrapper.restore === undefined ? port.restore(text, options) : wrapper.restore(text, options, (t, o) => port.restore(t, o));
  };
  return {
    restore: (text, options) => around('restore', (o) => restore(text, o), options),
    save: (options) => around('save', (o) => current().save(o), options),
    listNames: (options) => around('listNames', (o) => current().listNames(o), options),
    listHeaders: (options) => around('listHeaders', (o) => current().listHeaders(o), options),
  };
}
