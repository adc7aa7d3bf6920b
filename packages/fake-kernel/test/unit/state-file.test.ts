/**
 * The fake kernel's state file: a missing file is an empty kernel, a written kernel
 * reads back equal, a file that is not a state file is refused naming its path, and a
 * write replaces the file whole (a reader never sees half of one).
 */
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { FakeKernel } from '../../src/fake-kernel.js';
import { readStateFile, writeStateFile } from '../../src/state-file.js';
import { useTempDir } from '../../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-fake-state-');

describe('readStateFile / writeStateFile', () => {
  it('a missing file is an empty kernel; a written kernel reads back with the same save', async () => {
    const path = join(tempDir(), 'k.json');
    const kernel = await readStateFile(path);
    expect(kernel.setNames()).toEqual([]);
    kernel.restore('create a hash:net\nadd a 10.0.0.0/8\n');
    await writeStateFile(path, kernel);
    const again = await readStateFile(path);
    expect(again.save().stdout).toBe(kernel.save().stdout);
    expect(again.members('a')).toEqual(['10.0.0.0/8']);
  });

  it('creates the folders on the way and leaves no temporary file behind', async () => {
    const path = join(tempDir(), 'a', 'b', 'k.json');
    await writeStateFile(path, new FakeKernel());
    expect(await readdir(join(tempDir(), 'a', 'b'))).toEqual(['k.json']);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ format: 'ipsets-fake-kernel/1', slots: [] });
  });

  it('writes through a random O_EXCL temporary name: a link planted at a guessable name is never followed', async () => {
    // Defect pinned: the temporary file was `<state>.<pid>.tmp`; a link planted there made the writer overwrite its target.
    const path = join(tempDir(), 'k.json');
    const victim = join(tempDir(), 'victim');
    await writeFile(victim, 'precious\n');
    await symlink(victim, `${path}.${process.pid}.tmp`);
    const kernel = new FakeKernel();
    kernel.restore('create a hash:net\n');
    await writeStateFile(path, kernel);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
    expect((await readStateFile(path)).setNames()).toEqual(['a']);
    expect((await readdir(tempDir())).sort()).toEqual(['k.json', `k.json.${process.pid}.tmp`, 'victim']);
  });

  it('refuses a file that is not a state file, quoting its path and saying what was expected', async () => {
    const path = join(tempDir(), 'k.json');
    await writeFile(path, '{"format": "something-else"}');
    const error = await readStateFile(path).catch((e: unknown) => e);
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain(`${JSON.stringify(path)} is not a fake kernel state file`);
    expect((error as Error).message).toContain('expected the JSON a fake kernel writes, or no file (an empty kernel)');
  });

  it('refuses text that is not JSON', async () => {
    const path = join(tempDir(), 'k.json');
    await writeFile(path, 'create a hash:ip\n');
    const error = await readStateFile(path).catch((e: unknown) => e);
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('is not a fake kernel state file');
  });

  it('a path it cannot read (a folder) is an error naming the path, not an empty kernel', async () => {
    const path = join(tempDir(), 'folder');
    await mkdir(path);
    const error = await readStateFile(path).catch((e: unknown) => e);
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain(`cannot read fake kernel state ${JSON.stringify(path)}`);
  });
});
