import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { IpsetsError } from '@ipsets/core';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';

describeKernel('createLinuxPort against the real kernel (in a namespace)', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await createTestNamespace('port');
  });
  afterAll(async () => {
    await ns?.dispose();
  });
  beforeEach(async () => {
    await ns.run(['ipset', 'flush']);
    await ns.run(['ipset', 'destroy']);
  });

  it('restore, save, listNames and listHeaders', async () => {
    const port = createLinuxPort({ netns: ns.name });
    const restored = await port.restore(
      ['-N azure-npm-1 --exist nethash', '-A azure-npm-1 10.0.0.0/8', '-A azure-npm-1 10.1.2.3/32', '-N azure-npm-2 --exist setlist', '-A azure-npm-2 azure-npm-1', ''].join('\n'),
    );
    expect(restored).toEqual({ exitCode: 0, stdout: '', stderr: '' });

    expect(await port.listNames()).toEqual({ exitCode: 0, stdout: 'azure-npm-1\nazure-npm-2\n', stderr: '' });

    const saved = await port.save();
    expect(saved.exitCode).toBe(0);
    const lines = saved.stdout.split('\n');
    expect(lines[0]).toMatch(/^create azure-npm-1 hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x[0-9a-f]+$/);
    expect(lines.slice(1, 3).sort()).toEqual(['add azure-npm-1 10.0.0.0/8', 'add azure-npm-1 10.1.2.3']);
    expect(lines.slice(3)).toEqual(['create azure-npm-2 list:set size 8', 'add azure-npm-2 azure-npm-1', '']);

    const headers = await port.listHeaders();
    expect(headers.exitCode).toBe(0);
    expect(headers.stdout).toContain('Name: azure-npm-1\nType: hash:net\n');
    expect(headers.stdout).toMatch(/Name: azure-npm-1\n[\s\S]*References: 1\nNumber of entries: 2\n/);
    expect(headers.stdout).not.toContain('Members:\n10.');
  });

  it('restore is run with -exist: re-creating an existing set succeeds', async () => {
    const port = createLinuxPort({ netns: ns.name });
    expect((await port.restore('-N azure-npm-3 --exist nethash\n-A azure-npm-3 10.0.0.1\n')).exitCode).toBe(0);
    expect(await port.restore('-N azure-npm-3 --exist nethash\n-A azure-npm-3 10.0.0.1\n')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('error results are data: exit code 1 with the line, exit code 2 for parameter problems', async () => {
    const port = createLinuxPort({ netns: ns.name });
    expect(await port.restore('-N azure-npm-4 --exist nethash\n-A azure-npm-nosuch 10.0.0.1\n')).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'ipset v7.17: Error in line 2: The set with the given name does not exist\n',
    });
    expect(await port.restore('-A azure-npm-4 10.0.0.300\n')).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'ipset v7.17: Error in line 1: Syntax error: cannot parse 10.0.0.300: resolving to IPv4 address failed\n',
    });
    expect(await port.restore('bogus\n')).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: "ipset v7.17: No command specified: unknown argument bogus\nTry `ipset help' for more information.\n",
    });
  });

  it('a parameter problem on line 1 of a 1,000,000-line text resolves with exit 2 (ipset stops reading stdin)', async () => {
    const port = createLinuxPort({ netns: ns.name });
    const text = `bogus\n${'-A azure-npm-x 10.0.0.1\n'.repeat(1_000_000)}`;
    expect(await port.restore(text)).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: "ipset v7.17: No command specified: unknown argument bogus\nTry `ipset help' for more information.\n",
    });
  });

  it('an empty namespace saves and lists nothing', async () => {
    const port = createLinuxPort({ netns: ns.name });
    expect(await port.save()).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await port.listNames()).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('an unknown namespace is IPSET_UNAVAILABLE', async () => {
    const port = createLinuxPort({ netns: `${ns.name}-gone` });
    const error = await port.listNames().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IpsetsError);
    expect((error as IpsetsError).code).toBe('IPSET_UNAVAILABLE');
    expect((error as IpsetsError).message).toContain(`ip netns add ${ns.name}-gone`);
  });

  it('a missing ipset inside the namespace is IPSET_UNAVAILABLE', async () => {
    const port = createLinuxPort({ netns: ns.name, ipsetPath: '/nonexistent/ipset' });
    const error = await port.save().catch((e: unknown) => e);
    expect((error as IpsetsError).code).toBe('IPSET_UNAVAILABLE');
    expect((error as IpsetsError).message).toContain('"/nonexistent/ipset" was not found inside network namespace');
  });

  it('a non-root user gets IPSET_UNAVAILABLE (real "Operation not permitted")', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ipsets-nonroot-'));
    try {
      const wrapper = join(dir, 'ipset-as-nobody');
      await writeFile(wrapper, '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups ipset "$@"\n');
      await chmod(wrapper, 0o755);
      const port = createLinuxPort({ netns: ns.name, ipsetPath: wrapper });
      for (const call of [() => port.listNames(), () => port.restore('-N azure-npm-5 --exist nethash\n')]) {
        const error = await call().catch((e: unknown) => e);
        expect((error as IpsetsError).code).toBe('IPSET_UNAVAILABLE');
        expect((error as IpsetsError).message).toContain('Operation not permitted');
        expect((error as IpsetsError).message).toContain('run as root or grant CAP_NET_ADMIN');
      }
      expect((await ns.run(['ipset', 'list', '-n'])).stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a restore aborted mid-way is killed and rejects with ABORTED', async () => {
    const port = createLinuxPort({ netns: ns.name });
    const lines = ['-N azure-npm-6 --exist nethash maxelem 4294967295'];
    for (let i = 0; i < 1_000_000; i += 1) lines.push(`-A azure-npm-6 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const controller = new AbortController();
    const pending = port.restore(`${lines.join('\n')}\n`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 150);
    const error = await pending.catch((e: unknown) => e);
    expect((error as IpsetsError).code).toBe('ABORTED');
    // Killed before the end: the set is missing or holds only part of the members.
    const headers = await port.listHeaders();
    const entries = /Number of entries: (\d+)/.exec(headers.stdout);
    expect(Number(entries?.[1] ?? 0)).toBeLessThan(1_000_000);
  });
});
