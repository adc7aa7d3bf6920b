/**
 * `describeKernel`: a describe for suites that need the real kernel. Runs when
 * @ipsets/exec-linux's `kernelTestGate` says so, skips with a one-line reason
 * otherwise, and FAILS with that reason when `IPSETS_KERNEL_TESTS=require`.
 */
import { describe, it } from 'vitest';
import { kernelTestGate } from '@ipsets/exec-linux';
import type { KernelTestGate } from '@ipsets/exec-linux';

async function resolveGate(): Promise<KernelTestGate & { error?: Error }> {
  try {
    return await kernelTestGate();
  } catch (error) {
    return { run: false, reason: (error as Error).message, error: error as Error };
  }
}

/** The resolved gate (probed once per test file). */
export const kernelGate = await resolveGate();

/** `describe` for real-kernel suites (see the module comment). */
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
  console.warn(`[kernel tests skipped] ${kernelGate.reason}`);
  describe.skip(`${name} (skipped: ${kernelGate.reason})`, fn);
}
