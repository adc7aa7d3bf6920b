/**
 * A folder laid out the way the kubelet lays out a ConfigMap (or projected) volume,
 * and updated the way it updates one (its AtomicWriter): the payload goes into a new
 * `..<timestamp>` folder, a `..data_tmp` symlink to it is renamed over `..data`, then
 * the visible entries (`name -> ..data/name`) are added or removed and the old
 * timestamp folder is deleted. No event ever names a visible file.
 */
import { mkdir, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

let serial = 0;

/** Writes (or replaces) the whole payload of the volume at `dir`: file name → content. */
export async function writeProjectedVolume(dir: string, payload: Readonly<Record<string, string | Uint8Array>>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const stamp = `..2026_12_02_03_00_00.${process.pid}_${++serial}`;
  const target = join(dir, stamp);
  await mkdir(target);
  for (const [name, content] of Object.entries(payload)) await writeFile(join(target, name), content);
  const old = await readlink(join(dir, '..data')).catch(() => undefined);
  await symlink(stamp, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  const names = new Set(Object.keys(payload));
  for (const entry of await readdir(dir)) {
    if (entry.startsWith('.')) continue;
    if (!names.has(entry)) await rm(join(dir, entry), { force: true });
  }
  for (const name of names) await symlink(join('..data', name), join(dir, name)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  if (old !== undefined) await rm(join(dir, old), { recursive: true, force: true });
}
