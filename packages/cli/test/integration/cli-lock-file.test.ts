/**
 * `--lock-file` as a planted path. Defect pinned: the lock file was opened read-write
 * with create, following symbolic links, and truncated on acquire and release: a link
 * planted in /tmp made root empty the file it pointed to; a file another user made let
 * them take the lock or fake its holder record.
 */
import { chmod, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectExit, ipsets, tempDir } from '../helpers/run-ipsets.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, 'd.json'), JSON.stringify({ sets: [{ type: 'namespace', name: 'a', members: ['10.0.0.1'] }] }));
});
afterEach(async () => {
  await cleanup();
});

describe('ipsets apply --lock-file', () => {
  it('a symbolic link is refused with a clear message (exit 1), its target untouched and the kernel unchanged', async () => {
    await writeFile(join(dir, 'precious'), 'keep me\n', { mode: 0o600 });
    await symlink(join(dir, 'precious'), join(dir, 'link.lock'));
    const run = await expectExit(ipsets(['apply', 'd.json', '--kernel', 'fake', '--state', 'k.json', '--lock-file', 'link.lock'], { cwd: dir }), 1);
    expect(run.stderr).toContain(`ipsets: error: the kernel lock file "${join(dir, 'link.lock')}" is a symbolic link; refusing to follow it: pass the real path of a lock file`);
    expect(await readFile(join(dir, 'precious'), 'utf8')).toBe('keep me\n');
    expect(await stat(join(dir, 'k.json')).catch(() => undefined)).toBeUndefined();
  });

  it('the lock file it makes is 0600; a world-readable one of this user (an older version made them 0644) is made 0600 and used', async () => {
    await expectExit(ipsets(['apply', 'd.json', '--kernel', 'fake', '--state', 'k.json'], { cwd: dir }), 0);
    expect(((await stat(join(dir, 'k.json.lock'))).mode & 0o777).toString(8)).toBe('600');
    await writeFile(join(dir, 'open.lock'), '', { mode: 0o644 });
    await chmod(join(dir, 'open.lock'), 0o644);
    await expectExit(ipsets(['apply', 'd.json', '--kernel', 'fake', '--state', 'k.json', '--lock-file', 'open.lock'], { cwd: dir }), 0);
    expect(((await stat(join(dir, 'open.lock'))).mode & 0o777).toString(8)).toBe('600');
  });
});
