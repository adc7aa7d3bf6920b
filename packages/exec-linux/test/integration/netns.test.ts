import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { acquireKernelLock, defaultLockPath, DEFAULT_LOCK_DIR } from '../../src/kernel-lock.js';
import { createTestNamespace, kernelTestSupport, sweepOrphanNamespaces } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';

async function namespaces(): Promise<string[]> {
  const { stdout } = await execa('ip', ['netns', 'list']);
  return stdout.split('\n').map((line) => line.split(' ')[0] ?? '');
}

describe('kernelTestSupport', () => {
  it('gives a one-line reason whenever it says unavailable', async () => {
    const support = await kernelTestSupport();
    if (!support.available) {
      expect(support.reason).toBeTruthy();
      expect(support.reason).not.toContain('\n');
    } else {
      expect(support.reason).toBeUndefined();
    }
  });
});

describeKernel('createTestNamespace (real kernel)', () => {
  it('creates a uniquely named namespace, isolates its sets and deletes it on dispose', async () => {
    const a = await createTestNamespace('nstest');
    const b = await createTestNamespace('nstest');
    try {
      expect(a.name).toMatch(new RegExp(`^ipsets-nstest-${process.pid}-\\d+-[0-9a-f]{6}$`));
      expect(a.name).not.toBe(b.name);
      expect(await namespaces()).toEqual(expect.arrayContaining([a.name, b.name]));

      const created = await a.run(['ipset', 'restore'], 'create probe-set hash:ip\nadd probe-set 10.0.0.1\n');
      expect(created).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      expect((await a.run(['ipset', 'list', '-n'])).stdout).toBe('probe-set\n');
      // Sets are per namespace: the other namespace does not see it.
      expect((await b.run(['ipset', 'list', '-n'])).stdout).toBe('');

      const failed = await a.run(['ipset', 'add', 'nosuch', '1.2.3.4']);
      expect(failed.exitCode).toBe(1);
      expect(failed.stderr).toContain('The set with the given name does not exist');
    } finally {
      await a.dispose();
      await b.dispose();
    }
    const after = await namespaces();
    expect(after).not.toContain(a.name);
    expect(after).not.toContain(b.name);
    await a.dispose(); // idempotent
  });

  it('dispose removes a namespace whose set is referenced by an iptables rule', async () => {
    const ns = await createTestNamespace('nstest');
    try {
      expect((await ns.run(['ipset', 'create', 'ref-set', 'hash:net'])).exitCode).toBe(0);
      const rule = await ns.run(['iptables', '-A', 'INPUT', '-m', 'set', '--match-set', 'ref-set', 'src', '-j', 'ACCEPT']);
      expect(rule.stderr).toBe('');
      expect(rule.exitCode).toBe(0);
      expect((await ns.run(['ipset', 'destroy', 'ref-set'])).stderr).toContain('in use');
    } finally {
      await ns.dispose();
    }
    expect(await namespaces()).not.toContain(ns.name);
  });
});

describeKernel('createTestNamespace orphan sweep (real kernel)', () => {
  it('deletes namespaces of our naming pattern whose process is gone, and nothing else', async () => {
    // pid 2^22+1 is above Linux's pid_max limit, so it can never be alive.
    const orphan = `ipsets-sweeptest-${2 ** 22 + 1}-1-abcdef`;
    const foreign = `ipsets-sweeptest-foreign-${process.pid}`;
    await execa('ip', ['netns', 'add', orphan]);
    await execa('ip', ['netns', 'add', foreign]);
    try {
      await sweepOrphanNamespaces();
      const after = await namespaces();
      expect(after).not.toContain(orphan);
      expect(after).toContain(foreign);
    } finally {
      await execa('ip', ['netns', 'del', orphan], { reject: false });
      await execa('ip', ['netns', 'del', foreign], { reject: false });
    }
  });
});

describeKernel('test namespaces leave no lock files in the host\'s /run/ipsets (test runs left ipsets-h*-….lock files behind)', () => {
  it('dispose removes the lock file a writer made for the namespace', async () => {
    const ns = await createTestNamespace('h28-lock');
    const path = defaultLockPath(ns.name);
    const lock = await acquireKernelLock({ path, waitMs: 0 });
    await lock.release();
    expect(existsSync(path)).toBe(true);
    await ns.dispose();
    expect(existsSync(path)).toBe(false);
  });

  it('the orphan sweep removes lock files of our namespaces whose process is gone, and no other', async () => {
    const orphan = `ipsets-h28sweep-${2 ** 22 + 1}-1-abcdef`;
    const alive = `ipsets-h28sweep-${process.pid}-1-abcdef`;
    const other = 'h28-not-a-test-namespace';
    await mkdir(DEFAULT_LOCK_DIR, { recursive: true });
    for (const name of [orphan, alive, other]) await writeFile(defaultLockPath(name), '');
    try {
      await sweepOrphanNamespaces();
      expect(existsSync(defaultLockPath(orphan))).toBe(false);
      expect(existsSync(defaultLockPath(alive))).toBe(true);
      expect(existsSync(defaultLockPath(other))).toBe(true);
    } finally {
      for (const name of [orphan, alive, other]) await rm(defaultLockPath(name), { force: true });
    }
  });
});
