/**
 * Operator-grade edges of the built command, as a person on call meets them:
 * - beside Azure NPM (the real kernel, in a network namespace of this test): the
 *   command's default owner used to be `azure-npm-`, so `apply examples/small.yaml`
 *   destroyed a set `azure-npm-stale` another writer had made. Now such sets are
 *   untouched unless `--owner azure-npm-` is given;
 * - an apply stopped by SIGTERM while ipset was part way through its input reported
 *   `applied 0 of N lines` and every set as not converged: the kernel, read again, now
 *   says which sets really reached it (an `ipset` that applies part of a restore and
 *   then hangs, over the fake kernel: no root needed, the same on every machine);
 * - as the unprivileged `nobody`, a bad flag was "lock file cannot be opened (EACCES)"
 *   with exit 1: it is exit 2, naming the flag.
 */
import { spawnSync } from 'node:child_process';
import { chmod, copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelName } from '@ipsets/core';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { describeKernel } from '../helpers/kernel.js';
import { BIN, EXAMPLES, ipsets, spawnIpsets, tempDir } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

const ipsetsName = (prefixed: string) => kernelName(prefixed, { owner: DEFAULT_CLI_OWNER });

describeKernel('beside sets named like Azure NPM\'s (real kernel, network namespace)', () => {
  let ns: TestNamespace;
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ns = await createTestNamespace('h28-owner');
    ({ dir, cleanup } = await tempDir());
    await copyFile(join(EXAMPLES, 'small.yaml'), join(dir, 'small.yaml'));
  });
  afterAll(async () => {
    await ns?.dispose();
    await cleanup?.();
  });

  it('apply, reset and the agent leave azure-npm-* sets untouched by default; --owner azure-npm- manages them', async () => {
    // Another writer's sets: one named like Azure NPM's kernel names, one that is NPM's exact name for ns-shop.
    const npmShop = kernelName('ns-shop', { owner: 'azure-npm-' });
    for (const name of ['azure-npm-stale', npmShop]) {
      expect((await ns.run(['ipset', 'create', name, 'hash:net'])).exitCode).toBe(0);
      await ns.run(['ipset', 'add', name, '192.0.2.9']);
    }
    const npmBefore = async () => (await ns.run(['ipset', 'save', 'azure-npm-stale'])).stdout + (await ns.run(['ipset', 'save', npmShop])).stdout;
    const before = await npmBefore();

    const apply = await ipsets(['apply', 'small.yaml', '--netns', ns.name], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    expect((await ns.run(['ipset', 'list', '-n'])).stdout).toContain(ipsetsName('ns-shop'));
    expect(await npmBefore()).toBe(before);
    expect((await ipsets(['agent', 'small.yaml', '--once', '--netns', ns.name], { cwd: dir })).exitCode).toBe(0);
    expect((await ipsets(['diff', 'small.yaml', '--exit-code', '--netns', ns.name], { cwd: dir })).exitCode).toBe(0);
    const reset = await ipsets(['reset', '--netns', ns.name], { cwd: dir });
    expect(reset.exitCode, reset.stdout).toBe(0);
    expect(reset.stdout).toContain('11 found, 11 destroyed');
    expect(await npmBefore()).toBe(before);
    expect((await ns.run(['ipset', 'list', '-n'])).stdout.trim().split('\n').sort()).toEqual(['azure-npm-stale', npmShop].sort());

    // Asked for, the old owner manages them again: the stale one is destroyed, ns-shop is repaired.
    const npm = await ipsets(['apply', 'small.yaml', '--owner', 'azure-npm-', '--netns', ns.name], { cwd: dir });
    expect(npm.exitCode, npm.stdout + npm.stderr).toBe(0);
    const names = (await ns.run(['ipset', 'list', '-n'])).stdout;
    expect(names).not.toContain('azure-npm-stale');
    expect((await ns.run(['ipset', 'save', npmShop])).stdout).not.toContain('192.0.2.9');
    expect((await ipsets(['reset', '--owner', 'azure-npm-', '--netns', ns.name], { cwd: dir })).exitCode).toBe(0);
    expect((await ns.run(['ipset', 'list', '-n'])).stdout.trim()).toBe('');
  });

  it('after a killed apply, the kernel read again is the report: which sets converged and which did not (real kernel)', async () => {
    const { wrapper, env } = await slowIpset(dir, 'ipset', 600);
    const report = await stoppedApply(dir, ['--netns', ns.name, '--ipset', wrapper], env);
    expect(report.stdout).toContain('applied 0 of 1,100 lines');
    expect(report.stdout).toContain('50 of the 100 set(s) counted as not converged above reached their desired state after all; 50 set(s) still differ');
    expect(report.stdout).toMatch(/^sets: 50 created, .* 50 failed/m);
    expect(report.exitCode).toBe(1);
    // The sets the report calls converged are in the kernel as desired.
    const save = (await ns.run(['ipset', 'save', ipsetsName('ns-n0')])).stdout;
    expect(save.match(/^add /gm)).toHaveLength(10);
    expect((await ipsets(['reset', '--netns', ns.name], { cwd: dir })).exitCode).toBe(0);
  });
});

/**
 * An `ipset` (a shell script) that applies only the first `lines` lines of a restore with
 * `real` (the real ipset, or the fake one), then hangs like a kernel that stopped
 * answering; every other command goes to `real` as it is.
 */
async function slowIpset(dir: string, real: string, lines: number): Promise<{ wrapper: string; env: Record<string, string> }> {
  const wrapper = join(dir, 'slow-ipset');
  await writeFile(
    wrapper,
    [
      '#!/bin/bash',
      'if [[ " $* " == *" restore"* ]]; then',
      `  head -n ${lines} > "$SLOW_IPSET_DIR/part"`,
      `  ${real} -exist restore < "$SLOW_IPSET_DIR/part" || exit $?`,
      '  : > "$SLOW_IPSET_DIR/hung"',
      '  exec sleep 600',
      'fi',
      `exec ${real} "$@"`,
      '',
    ].join('\n'),
  );
  await chmod(wrapper, 0o755);
  return { wrapper, env: { SLOW_IPSET_DIR: dir } };
}

/** 100 namespaces of 10 members: 100 create lines, then 1,000 add lines. */
async function hundredSets(dir: string): Promise<void> {
  const sets = Array.from({ length: 100 }, (_, i) => ({ type: 'namespace', name: `n${i}`, members: Array.from({ length: 10 }, (_, j) => `10.${i}.0.${j + 1}`) }));
  await writeFile(join(dir, 'hundred.json'), JSON.stringify({ sets }));
}

/** Starts `apply hundred.json`, sends SIGTERM once the slow ipset hangs, and returns what it printed. */
async function stoppedApply(dir: string, kernel: string[], env: Record<string, string>) {
  await hundredSets(dir);
  const hung = join(dir, 'hung');
  await rm(hung, { force: true });
  const run = spawnIpsets(['apply', 'hundred.json', ...kernel, '--grace', '200ms', '--lock-file', join(dir, 'apply.lock')], { cwd: dir, env });
  for (let i = 0; i < 600 && !existsSync(hung); i++) await new Promise((ok) => setTimeout(ok, 50));
  expect(existsSync(hung), 'the slow ipset never hung').toBe(true);
  run.kill('SIGTERM');
  const done = await run;
  return { exitCode: done.exitCode ?? -1, stdout: String(done.stdout), stderr: String(done.stderr) };
}

describe('an apply stopped by SIGTERM part way through (fake kernel behind a slow ipset)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterAll(async () => cleanup?.());

  it('reports the 50 sets that reached the kernel as converged and the 50 that did not, in text and in --json', async () => {
    const fakeIpset = fileURLToPath(new URL('../../../fake-kernel/dist/fake-ipset.js', import.meta.url));
    const state = join(dir, 'fake-state.json');
    const { wrapper, env } = await slowIpset(dir, `${JSON.stringify(process.execPath)} ${JSON.stringify(fakeIpset)}`, 600);
    const report = await stoppedApply(dir, ['--ipset', wrapper], { ...env, IPSETS_FAKE_STATE: state });
    expect(report.stdout).toContain('applied 0 of 1,100 lines');
    expect(report.stdout).toContain('the apply ended early (ABORTED); the kernel was read again and is the truth of this report');
    expect(report.stdout).toContain('50 of the 100 set(s) counted as not converged above reached their desired state after all; 50 set(s) still differ: ns-n50');
    expect(report.stdout).toMatch(/^sets: 50 created, .* 50 failed/m);
    expect(report.exitCode).toBe(1);
    // The state file is the kernel: exactly the first 50 sets are full.
    const kernel = JSON.parse(await readFile(state, 'utf8')) as unknown;
    expect(JSON.stringify(kernel)).toContain(ipsetsName('ns-n49'));

    const json = await stoppedApply(dir, ['--ipset', wrapper, '--json'], { ...env, IPSETS_FAKE_STATE: join(dir, 'fake-state-2.json') });
    const parsed = JSON.parse(json.stdout) as { exitCode: number; outcome: string; linesApplied: number; kernelCheck: { converged: string[]; notConverged: string[]; uncertain: string[] }; sets: { failed: number } };
    expect(parsed.linesApplied).toBe(0);
    expect(parsed.kernelCheck.converged).toHaveLength(50);
    expect(parsed.kernelCheck.notConverged).toHaveLength(50);
    expect(parsed.kernelCheck.converged).toContain(ipsetsName('ns-n0'));
    expect(parsed.kernelCheck.notConverged).toContain(ipsetsName('ns-n99'));
    expect(parsed.sets.failed).toBe(50);
    expect(parsed).toMatchObject({ exitCode: 1, outcome: 'not-converged' });
  });
});

/** Whether this process can run a command as `nobody` (root with setpriv). */
function canBecomeNobody(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: cannot run a command as nobody';
  if (spawnSync('setpriv', ['--version']).status !== 0) return 'setpriv (util-linux) is not installed';
  return undefined;
}
const nobodySkip = canBecomeNobody();

describe.skipIf(nobodySkip !== undefined)(`as the unprivileged user nobody${nobodySkip === undefined ? '' : ` (skipped: ${nobodySkip})`}`, () => {
  it('a bad flag is exit 2 naming the flag; it was exit 1 "lock file … cannot be opened (EACCES)"', () => {
    const asNobody = (args: string[]) =>
      spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, BIN, ...args], {
        cwd: '/',
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NO_COLOR: '1' },
      });
    const small = join(EXAMPLES, 'small.yaml');
    const apply = asNobody(['apply', small, '--state', 'k.json']);
    expect(apply.stderr).toContain('--state "k.json" needs --kernel fake');
    expect(apply.stderr).not.toContain('EACCES');
    expect(apply.status).toBe(2);
    const reset = asNobody(['reset', '--owner', 'ab']);
    expect(reset.status).toBe(2);
    const agent = asNobody(['agent', small, '--once', '--netns', 'a/b']);
    expect(agent.stderr).toContain('is not a network namespace name');
    expect(agent.status).toBe(2);
  });
});
