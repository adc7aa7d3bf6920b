/**
 * One `ipset list -t` per apply: `ipsets apply` and every tick of `ipsets agent` read
 * the kernel's headers once (the destroy budget and the reconcile share the answer),
 * counted on the port the fake kernel hands out.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { IpsetPort } from '@ipsets/core';
import { applyCommand } from '../../../src/commands/apply.js';
import { agentDir, applied, shop, start, testIo, useTempAgentDir } from '../../helpers/agent-harness.js';

const calls = vi.hoisted(() => ({ listHeaders: 0, save: 0, restore: 0 }));

vi.mock('@ipsets/fake-kernel', async (importOriginal) => {
  const original = await importOriginal<typeof import('@ipsets/fake-kernel')>();
  return {
    ...original,
    createFakePort: (...args: Parameters<typeof original.createFakePort>): IpsetPort => {
      const port = original.createFakePort(...args);
      return {
        restore: (text, options) => (calls.restore++, port.restore(text, options)),
        save: (options) => (calls.save++, port.save(options)),
        listNames: (options) => port.listNames(options),
        listHeaders: (options) => (calls.listHeaders++, port.listHeaders(options)),
      };
    },
  };
});

useTempAgentDir();
beforeEach(() => {
  calls.listHeaders = 0;
  calls.save = 0;
  calls.restore = 0;
});

describe('kernel header reads', () => {
  it('ipsets apply reads list -t once (the destroy budget and the reconcile share it)', async () => {
    await writeFile(join(agentDir.path, 'd.yaml'), shop('10.0.0.1'));
    const t = testIo();
    expect(await applyCommand('d.yaml', { kernel: 'fake', logFormat: 'json', handleSignals: false }, t.io)).toBe(0);
    expect(calls.restore).toBe(1);
    expect(calls.save).toBe(1);
    expect(calls.listHeaders).toBe(1);
  });

  it('one agent tick reads list -t once', async () => {
    await writeFile(join(agentDir.path, 'd.yaml'), shop('10.0.0.1'));
    const t = testIo();
    const { stop, done } = start('d.yaml', t, { noMetrics: true });
    await t.waitFor(applied('start'), { fromStart: true });
    expect(calls.restore).toBe(1);
    expect(calls.save).toBe(1);
    expect(calls.listHeaders).toBe(1);
    stop('test');
    expect(await done).toBe(0);
  });
});
