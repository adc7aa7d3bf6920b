import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IpsetsError } from '@ipsets/core';
import {
  acquireKernelLock,
  defaultLockPath,
  readKernelLockHolder,
  withKernelLock,
} from '../../src/kernel-lock.js';
import { DEFAULT_LOCK_WAIT_MS } from '../../src/defaults.js';
import { startFixture } from '../helpers/child.js';
import type { Child } from '../helpers/child.js';

let dir: string;
let lockPath: string;
const children: Child[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipsets-h3-lock-'));
  lockPath = join(dir, 'sub', 'test.lock');
});
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
    await c.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<IpsetsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IpsetsError);
  return error as IpsetsError;
}

/** Starts a process that takes the lock and holds it until its stdin closes. */
async function holder(waitMs = 0): Promise<Child> {
  const child = startFixture('lock-child.ts', [lockPath, String(waitMs)]);
  children.push(child);
  expect(await child.nextLine()).toMatchObject({ locked: true, pid: child.pid });
  return child;
}

describe('kernel lock: paths and options', () => {
  it('defaultLockPath is one file per network namespace under /run/ipsets', () => {
    expect(defaultLockPath()).toBe('/run/ipsets/host.lock');
    expect(defaultLockPath('node-a')).toBe('/run/ipsets/node-a.lock');
    expect(() => defaultLockPath('../etc')).toThrow(/netns "\.\.\/etc" is not a network namespace name/);
    expect(DEFAULT_LOCK_WAIT_MS).toBe(30_000);
  });

  it('rejects a bad path or wait with INVALID_ARGUMENT, quoting the value', async () => {
    expect(await rejection(acquireKernelLock({ path: '' }))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('lock path ""') });
    expect(await rejection(acquireKernelLock({ path: lockPath, waitMs: -1 }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('waitMs "-1"'),
    });
  });

  it('a missing flock binary or an unopenable lock file is IPSET_UNAVAILABLE with the fix', async () => {
    const missing = await rejection(acquireKernelLock({ path: lockPath, flockPath: join(dir, 'no-flock') }));
    expect(missing.code).toBe('IPSET_UNAVAILABLE');
    expect(missing.message).toContain('install util-linux');
    expect(missing.details['reason']).toBe('lock-unavailable');
    await writeFile(join(dir, 'file'), 'x');
    const unopenable = await rejection(acquireKernelLock({ path: join(dir, 'file', 'x.lock') }));
    expect(unopenable).toMatchObject({ code: 'IPSET_UNAVAILABLE', details: { reason: 'lock-unavailable' } });
    expect(unopenable.message).toContain('cannot be opened');
  });
});

describe('kernel lock: one holder at a time', () => {
  it('the holder records pid, command, host and times in the file, and empties it on release', async () => {
    const lock = await acquireKernelLock({ path: lockPath, command: 'ipsets apply node.yaml' });
    const recorded = await readKernelLockHolder(lockPath);
    expect(recorded).toEqual(lock.holder);
    expect(recorded).toMatchObject({ pid: process.pid, command: 'ipsets apply node.yaml' });
    expect(Date.parse(recorded!.acquiredAt)).toBeGreaterThanOrEqual(Date.parse(recorded!.processStartedAt));
    await lock.release();
    await lock.release();
    expect(await readFile(lockPath, 'utf8')).toBe('');
    expect(await readKernelLockHolder(lockPath)).toBeUndefined();
  });

  it('two acquisitions exclude each other inside one process too (a waiter times out with LOCK_HELD)', async () => {
    const first = await acquireKernelLock({ path: lockPath });
    const error = await rejection(acquireKernelLock({ path: lockPath, waitMs: 50 }));
    expect(error.code).toBe('LOCK_HELD');
    await first.release();
    const second = await acquireKernelLock({ path: lockPath, waitMs: 0 });
    await second.release();
  });

  it('a second process waits out its waitMs, then fails with LOCK_HELD naming the holder pid', async () => {
    const a = await holder();
    const b = startFixture('lock-child.ts', [lockPath, '300']);
    children.push(b);
    const line = await b.nextLine();
    expect(line).toMatchObject({ locked: false, code: 'LOCK_HELD' });
    expect(String(line['message'])).toContain(`held by pid ${a.pid} ("lock-child"`);
    expect(String(line['message'])).toContain('waited 300 ms');
    const here = await rejection(acquireKernelLock({ path: lockPath, waitMs: 100 }));
    expect(here.message).toMatch(new RegExp(`^the kernel lock ".*test\\.lock" is held by pid ${a.pid} `));
    expect(here.details['holder']).toMatchObject({ pid: a.pid, command: 'lock-child' });
  });

  it('a waiter gets the lock as soon as the holder releases it', async () => {
    const a = startFixture('lock-child.ts', [lockPath, '0', '400']);
    children.push(a);
    await a.nextLine();
    const lock = await acquireKernelLock({ path: lockPath, waitMs: 10_000 });
    expect(lock.waitedMs).toBeGreaterThan(100);
    expect(lock.waitedMs).toBeLessThan(5_000);
    expect((await a.exited).code).toBe(0);
    await lock.release();
  });

  it('a holder killed with SIGKILL never leaves the lock stuck: the kernel releases it', async () => {
    const a = await holder();
    expect((await rejection(acquireKernelLock({ path: lockPath, waitMs: 0 }))).code).toBe('LOCK_HELD');
    a.process.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    // The dead holder's record is still in the file; the flock is gone with its descriptor.
    expect((await readKernelLockHolder(lockPath))?.pid).toBe(a.pid);
    const lock = await acquireKernelLock({ path: lockPath, waitMs: 2_000 });
    expect(lock.holder.pid).toBe(process.pid);
    await lock.release();
  });

  it('names a holder on another host (a pod) by host name as well as pid', async () => {
    await mkdir(dirname(lockPath), { recursive: true });
    const record = { pid: 7, hostname: 'ipsets-agent-x7k2p', command: 'ipsets agent /etc/ipsets/node.yaml', processStartedAt: '2026-01-01T00:00:00.000Z', acquiredAt: '2026-01-01T00:00:01.000Z' };
    await writeFile(lockPath, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    // Its own process group, so the kill below ends flock and the shell under it.
    const shell = spawn('flock', ['--close', '-x', lockPath, 'sh', '-c', 'echo locked; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    await new Promise<void>((resolve) => shell.stdout.once('data', () => resolve()));
    try {
      const error = await rejection(acquireKernelLock({ path: lockPath, waitMs: 0 }));
      expect(error.message).toContain(`held by pid 7 on host "ipsets-agent-x7k2p" ("ipsets agent /etc/ipsets/node.yaml", holding it since 2026-01-01T00:00:01.000Z, process started 2026-01-01T00:00:00.000Z; see \`ls -l /proc/7\`; if that process is gone, an ipset it started still holds it: \`fuser -v ${lockPath}\` lists every process holding it); waited 0 ms`);
    } finally {
      process.kill(-shell.pid!, 'SIGKILL');
      await new Promise((resolve) => shell.once('close', resolve));
    }
  });

  it('an abort signal ends the wait with ABORTED', async () => {
    await holder();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    const error = await rejection(acquireKernelLock({ path: lockPath, waitMs: 10_000, signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    expect(error.message).toContain('shutting down');
  });

  it('withKernelLock releases when the function throws', async () => {
    await expect(
      withKernelLock({ path: lockPath }, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const lock = await acquireKernelLock({ path: lockPath, waitMs: 0 });
    await lock.release();
  });

  const unshare = spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0;
  it.skipIf(!unshare)('excludes a holder in another PID namespace that uses the same file (`flock` in a shell)', async () => {
    // An operator's shell (or a pod) can take the same lock around manual ipset commands
    // (once a writer has made the 0600 file: flock(1) would create it 0644).
    await (await acquireKernelLock({ path: lockPath })).release();
    const shell = spawn('unshare', ['--pid', '--fork', '--kill-child', 'flock', '-x', lockPath, 'sh', '-c', 'echo locked; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => shell.stdout.once('data', () => resolve()));
    try {
      const error = await rejection(acquireKernelLock({ path: lockPath, waitMs: 100 }));
      expect(error.code).toBe('LOCK_HELD');
      expect(error.message).toContain(`another process (it wrote no holder record; \`fuser -v ${lockPath}\` lists every process holding it)`);
    } finally {
      shell.kill('SIGKILL');
      await new Promise((resolve) => shell.once('close', resolve));
    }
  });
});
