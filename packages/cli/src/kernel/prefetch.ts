/**
 * The two kernel reads of a reconcile, started together and early: `ipset save` and
 * `ipset list -t` run in their own processes while this one still builds the desired
 * state, and the reconcile that asks for them next gets the answers already under way.
 *
 * Only what the caller does inside the kernel lock may use this: a read started before
 * the lock could see a state that another writer then changes.
 */
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';

/**
 * Starts `port.save()` and `port.listHeaders()` now and returns a port whose first
 * `save()` and first `listHeaders()` answer with them; every later call, every call
 * with a signal of its own (the prefetched one cannot honour it) and every other call
 * goes to `port`. A prefetched read that fails fails the call that takes it, never
 * earlier (no unhandled rejection when nobody takes it).
 */
export function prefetchReads(port: IpsetPort): IpsetPort {
  let save: Promise<CommandResult> | undefined = port.save();
  let headers: Promise<CommandResult> | undefined = port.listHeaders();
  // Handled here so that a read nobody takes (a refused empty file, say) is no crash; the taker still sees the rejection.
  save.catch(() => undefined);
  headers.catch(() => undefined);
  return {
    restore: (text, options) => port.restore(text, options),
    listNames: (options) => port.listNames(options),
    save: (options?: PortCallOptions) => {
      const ready = options?.signal === undefined ? save : undefined;
      save = undefined;
      return ready ?? port.save(options);
    },
    listHeaders: (options?: PortCallOptions) => {
      const ready = options?.signal === undefined ? headers : undefined;
      headers = undefined;
      return ready ?? port.listHeaders(options);
    },
  };
}
