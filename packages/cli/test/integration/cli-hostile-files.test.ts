/**
 * The hostile table: every desired-state file and captured save an attacker or a
 * careless operator could hand to the built `ipsets` binary is refused — exit 2, a
 * first line that says what is wrong (or a bounded problem list), at most 64 KiB of
 * stderr, never a stack trace — and the kernel's `ipset save` is byte-identical
 * before and after. On the fake kernel always; on the real kernel inside a network
 * namespace this test creates, when the kernel-test gate allows.
 *
 * Desired files go through `apply` (the command that changes a kernel); saves through
 * `plan --save`, the command that reads a save file.
 */
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKernel } from '@ipsets/fake-kernel';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { HOSTILE_DESIRED, hostileSaves } from '../helpers/hostile-files.js';
import type { HostileCase } from '../helpers/hostile-files.js';
import { describeKernel } from '../helpers/kernel.js';
import { ipsets, tempDir } from '../helpers/run-ipsets.js';
import type { IpsetsRun } from '../helpers/run-ipsets.js';

const GOOD = JSON.stringify({ sets: [{ type: 'namespace', name: 'shop', members: ['10.0.0.1', '10.0.0.2'] }, { type: 'cidrBlocks', name: 'egress', members: ['10.0.0.0/8'] }] });
const MAX_STDERR = 64 * 1024;

/** Writes (or makes) a case's file in `dir`; returns the path to pass. */
async function materialise(dir: string, c: HostileCase): Promise<string> {
  if (c.special === '/dev/zero' || c.special === '/dev/null') return c.special;
  const path = join(dir, c.name);
  switch (c.special) {
    case 'directory':
      await mkdir(path, { recursive: true });
      return path;
    case 'fifo':
      await execa('mkfifo', [path], { reject: false });
      return path;
    case 'sparse-over-limit': {
      const handle = await open(path, 'w');
      await handle.truncate(257 * 1024 * 1024);
      await handle.close();
      return path;
    }
    case 'missing':
      return path;
    default:
      await writeFile(path, c.content ?? '');
      return path;
  }
}

/** The refusal contract of one run. */
function expectRefused(run: IpsetsRun, title: string): void {
  const context = `${title}\n--- stderr (${run.stderr.length} characters)\n${run.stderr.slice(0, 2000)}`;
  expect(run.exitCode, context).toBe(2);
  expect(run.stdout, context).toBe('');
  expect(Buffer.byteLength(run.stderr), context).toBeLessThanOrEqual(MAX_STDERR);
  expect(run.stderr, context).not.toMatch(/\n\s+at [^\n]*[:(]/);
  expect(run.stderr, context).not.toContain('internal error');
  const [first = '', second = ''] = run.stderr.split('\n');
  expect(first, context).toMatch(/^ipsets: error: /);
  // One line that says what is wrong, or a problem-list header whose first problem does.
  if (/ problems; nothing was (applied|planned)/.test(first)) expect(second, context).toMatch(/^ {2}\S/);
  else expect(first, context).toMatch(/expected|no such file/i);
}

describe('hostile files on the fake kernel', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let state: string;
  let before: string;
  let saveBefore: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    state = join(dir, 'state.json');
    await writeFile(join(dir, 'good.json'), GOOD);
    const applied = await ipsets(['apply', 'good.json', '--kernel', 'fake', '--state', state], { cwd: dir });
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
    const kernel = FakeKernel.fromJSON(JSON.parse(await readFile(state, 'utf8')));
    expect(kernel.restore('create foreign-set hash:ip\nadd foreign-set 192.0.2.7\n').exitCode).toBe(0);
    await writeFile(state, JSON.stringify(kernel.toJSON()) + '\n');
    before = await readFile(state, 'utf8');
    saveBefore = kernel.saveText();
  });
  afterAll(async () => {
    await cleanup?.();
  });

  async function expectKernelUnchanged(title: string): Promise<void> {
    const now = await readFile(state, 'utf8');
    expect(FakeKernel.fromJSON(JSON.parse(now)).saveText(), title).toBe(saveBefore);
    expect(now, title).toBe(before);
  }

  it(`has at least 70 hostile desired files and 20 hostile saves (${HOSTILE_DESIRED.length} and ${hostileSaves().length})`, () => {
    expect(HOSTILE_DESIRED.length).toBeGreaterThanOrEqual(70);
    expect(hostileSaves().length).toBeGreaterThanOrEqual(20);
    expect(new Set(HOSTILE_DESIRED.map((c) => c.name)).size).toBe(HOSTILE_DESIRED.length);
  });

  it.each(HOSTILE_DESIRED.map((c) => [c.title, c] as const))('apply refuses a desired file: %s', async (title, c) => {
    const path = await materialise(dir, c);
    const run = await ipsets(['apply', path, '--kernel', 'fake', '--state', state, ...(c.args ?? [])], { cwd: dir });
    expectRefused(run, title);
    await expectKernelUnchanged(title);
  });

  const saves = hostileSaves();
  it.each(saves.map((c) => [c.title, c] as const))('plan --save refuses a save: %s', async (title, c) => {
    const path = await materialise(dir, c);
    const run = await ipsets(['plan', 'good.json', '--save', path], { cwd: dir });
    expectRefused(run, title);
    await expectKernelUnchanged(title);
  });

  it('plan --save - refuses a hostile save on stdin too', async () => {
    const run = await ipsets(['plan', 'good.json', '--save', '-'], { cwd: dir, input: saves[0]!.content as string });
    expectRefused(run, 'stdin');
  });
});

describeKernel('hostile files on the real kernel (network namespace)', () => {
  let ns: TestNamespace;
  let dir: string;
  let cleanup: () => Promise<void>;
  let before: string;
  const linux = () => ['--kernel', 'linux', '--netns', ns.name];

  beforeAll(async () => {
    ns = await createTestNamespace('h2-hostile');
    ({ dir, cleanup } = await tempDir());
    await writeFile(join(dir, 'good.json'), GOOD);
    const applied = await ipsets(['apply', 'good.json', ...linux()], { cwd: dir });
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
    expect((await ns.run(['ipset', 'create', 'foreign-set', 'hash:ip'])).exitCode).toBe(0);
    expect((await ns.run(['ipset', 'add', 'foreign-set', '192.0.2.7'])).exitCode).toBe(0);
    before = (await ns.run(['ipset', 'save'])).stdout;
    expect(before).toContain('ipsets-');
  });
  afterAll(async () => {
    await ns?.dispose();
    await cleanup?.();
  });

  it.each(HOSTILE_DESIRED.map((c) => [c.title, c] as const))('apply refuses a desired file: %s', async (title, c) => {
    const path = await materialise(dir, c);
    const run = await ipsets(['apply', path, ...linux(), ...(c.args ?? [])], { cwd: dir });
    expectRefused(run, title);
    expect((await ns.run(['ipset', 'save'])).stdout, title).toBe(before);
  });
});
