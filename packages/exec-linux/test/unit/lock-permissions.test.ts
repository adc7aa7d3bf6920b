/**
 * Only the lock's owner can take it. Defects pinned: the lock file was 0644 and flock
 * needs only a read descriptor, so any local user could take it (apply and reset then
 * exited 4, the agent failed until it exited 5); `--lock-file` followed symbolic links
 * and truncated, so a link planted in /tmp made root empty a root-owned file; a file
 * another user created let them fake the holder record; and an ENOSPC while writing the
 * holder record left the descriptor open (the agent then failed LOCK_HELD against itself).
 *
 * Runs as root, acting as `nobody` through setpriv; skips saying why elsewhere.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IpsetsError } from '@ipsets/core';
import { acquireKernelLock, readKernelLockHolder } from '../../src/kernel-lock.js';
import { ensurePrivateDir } from '../../src/private-dir.js';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const root = process.getuid?.() === 0;
const setpriv = spawnSync('setpriv', ['--version']).status === 0;
const unshare = root && spawnSync('unshare', ['-m', 'true']).status === 0;
const asNobody = ['--reuid=nobody', '--regid=nogroup', '--clear-groups'];
if (!root || !setpriv) console.warn('[exec-linux] lock-permissions: skipped: needs root and setpriv(1) to act as nobody');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipsets-lock-perm-'));
  // Others may enter it (as /tmp or /run); a `shared` folder inside is world-writable as /tmp is.
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'shared'));
  await chmod(join(dir, 'shared'), 0o1777);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: packageDir, env: { ...process.env, TSX_TSCONFIG_PATH: 'test/tsconfig.json' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The lock-probe fixture as `nobody`: its one JSON line. */
async function probeAsNobody(path: string): Promise<Record<string, unknown>> {
  const result = await run('setpriv', [...asNobody, process.execPath, '--import', 'tsx', 'test/fixtures/lock-probe.ts', path]);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

async function rejection(promise: Promise<unknown>): Promise<IpsetsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IpsetsError);
  return error as IpsetsError;
}

describe.skipIf(!root || !setpriv)('kernel lock: only its owner can take it', () => {
  it('root makes the lock file 0600: nobody can neither open it nor flock it, through the library or flock(1)', async () => {
    const path = join(dir, 'host.lock');
    const lock = await acquireKernelLock({ path, command: 'ipsets apply' });
    await lock.release();
    const mode = (await stat(path)).mode & 0o777;
    expect(mode.toString(8)).toBe('600');
    const probe = await probeAsNobody(path);
    expect(probe).toMatchObject({ locked: false, code: 'IPSET_UNAVAILABLE', message: expect.stringContaining('cannot be opened (EACCES)') });
    expect(probe['lockFds']).toBe(0);
    expect(probe['fdsAfter']).toBeLessThanOrEqual(probe['fdsBefore'] as number);
    const shell = await run('setpriv', [...asNobody, 'flock', '-n', '-x', path, 'true']);
    expect(shell.code).not.toBe(0);
    expect(shell.stderr).toContain('Permission denied');
  });

  it('a lock file nobody planted (with a fake holder record) is refused, not used', async () => {
    const path = join(dir, 'shared', 'planted.lock');
    const fake = JSON.stringify({ pid: 1, hostname: 'x', command: 'trust me', processStartedAt: '', acquiredAt: '' });
    const planted = await run('setpriv', [...asNobody, 'sh', '-c', `umask 077; printf '%s\\n' '${fake}' > '${path}'`]);
    expect(planted.code).toBe(0);
    const error = await rejection(acquireKernelLock({ path, waitMs: 0 }));
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toMatch(/is owned by uid 65534, not by this user \(uid 0\); only a file of this user that no one else can open can be the lock/);
    expect(await readFile(path, 'utf8')).toBe(`${fake}\n`);
  });

  it('a symbolic link planted as the lock file is refused with a clear message, and its target is not emptied', async () => {
    const target = join(dir, 'precious');
    await writeFile(target, 'root data\n', { mode: 0o600 });
    const path = join(dir, 'shared', 'link.lock');
    expect((await run('setpriv', [...asNobody, 'ln', '-s', target, path])).code).toBe(0);
    expect((await lstat(path)).isSymbolicLink()).toBe(true);
    const error = await rejection(acquireKernelLock({ path, waitMs: 0 }));
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toBe(`the kernel lock file "${path}" is a symbolic link; refusing to follow it: pass the real path of a lock file`);
    expect(await readFile(target, 'utf8')).toBe('root data\n');
    expect(await readKernelLockHolder(path)).toBeUndefined();
  });

  it('a group- or world-readable lock file of root (an older version and flock(1) made them 0644) is made 0600 and used: nobody can no longer open it (refusing it stopped every upgraded node until someone removed the file)', async () => {
    const path = join(dir, 'old.lock');
    await writeFile(path, '', { mode: 0o644 });
    await chmod(path, 0o644);
    const lock = await acquireKernelLock({ path, waitMs: 0, command: 'ipsets apply' });
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe('600');
    expect((await readKernelLockHolder(path))?.command).toBe('ipsets apply');
    await lock.release();
    const probe = await probeAsNobody(path);
    expect(probe).toMatchObject({ locked: false, code: 'IPSET_UNAVAILABLE', message: expect.stringContaining('cannot be opened (EACCES)') });
  });

  it('a world-readable lock file of another user is refused naming its owner, and left as it was', async () => {
    const path = join(dir, 'shared', 'theirs.lock');
    expect((await run('setpriv', [...asNobody, 'sh', '-c', `umask 022; : > '${path}'`])).code).toBe(0);
    const error = await rejection(acquireKernelLock({ path, waitMs: 0 }));
    expect(error.message).toContain('is owned by uid 65534');
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe('644');
  });

  it('the lock folder is made 0700 and must be ours: another user\'s folder is refused', async () => {
    const mine = join(dir, 'mine');
    await mkdir(mine, { mode: 0o755 });
    await chmod(mine, 0o755);
    await ensurePrivateDir(mine, 'the kernel lock folder', 'lock-unavailable');
    expect(((await stat(mine)).mode & 0o777).toString(8)).toBe('700');
    const theirs = join(dir, 'shared', 'theirs');
    expect((await run('setpriv', [...asNobody, 'mkdir', '-m', '700', theirs])).code).toBe(0);
    await expect(ensurePrivateDir(theirs, 'the kernel lock folder', 'lock-unavailable')).rejects.toMatchObject({
      code: 'IPSET_UNAVAILABLE',
      message: expect.stringContaining('is owned by uid 65534, not by this user (uid 0)'),
    });
  });
});

describe.skipIf(!unshare)('kernel lock: a full lock file system', () => {
  it('ENOSPC writing the holder record ends with a clear error, the descriptor closed and the lock free', async () => {
    const mnt = join(dir, 'full');
    await mkdir(mnt);
    // A one-page tmpfs in a private mount namespace, filled before the lock is tried.
    const script = [
      `mount -t tmpfs -o size=4k tmpfs '${mnt}'`,
      `dd if=/dev/zero of='${mnt}/fill' bs=4096 count=1 2>/dev/null`,
      `'${process.execPath}' --import tsx test/fixtures/lock-probe.ts '${mnt}/host.lock'`,
      `flock -n -x '${mnt}/host.lock' echo free`,
    ].join(' && ');
    const result = await run('unshare', ['-m', 'sh', '-c', script]);
    const [line, free] = result.stdout.trim().split('\n');
    const probe = JSON.parse(line!) as Record<string, unknown>;
    expect(probe).toMatchObject({ locked: false, code: 'IPSET_UNAVAILABLE' });
    expect(probe['message']).toBe(
      `the holder record could not be written to the kernel lock file "${mnt}/host.lock" (ENOSPC: no space left on the device); the lock was let go. Free space on its file system, or pass a lock path elsewhere`,
    );
    expect(probe['lockFds']).toBe(0);
    expect(probe['fdsAfter']).toBeLessThanOrEqual(probe['fdsBefore'] as number);
    expect(free).toBe('free');
  });
});
