/**
 * The two kernel reads of a reconcile, started together and early: `ipset save` and
 * `ipset list -t` run in their own processes while this one still builds the desired
 * state, and the calls that ask for them next get the answers already under way.
 *
 * Only what the caller does inside the kernel lock may use this: a read started before
 * the lock could see a state that another writer then changes.
 */
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';

/**
 * Starts `port.save()` and `port.listHeaders()` now (with `options`, whose signal then
 * aborts them) and returns a port that answers from them: the first `save()`, and
 * every `listHeaders()` until the first `restore()` (the destroy budget and the
 * reconcile read the same headers; nothing changed the kernel between them). Every
 * later call, every call with another signal (the prefetched one cannot honour it)
 * and every other call goes to `port`. A prefetched read that fails fails each call
 * that takes it, never earlier (no unhandled rejection when nobody takes it).
 */
export function prefetchReads(port: IpsetPort, options?: PortCallOptions): IpsetPort {
  const signal = options?.signal;
  let save: Promise<CommandResult> | undefined = port.save(options);
  let headers: Promise<CommandResult> | undefined = port.listHeaders(options);
  // Handled here so that a read nobody takes (a refused empty file, say) is no crash; the taker still sees the rejection.
  save.catch(() => undefined);
  headers.catch(() => undefined);
  const served = (call: PortCallOptions | undefined): boolean => call?.signal === undefined || call.signal === signal;
  return {
    restore: (text, call) => {
      // From here on the kernel changes: no header read is answered from before.
      headers = undefined;
      save = undefined;
      return port.restore(text, call);
    },
    listNames: (call) => port.listNames(call),
    save: (call?: PortCallOptions) => {
      const ready = served(call) ? save : undefined;
      save = undefined;
      return ready ?? port.save(call);
    },
    listHeaders: (call?: PortCallOptions) => (served(call) ? headers : undefined) ?? port.listHeaders(call),
  };
}
