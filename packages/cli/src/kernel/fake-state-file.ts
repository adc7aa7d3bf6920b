/**
 * The fake kernel's state file (`--kernel fake --state FILE`): its whole state as the
 * JSON of `FakeKernel.toJSON()`, read at the start of a command and written back
 * atomically at its end. The one place the CLI reads or writes that file.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IpsetsError, quote } from '@ipsets/core';
import type { FakeKernel } from '@ipsets/fake-kernel';

/** Reads a fake kernel's state file; a missing file is an empty kernel. */
export async function loadFakeKernel(path: string): Promise<FakeKernel> {
  const { FakeKernel } = await import('@ipsets/fake-kernel');
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
      `${quote(path)} is not a fake kernel state file (${(error as Error).message}); expected the JSON that ipsets writes, or no file (an empty kernel)`,
      { cause: error },
    );
  }
}

/** Writes a fake kernel's state atomically (temp file + rename), so a reader never sees half a file. */
export async function saveFakeKernel(path: string, kernel: FakeKernel): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(kernel.toJSON()) + '\n');
  await rename(tmp, path);
}
