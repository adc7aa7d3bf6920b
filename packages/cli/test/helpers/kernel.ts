/**
 * The real-kernel gate (`kernelTestGate` of `@ipsets/exec-linux/testing`) as a vitest
 * `describe`: the suite runs when the kernel is usable, is skipped with a one-line
 * reason otherwise, and FAILS with that reason when `IPSETS_KERNEL_TESTS=require`.
 */
import { describe, it } from 'vitest';
import { kernelTestGate } from '@ipsets/exec-linux/testing';
import type { KernelTestGate } from '@ipsets/exec-linux/testing';

async function resolveGate(): Promise<KernelTestGate & { error?: Error }> {
  try {
    return await kernelTestGate();
  } catch (error) {
    return { run: false, reason: (error as Error).message, error: error as Error };
  }
}

/** The resolved gate (probed once per test file). */
export const kernelGate = await resolveGate();

let announced = false;

/** `describe` for suites that need root, ipset and network namespaces. */
export function describeKernel(name: string, fn: () => void): void {
  if (kernelGate.run) {
    describe(name, fn);
    return;
  }
  const { error } = kernelGate;
  if (error !== undefined) {
    describe(name, () => {
      it('needs the real kernel', () => {
        throw error;
      });
    });
    return;
  }
  if (!announced) {
    announced = true;
    console.warn(`[kernel tests skipped] ${kernelGate.reason}`);
  }
  describe.skip(`${name} (skipped: ${kernelGate.reason})`, fn);
}
