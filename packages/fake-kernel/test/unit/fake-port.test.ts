/**
 * The fake port: restores with -exist (or without), non-zero exits as data, latency
 * injection, and the kernel's hang fault ended by an abort.
 */
import { describe, expect, it } from 'vitest';
import { createFakePort } from '../../src/fake-port.js';
import { kernelWith, P } from '../helpers/fake.js';

const SETUP = 'create a hash:ip\ncreate b hash:ip\n';

describe('createFakePort', () => {
  it('runs restores with -exist, save, list -n and list -t', async () => {
    const k = kernelWith('create a hash:ip\nadd a 1.1.1.1\n');
    const port = createFakePort(k);
    expect(await port.restore('create a hash:ip\nadd a 1.1.1.1\nadd a 1.1.1.2\n')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect((await port.save()).stdout).toBe(k.save().stdout);
    expect((await port.listNames()).stdout).toBe('a\n');
    expect((await port.listHeaders()).stdout).toContain('Number of entries: 2\n');
    const strict = createFakePort(k, { exist: false });
    expect((await strict.restore('add a 1.1.1.1\n')).exitCode).toBe(1);
  });

  it('resolves non-zero exits (they are data)', async () => {
    const port = createFakePort(kernelWith());
    expect(await port.restore('add nosuch 1.1.1.1\n')).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `${P}Error in line 1: The set with the given name does not exist\n`,
    });
  });

  it('awaits the injected delay before each call', async () => {
    const calls: string[] = [];
    const port = createFakePort(kernelWith(), { delay: async (op) => void calls.push(op) });
    await port.restore('');
    await port.save();
    await port.listNames();
    await port.listHeaders();
    expect(calls).toEqual(['restore', 'save', 'listNames', 'listHeaders']);
  });

  it('hang: the restore stays pending until aborted, then rejects with ABORTED and applies nothing', async () => {
    const k = kernelWith(SETUP).hang();
    const port = createFakePort(k);
    const ac = new AbortController();
    const p = port.restore('add a 1.1.1.1\n', { signal: ac.signal });
    let settled = false;
    void p.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    ac.abort(new Error('timeout'));
    await expect(p).rejects.toMatchObject({ name: 'IpsetsError', code: 'ABORTED' });
    expect(k.members('a')).toEqual([]);
    expect((await port.restore('add a 1.1.1.1\n')).exitCode).toBe(0);
  });

  it('an already aborted signal rejects at once', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(createFakePort(kernelWith()).save({ signal: ac.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
