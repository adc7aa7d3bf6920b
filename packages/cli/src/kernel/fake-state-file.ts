/**
 * The fake kernel's state file (`--kernel fake --state FILE`): its whole state as the
 * JSON of `FakeKernel.toJSON()`, read at the start of a command and written back
 * atomically at its end. The file format and its I/O belong to `@ipsets/fake-kernel`
 * (the `fake-ipset` executable reads the same file); this module only loads it lazily,
 * so that commands on the real kernel never load the fake.
 */
import type { FakeKernel } from '@ipsets/fake-kernel';

/** Reads a fake kernel's state file; a missing file is an empty kernel. */
export async function loadFakeKernel(path: string): Promise<FakeKernel> {
  const { readStateFile } = await import('@ipsets/fake-kernel/state-file');
  return readStateFile(path);
}

/** Writes a fake kernel's state atomically (temp file + rename), so a reader never sees half a file. */
export async function saveFakeKernel(path: string, kernel: FakeKernel): Promise<void> {
  const { writeStateFile } = await import('@ipsets/fake-kernel/state-file');
  await writeStateFile(path, kernel);
}
