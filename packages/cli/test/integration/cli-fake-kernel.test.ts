/**
 * End-to-end: the built `ipsets` binary against the fake kernel (state in a temp dir).
 */
import { readFile, writeFile, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { EXAMPLES, expectExit, ipsets, tempDir } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  await copyFile(join(EXAMPLES, 'small.yaml'), join(dir, 'small.yaml'));
});
afterEach(async () => {
  await cleanup();
});

const SHOP = kernelName('ns-shop', { owner: DEFAULT_CLI_OWNER });
const EGRESS = kernelName('cidr-allow-egress-in-ns-shop-0out', { owner: DEFAULT_CLI_OWNER });

describe('ipsets --help and --version', () => {
  it('prints the version from package.json and the ipset found', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const run = await ipsets(['--version'], { cwd: dir });
    expect(run.exitCode).toBe(0);
    // The command's version, then the ipset it finds (ipset's own --version names its protocol too).
    expect(run.stdout.split('\n')[0]).toBe(`ipsets ${pkg.version}`);
    expect(run.stdout.split('\n')[1]).toMatch(/^ipset /);
  });

  it.each(['plan', 'diff', 'apply', 'save', 'reset', 'agent', 'demo'])('has --help for %s', async (command) => {
    const run = await ipsets([command, '--help'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`Usage: ipsets ${command}`);
  });

  it('lists every command in the top-level help', async () => {
    const run = await ipsets(['--help'], { cwd: dir });
    for (const c of ['plan', 'diff', 'apply', 'save', 'reset', 'agent', 'demo']) expect(run.stdout).toContain(c);
  });

  it('exits 2 for an unknown command or option', async () => {
    await expectExit(ipsets(['frobnicate'], { cwd: dir }), 2);
    const run = await ipsets(['apply', 'small.yaml', '--kernel', 'bsd'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain('bsd');
  });
});

describe('ipsets plan', () => {
  it('prints the restore text for an empty kernel on stdout and counts on stderr', async () => {
    const run = await ipsets(['plan', 'small.yaml'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toContain(`-N ${SHOP} --exist nethash`);
    expect(lines).toContain(`-A ${SHOP} 10.244.1.10`);
    expect(lines).toContain(`-N ${EGRESS} --exist nethash maxelem 4294967295`);
    expect(lines).toContain(`-A ${EGRESS} 10.96.0.0/12 nomatch`);
    expect(lines.every((l) => /^-[NA] ipsets-[0-9a-z]{20} /.test(l))).toBe(true);
    expect(run.stderr).toMatch(/plan against an empty kernel: create 11, add \d+/);
  });

  it('--json prints lines with sections and error handlers', async () => {
    const run = await ipsets(['plan', 'small.yaml', '--json'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { lines: { op: string; section: string; onError: unknown[]; text: string }[]; counts: Record<string, number> };
    expect(json.counts.create).toBe(11);
    expect(json.lines[0]).toMatchObject({ op: 'create', section: expect.any(String), onError: expect.any(Array) });
    expect(json.lines.every((l) => l.onError.length > 0 && l.section.length > 0)).toBe(true);
  });

  it('--save plans against a captured ipset save: only the differences', async () => {
    const save = [
      `create ${SHOP} hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1`,
      `add ${SHOP} 10.244.1.10`,
      `add ${SHOP} 10.9.9.9`,
      '',
    ].join('\n');
    await writeFile(join(dir, 'node.save'), save);
    const run = await ipsets(['plan', 'small.yaml', '--save', 'node.save'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`-D ${SHOP} 10.9.9.9\n`);
    expect(run.stdout).toContain(`-A ${SHOP} 10.244.1.11\n`);
    expect(run.stdout).not.toContain(`-A ${SHOP} 10.244.1.10\n`);
    expect(run.stdout).not.toContain(`-N ${SHOP} `);
    const fromStdin = await ipsets(['plan', 'small.yaml', '--save', '-'], { cwd: dir, input: save });
    expect(fromStdin.stdout).toBe(run.stdout);
  });
});

describe('ipsets apply, diff, save, reset on the fake kernel', () => {
  it('applies, reports converged, and a second diff shows nothing', async () => {
    const before = await ipsets(['diff', '--kernel', 'fake', 'small.yaml'], { cwd: dir });
    expect(before.exitCode, before.stdout + before.stderr).toBe(0);
    expect(before.stdout).toContain(`+ ns-shop (${SHOP})  new set, +3 -0`);
    expect(before.stdout).toContain('    + 10.244.1.10');
    expect(before.stdout).not.toContain('\u001b[');

    const apply = await ipsets(['apply', '--kernel', 'fake', 'small.yaml'], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('converged');
    expect(apply.stdout).toMatch(/applied (\d+) of \1 lines in 1 attempt/);

    const state = JSON.parse(await readFile(join(dir, '.ipsets-state.json'), 'utf8')) as unknown;
    expect(state).toBeTruthy();

    const after = await ipsets(['diff', '--kernel', 'fake', 'small.yaml', '--exit-code'], { cwd: dir });
    expect(after).toMatchObject({ exitCode: 0 });
    expect(after.stdout).toContain('no differences');

    const again = await ipsets(['apply', '--kernel', 'fake', 'small.yaml'], { cwd: dir });
    expect(again.stdout).toMatch(/applied 0 of 0 lines/);
  });

  it('repairs drift and removes sets the file no longer lists', async () => {
    await ipsets(['apply', '--kernel', 'fake', 'small.yaml'], { cwd: dir });
    const smaller = (await readFile(join(dir, 'small.yaml'), 'utf8'))
      .replace('members: [10.244.1.10, 10.244.1.11, 10.244.1.12]', 'members: [10.244.1.10, 10.244.1.99]')
      .replace(/  - type: cidrBlocks\n[\s\S]*$/, '');
    await writeFile(join(dir, 'smaller.yaml'), smaller);
    const diff = await ipsets(['diff', '--kernel', 'fake', 'smaller.yaml', '--exit-code'], { cwd: dir });
    expect(diff.exitCode, diff.stdout + diff.stderr).toBe(1);
    expect(diff.stdout).toContain(`~ ns-shop (${SHOP})  +1 -2`);
    expect(diff.stdout).toContain(`- ${EGRESS}  destroy, +0 -2`);
    const apply = await ipsets(['apply', '--kernel', 'fake', 'smaller.yaml'], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    const save = await ipsets(['save', '--kernel', 'fake'], { cwd: dir });
    const snapshot = parseSave(save.stdout);
    expect([...(snapshot.sets.find((s) => s.name === SHOP)?.members ?? [])].sort()).toEqual(['10.244.1.10', '10.244.1.99']);
    expect(snapshot.sets.some((s) => s.name === EGRESS)).toBe(false);
  });

  it('colours the diff only when asked (FORCE_COLOR), never with NO_COLOR', async () => {
    const plain = await ipsets(['diff', '--kernel', 'fake', 'small.yaml'], { cwd: dir });
    expect(plain.stdout).not.toContain('\u001b[');
    const forced = await ipsets(['diff', '--kernel', 'fake', 'small.yaml'], { cwd: dir, env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain('\u001b[32m');
  });

  it('save prints only owned sets in save format; reset removes them and leaves foreign sets', async () => {
    await ipsets(['apply', '--kernel', 'fake', 'small.yaml'], { cwd: dir });
    // A second owner's sets in the same kernel: an apply of another file with owner "other-".
    await writeFile(join(dir, 'other.yaml'), 'owner: other-\nsets:\n  - { type: namespace, name: x, members: [192.0.2.1] }\n');
    await expectExit(ipsets(['apply', '--kernel', 'fake', 'other.yaml'], { cwd: dir }), 0);

    const save = await ipsets(['save', '--kernel', 'fake'], { cwd: dir });
    expect(save.exitCode, save.stdout + save.stderr).toBe(0);
    const lines = save.stdout.trimEnd().split('\n');
    expect(lines.every((l) => /^(create|add) ipsets-/.test(l))).toBe(true);
    expect(lines.filter((l) => l.startsWith('create '))).toHaveLength(11);

    const reset = await ipsets(['reset', '--kernel', 'fake'], { cwd: dir });
    expect(reset.exitCode, reset.stdout + reset.stderr).toBe(0);
    expect(reset.stdout).toContain('11 found, 11 destroyed');
    expect(reset.stdout).toContain('reset complete');
    expect((await ipsets(['save', '--kernel', 'fake'], { cwd: dir })).stdout).toBe('');
    const other = await ipsets(['save', '--kernel', 'fake', '--owner', 'other-'], { cwd: dir });
    expect(other.stdout).toContain('add other-');
  });

  it('--state moves the state file', async () => {
    const apply = await ipsets(['apply', '--kernel', 'fake', 'small.yaml', '--state', 'sub/kernel.json'], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain(join(dir, 'sub/kernel.json'));
    expect((await ipsets(['save', '--kernel', 'fake'], { cwd: dir })).stdout).toBe('');
    expect((await ipsets(['save', '--kernel', 'fake', '--state', 'sub/kernel.json'], { cwd: dir })).stdout).toContain(`create ${SHOP} hash:net`);
  });

  it('save --json prints each owned set as name, type, options and its members as strings', async () => {
    const apply = await ipsets(['apply', '--kernel', 'fake', 'small.yaml', '--state', 'json/kernel.json'], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    const run = await ipsets(['save', '--kernel', 'fake', '--state', 'json/kernel.json', '--json'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { schemaVersion: number; sets: Record<string, unknown>[] };
    expect(json.schemaVersion).toBe(1);
    const shop = json.sets.find((s) => s['name'] === SHOP)!;
    expect(Object.keys(shop)).toEqual(['name', 'type', 'options', 'members']);
    expect(shop['type']).toBe('hash:net');
    expect(Array.isArray(shop['members']) && (shop['members'] as unknown[]).every((m) => typeof m === 'string')).toBe(true);
    expect((shop['members'] as string[]).length).toBeGreaterThan(0);
  });

  it('--json apply report is machine readable', async () => {
    const run = await ipsets(['apply', '--kernel', 'fake', 'small.yaml', '--json'], { cwd: dir });
    const json = JSON.parse(run.stdout) as { converged: boolean; attempts: unknown[]; linesApplied: number };
    expect(json.converged).toBe(true);
    expect(json.attempts).toHaveLength(1);
    expect(json.linesApplied).toBeGreaterThan(20);
  });

  it('refuses linux-only options with the fake kernel (exit 2)', async () => {
    const run = await ipsets(['apply', '--kernel', 'fake', 'small.yaml', '--netns', 'x'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain('--netns and --ipset need --kernel linux');
  });

  it('handles the node-sized example', async () => {
    const node = join(EXAMPLES, 'node.json');
    const apply = await ipsets(['apply', '--kernel', 'fake', node], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('converged');
    const diff = await ipsets(['diff', '--kernel', 'fake', node, '--exit-code'], { cwd: dir });
    expect(diff.exitCode, diff.stdout + diff.stderr).toBe(0);
  });
});
