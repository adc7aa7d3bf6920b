/**
 * `createFakePort`: an {@link IpsetPort} over a {@link FakeKernel}, behaving like the
 * Linux port (`ipset -exist restore`, `save`, `list -n`, `list -t`), with optional
 * latency and the kernel's `hang` fault honoured through `AbortSignal`.
 */
import { type AbortSignalLike, type CommandResult, type IpsetPort, IpsetsError, type PortCallOptions } from '@ipsets/core';
import type { FakeKernel } from './fake-kernel.js';

/** Options of {@link createFakePort}. */
export interface FakePortOptions {
  /**
   * Awaited before every call (latency injection), e.g.
   * `(op) => new Promise((r) => setTimeout(r, 5))`. Receives the operation name.
   */
  delay?: (op: 'restore' | 'save' | 'listNames' | 'listHeaders') => Promise<void>;
  /** Run restores with `-exist` (default true, like the real port). */
  exist?: boolean;
}

function abortError(signal: AbortSignalLike, op: string): IpsetsError {
  return new IpsetsError('ABORTED', `fake ipset ${op} was aborted`, { cause: signal.reason });
}

/** A port over a fake kernel. Non-zero exit codes resolve; only aborts reject. */
export function createFakePort(kernel: FakeKernel, options: FakePortOptions = {}): IpsetPort {
  const exist = options.exist ?? true;
  async function run(
    op: 'restore' | 'save' | 'listNames' | 'listHeaders',
    call: PortCallOptions | undefined,
    body: () => CommandResult,
  ): Promise<CommandResult> {
    const signal = call?.signal;
    if (signal?.aborted) throw abortError(signal, op);
    if (options.delay !== undefined) await options.delay(op);
    if (signal?.aborted) throw abortError(signal, op);
    if (op === 'restore' && kernel.takeHang()) {
      return new Promise<CommandResult>((_resolve, reject) => {
        // A hung ipset only ends when killed; without a signal the promise stays pending.
        signal?.addEventListener('abort', () => reject(abortError(signal, op)), { once: true });
      });
    }
    return body();
  }
  return {
    restore: (text, call) => run('restore', call, () => kernel.restore(text, { exist })),
    save: (call) => run('save', call, () => kernel.save()),
    listNames: (call) => run('listNames', call, () => kernel.listNames()),
    listHeaders: (call) => run('listHeaders', call, () => kernel.listHeaders()),
  };
}
