import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import type { CommandResult, IpsetPort } from '@ipsets/core';
import { readKernel, readSaveText } from '../../../src/kernel/read-kernel.js';

const ok = (stdout: string): CommandResult => ({ exitCode: 0, stdout, stderr: '' });
const failed: CommandResult = { exitCode: 1, stdout: '', stderr: `ipset v7.17: Kernel error received: Operation not permitted\n${'x'.repeat(2000)}` };
const port = (save: CommandResult, headers: CommandResult): IpsetPort => ({
  restore: async () => ok(''),
  save: async () => save,
  listNames: async () => ok(''),
  listHeaders: async () => headers,
});

describe('reading a kernel for a plan', () => {
  it('parses the save and the headers', async () => {
    const { snapshot, headers } = await readKernel(
      port(ok('create a hash:net family inet hashsize 1024 maxelem 65536\nadd a 10.0.0.0/8\n'), ok('Name: a\nType: hash:net\nReferences: 2\nNumber of entries: 1\n')),
    );
    expect(JSON.parse(JSON.stringify(snapshot.sets))).toEqual([
      { name: 'a', type: 'hash:net', options: 'family inet hashsize 1024 maxelem 65536', createOptions: { family: 'inet', hashsize: '1024', maxelem: '65536' }, members: ['10.0.0.0/8'] },
    ]);
    expect(headers[0]).toMatchObject({ name: 'a', references: 2 });
  });

  // A failed read must never look like an empty kernel: planned against, it would create everything again.
  it('refuses a failed save or list with KERNEL_READ_FAILED, quoting at most 500 characters of stderr', async () => {
    for (const p of [port(failed, ok('')), port(ok(''), failed)]) {
      const error = await readKernel(p).catch((e: unknown) => e);
      expect(isIpsetsError(error, 'KERNEL_READ_FAILED')).toBe(true);
      expect((error as Error).message).toMatch(/^ipset (save|list -t) failed \(exit 1\): ipset v7\.17: Kernel error received/);
      expect((error as Error).message.length).toBeLessThan(600);
    }
    await expect(readSaveText(port(failed, ok('')))).rejects.toThrow(/ipset save failed/);
  });
});
