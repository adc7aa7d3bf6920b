/**
 * The fake-ipset executable end to end (dist/fake-ipset.js, built by `npx tsdown`; built
 * here when missing or older than its sources), run with execa like the Linux port runs
 * the real ipset.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, execaSync } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const pkg = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(pkg, 'dist', 'fake-ipset.js');
const P = 'ipset v7.17: ';

function newestSource(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return t;
}

let dir: string;
let state: string;

async function ipset(args: string[], input?: string): Promise<{ exitCode: number; stdout: string; stderr: string; signal?: string }> {
  const r = await execa(bin, args, {
    env: { IPSETS_FAKE_STATE: state },
    reject: false,
    stripFinalNewline: false,
    ...(input === undefined ? {} : { input }),
  });
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr, ...(r.signal ? { signal: r.signal } : {}) };
}

beforeAll(() => {
  if (!existsSync(bin) || statSync(bin).mtimeMs < newestSource(join(pkg, 'src'))) {
    execaSync('npx', ['tsdown'], { cwd: pkg, stdio: 'ignore' });
  }
  dir = mkdtempSync(join(tmpdir(), 'fake-ipset-'));
  state = join(dir, 'state.json');
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('fake-ipset', { timeout: 120_000 }, () => {
  it('starts with a node shebang and is executable', () => {
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
  });

  it('restore from stdin creates the state file; -exist before or after the command', async () => {
    expect(await ipset(['restore'], 'create a hash:ip\nadd a 1.1.1.1\n')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(existsSync(state)).toBe(true);
    expect((await ipset(['-exist', 'restore'], 'create a hash:ip\nadd a 1.1.1.1\n')).exitCode).toBe(0);
    expect((await ipset(['restore', '-!'], 'add a 1.1.1.1\n')).exitCode).toBe(0);
    expect(await ipset(['restore'], 'add a 1.1.1.2\nadd a 1.1.1.1\ncreate b hash:ip\n')).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `${P}Error in line 2: Element cannot be added to the set: it's already added\n`,
    });
    expect((await ipset(['save'])).stdout).toMatch(/^create a hash:ip family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x[0-9a-f]{8}\nadd a 1\.1\.1\.1\nadd a 1\.1\.1\.2\n$/);
  });

  it('single commands: create, add, del, test, swap, rename, flush, destroy, errors without line numbers', async () => {
    expect((await ipset(['create', 'n', 'hash:net'])).exitCode).toBe(0);
    expect((await ipset(['add', 'n', '10.1.2.3/8'])).exitCode).toBe(0);
    expect(await ipset(['add', 'n', '10.0.0.0/8'])).toEqual({ exitCode: 1, stdout: '', stderr: `${P}Element cannot be added to the set: it's already added\n` });
    expect((await ipset(['-exist', 'add', 'n', '10.0.0.0/8'])).exitCode).toBe(0);
    expect(await ipset(['test', 'n', '10.9.9.9'])).toEqual({ exitCode: 0, stdout: '', stderr: 'Warning: 10.9.9.9 is in set n.\n' });
    expect((await ipset(['del', 'n', '10.0.0.0/8'])).exitCode).toBe(0);
    expect(await ipset(['del', 'nosuch', '1.1.1.1'])).toEqual({ exitCode: 1, stdout: '', stderr: `${P}The set with the given name does not exist\n` });
    expect(await ipset(['swap', 'a', 'n'])).toEqual({ exitCode: 1, stdout: '', stderr: `${P}The sets cannot be swapped: their type does not match\n` });
    expect((await ipset(['create', 'c', 'hash:ip'])).exitCode).toBe(0);
    expect((await ipset(['swap', 'a', 'c'])).exitCode).toBe(0);
    expect((await ipset(['rename', 'c', 'd'])).exitCode).toBe(0);
    expect((await ipset(['list', '-n'])).stdout).toBe('a\nn\nd\n');
    expect((await ipset(['flush', 'd'])).exitCode).toBe(0);
    expect((await ipset(['list', 'd'])).stdout).toContain('Number of entries: 0\nMembers:\n');
    expect(await ipset(['bogus'])).toEqual({ exitCode: 2, stdout: '', stderr: `${P}No command specified: unknown argument bogus\nTry \`ipset help' for more information.\n` });
  });

  it('list -t, list -o save, version', async () => {
    const terse = await ipset(['list', '-t']);
    expect(terse.stdout).not.toContain('Members:');
    expect(terse.stdout).toContain('Name: a\nType: hash:ip\nRevision: 6\n');
    expect((await ipset(['list', '-o', 'save'])).stdout).toBe((await ipset(['save'])).stdout);
    expect(await ipset(['version'])).toEqual({ exitCode: 0, stdout: 'ipset v7.17, protocol version: 7\n', stderr: '' });
  });

  it('-f FILE restores from a file; a missing file exits 255 silently', async () => {
    const file = join(dir, 'in.txt');
    writeFileSync(file, 'create f hash:ip\n');
    expect((await ipset(['-f', file, 'restore'])).exitCode).toBe(0);
    expect((await ipset(['list', '-n'])).stdout).toContain('f\n');
    expect(await ipset(['restore', '-file', join(dir, 'nope')])).toEqual({ exitCode: 255, stdout: '', stderr: '' });
  });

  it('destroy all, then an empty save', async () => {
    expect((await ipset(['destroy'])).exitCode).toBe(0);
    expect(await ipset(['save'])).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({ format: 'ipsets-fake-kernel/1', slots: [] });
  });

  it('a segfaulting restore dies by SIGSEGV with no stderr', async () => {
    const r = await ipset(['restore'], 'create p hash:ip,port\nadd p 10.0.0.1,80\nadd p 10.0.0.2,icmpv6:ping\n');
    expect(r.signal).toBe('SIGSEGV');
    expect(r.stderr).toBe('');
  });

  it('without IPSETS_FAKE_STATE it refuses to run', async () => {
    const r = await execa(bin, ['list'], { env: { IPSETS_FAKE_STATE: '' }, reject: false });
    expect(r.exitCode).toBe(255);
    expect(r.stderr).toContain('IPSETS_FAKE_STATE');
  });
});
