/**
 * Ports made from ports: the CLI adds behaviour around a kernel's calls (a progress
 * line, the flag names in a timeout, a record of each restore) without writing the
 * forwarding of the other calls again each time.
 */
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';

/** The calls of a port. */
export type PortCall = 'restore' | 'save' | 'listNames' | 'listHeaders';

/**
 * `port` with its restore replaced by `restore` (which may call the original) and
 * every read forwarded unchanged. Own properties of `port` are kept.
 */
export function withRestore(port: IpsetPort, restore: (text: string, options?: PortCallOptions) => Promise<CommandResult>): IpsetPort {
  return {
    ...port,
    restore,
    save: (o?: PortCallOptions) => port.save(o),
    listNames: (o?: PortCallOptions) => port.listNames(o),
    listHeaders: (o?: PortCallOptions) => port.listHeaders(o),
  };
}

/** `port` with every call run through `around` (`call` is the original call). */
export function aroundEveryCall(port: IpsetPort, around: (what: PortCall, call: () => Promise<CommandResult>) => Promise<CommandResult>): IpsetPort {
  return {
    restore: (text, o) => around('restore', () => port.restore(text, o)),
    save: (o) => around('save', () => port.save(o)),
    listNames: (o) => around('listNames', () => port.listNames(o)),
    listHeaders: (o) => around('listHeaders', () => port.listHeaders(o)),
  };
}
