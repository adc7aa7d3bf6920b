import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { kernelTestGate } from '../../src/netns.js';

const missing = async () => ({ available: false, reason: 'not running as root (uid 1000)' });
const present = async () => ({ available: true });

describe('kernelTestGate', () => {
  it('runs when the kernel is usable', async () => {
    await expect(kernelTestGate({ env: {}, probe: present })).resolves.toEqual({ run: true });
  });

  it('skips with the one-line reason when the kernel is not usable', async () => {
    await expect(kernelTestGate({ env: {}, probe: missing })).resolves.toEqual({
      run: false,
      reason: 'not running as root (uid 1000)',
    });
  });

  it('throws IPSET_UNAVAILABLE with the reason when IPSETS_KERNEL_TESTS=require', async () => {
    const error = await kernelTestGate({ env: { IPSETS_KERNEL_TESTS: 'require' }, probe: missing }).catch((e) => e);
    expect(isIpsetsError(error, 'IPSET_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain('not running as root (uid 1000)');
    expect((error as Error).message).toContain('IPSETS_KERNEL_TESTS=require');
  });

  it('does not throw when required and available', async () => {
    await expect(kernelTestGate({ env: { IPSETS_KERNEL_TESTS: 'require' }, probe: present })).resolves.toEqual({ run: true });
  });

  it('IPSETS_KERNEL_TESTS=skip skips without probing', async () => {
    let probed = false;
    const gate = await kernelTestGate({
      env: { IPSETS_KERNEL_TESTS: 'skip' },
      probe: async () => {
        probed = true;
        return { available: true };
      },
    });
    expect(gate.run).toBe(false);
    expect(gate.reason).toContain('IPSETS_KERNEL_TESTS=skip');
    expect(probed).toBe(false);
  });
});
