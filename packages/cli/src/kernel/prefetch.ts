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
  const stdout = new HeldStdout();
  let save: Promise<CommandResult> | undefined = port.save({ ...options, stdout: (piece) => stdout.push(piece) });
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
      return ready === undefined ? port.save(call) : stdout.serve(ready, call?.stdout);
    },
    listHeaders: (call?: PortCallOptions) => (served(call) ? headers : undefined) ?? port.listHeaders(call),
  };
}

/**
 * The prefetched save's stdout when the port hands it over as it arrives: held until
 * the call that takes the save comes, then handed to that call's own taker (what came
 * before first, the rest as it comes), or joined into its `stdout` if it has none.
 */
class HeldStdout {
  private held: string[] = [];
  private taker: ((piece: string) => void) | undefined;

  push(piece: string): void {
    if (this.taker !== undefined) this.taker(piece);
    else this.held.push(piece);
  }

  async serve(running: Promise<CommandResult>, taker: ((piece: string) => void) | undefined): Promise<CommandResult> {
    if (taker !== undefined) {
      const held = this.held;
      this.held = [];
      for (const piece of held) taker(piece);
      this.taker = taker;
    }
    const result = await running;
    if (result.streamed !== true || taker !== undefined) return result;
    const { streamed: _handedOver, ...rest } = result;
    const text = this.held.join('');
    this.held = [];
    return { ...rest, stdout: text };
  }
}
