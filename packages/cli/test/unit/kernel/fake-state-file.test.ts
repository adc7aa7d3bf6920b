import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { loadFakeKernel, saveFakeKernel } from '../../../src/kernel/fake-state-file.js';
import { useTempDir } from '../../../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-kernel-');

describe('the fake kernel state file', () => {
  it('is an empty kernel when missing, and round-trips through save and load', async () => {
    const path = join(tempDir(), 'k.json');
    const kernel = await loadFakeKernel(path);
    expect(kernel.setNames()).toEqual([]);
    kernel.restore('create a hash:net\nadd a 10.0.0.0/8\n');
    await saveFakeKernel(path, kernel);
    const again = await loadFakeKernel(path);
    expect(again.save().stdout).toBe(kernel.save().stdout);
  });

  it('refuses a file that is not a state file, naming it', async () => {
    const path = join(tempDir(), 'k.json');
    await writeFile(path, '{"format": "something-else"}');
    const error = await loadFakeKernel(path).catch((e: unknown) => e);
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('is not a fake kernel state file');
  });

});
