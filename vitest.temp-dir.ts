import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/**
 * A temporary folder for the tests of the calling file: made under the system's temp
 * folder (`prefix` then random characters) before each test (`'each'`, the default) or
 * once before all of them (`'all'`), and removed with everything in it afterwards.
 * Returns the folder's path; calling it outside a test (or a hook after this one's) throws.
 */
export function useTempDir(prefix: string, scope: 'each' | 'all' = 'each'): () => string {
  let dir: string | undefined;
  const [before, after] = scope === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (dir === undefined) throw new Error(`useTempDir('${prefix}'): the folder exists only while a test runs`);
    return dir;
  };
}
