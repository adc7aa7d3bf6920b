/**
 * `@ipsets/fake-kernel/state-file` — a fake kernel kept in a JSON file between
 * processes (what `ipsets --kernel fake` and the `fake-ipset` executable do). Node
 * only, which is why it is a subpath of its own: the main entry runs in a browser.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IpsetsError, quote } from '@ipsets/core';
import { FakeKernel } from './fake-kernel.js';

/**
 * Reads a fake kernel's state file; a missing file is an empty kernel.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` when the file cannot be read or is not the
 *   JSON that {@link writeStateFile} writes; the message quotes the path.
 */
export async function readStateFile(path: string): Promise<FakeKernel> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new FakeKernel();
    throw new IpsetsError('INVALID_ARGUMENT', `cannot read fake kernel state ${quote(path)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    return FakeKernel.fromJSON(JSON.parse(text));
  } catch (error) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `${quote(path)} is not a fake kernel state file (${(error as Error).message}); expected the JSON a fake kernel writes, or no file (an empty kernel)`,
      { cause: error },
    );
  }
}

/**
 * Writes a fake kernel's state to `path` (creating its folder), atomically: a
 * temporary file beside it, then a rename, so a concurrent reader sees the old state
 * or the new one, never half a file. The temporary name is random and created with
 * `O_EXCL`, so nothing planted at a name someone could guess is ever followed or
 * overwritten. Concurrent writers are not serialised: the last rename wins.
 */
export async function writeStateFile(path: string, kernel: FakeKernel): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(8).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(kernel.toJSON()) + '\n', { flag: 'wx' });
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
