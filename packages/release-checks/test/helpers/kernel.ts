/**
 * The real-kernel gate (kernelTestGate of @ipsets/exec-linux) as a vitest `describe`:
 * the suite runs when the kernel is usable, is skipped with a one-line reason
 * otherwise, and FAILS with that reason when `IPSETS_KERNEL_TESTS=require`.
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

const gate = await resolveGate();

/** `describe` for suites that need root, ipset and network namespaces. */
export function describeKernel(name: string, fn: () => void): void {
  if (gate.run) {
    describe(name, fn);
  } else if (gate.error !== undefined) {
    const { error } = gate;
    describe(name, () => {
      it('needs the real kernel', () => {
        throw error;
      });
    });
  } else {
    console.warn(`[kernel tests skipped] ${gate.reason}`);
    describe.skip(`${name} (skipped: ${gate.reason})`, fn);
  }
}
