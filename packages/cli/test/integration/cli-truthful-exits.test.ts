/**
 * Exit codes and reports tell the truth: an owned set that should not exist but
 * stays because the kernel references it is listed by `diff` (and fails
 * `--exit-code`; it used to say "no differences: the kernel matches the desired
 * state"), makes `apply` exit 3 instead of 0 (text and `--json` say so), and makes
 * `reset` exit 3. An empty desired file that would destroy owned sets is refused
 * (exit 2, how many would go) unless `--allow-empty`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelName } from '@ipsets/core';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { describeKernel } from '../helpers/kernel.js';
import { ipsets, tempDir } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

const BOTH = JSON.stringify({ sets: [{ type: 'namespace', name: 'shop', members: ['10.0.0.1'] }, { type: 'cidrBlocks', name: 'egress', members: ['10.0.0.0/8'] }] });
const SHOP_ONLY = JSON.stringify({ sets: [{ type: 'namespace', name: 'shop', members: ['10.0.0.1'] }] });
const EMPTY = '{"sets":[]}';
const HELD = kernelName('cidr-egress', { owner: DEFAULT_CLI_OWNER });

function scenario(kernelArgs: () => string[], hold: (dir: string) => Promise<void>, release: (dir: string) => Promise<void>) {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    await writeFile(join(dir, 'both.json'), BOTH);
    await writeFile(join(dir, 'shop.json'), SHOP_ONLY);
    await writeFile(join(dir, 'empty.json'), EMPTY);
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('an empty file on a kernel without owned sets is applied (nothing to destroy)', async () => {
    const run = await ipsets(['apply', 'empty.json', ...kernelArgs()], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  });

  it('apply exits 3 and says so while an undesired owned set stays in use; diff lists it and --exit-code fails', async () => {
    expect((await ipsets(['apply', 'both.json', ...kernelArgs()], { cwd: dir })).exitCode).toBe(0);
    await hold(dir);

    const apply = await ipsets(['apply', 'shop.json', ...kernelArgs()], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(3);
    expect(apply.stdout).toContain(`  ${HELD}\n`);
    expect(apply.stdout).toContain('converged, except 1 set(s) in use: they should not exist, but the kernel still references them (exit 3)');

    const json = await ipsets(['apply', 'shop.json', '--json', ...kernelArgs()], { cwd: dir });
    expect(json.exitCode).toBe(3);
    const report = JSON.parse(json.stdout) as { outcome: string; exitCode: number; inUseSets: string[]; converged: boolean };
    expect(report).toMatchObject({ outcome: 'converged-except-in-use', exitCode: 3, inUseSets: [HELD], converged: true });

    const diff = await ipsets(['diff', 'shop.json', '--exit-code', ...kernelArgs()], { cwd: dir });
    expect(diff.exitCode, diff.stdout + diff.stderr).toBe(1);
    expect(diff.stdout).toContain(`= ${HELD}  should not exist, but stays: the kernel still references it (in use)`);
    expect(diff.stdout).not.toContain('no differences: the kernel matches the desired state');
    expect(diff.stdout).toContain('no member differences, but 1 owned set(s) cannot be made to match while the kernel references them');
    expect((await ipsets(['diff', 'shop.json', ...kernelArgs()], { cwd: dir })).exitCode).toBe(0);
  });

  it('an empty desired file that would destroy owned sets is refused (exit 2, how many) unless --allow-empty', async () => {
    const refused = await ipsets(['apply', 'empty.json', ...kernelArgs()], { cwd: dir });
    expect(refused.exitCode, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^ipsets: error: empty\.json has no sets, and applying it would destroy 1 owned set\(s\) in the kernel; nothing was changed\. Expected at least one set, or --allow-empty/);
    const diff = await ipsets(['diff', 'shop.json', '--exit-code', ...kernelArgs()], { cwd: dir });
    expect(diff.stdout, 'the refused apply changed nothing').toContain('no member differences');

    // The agent refuses it the same way: nothing applied, bad input (exit 2), not counted toward --max-failures.
    const agent = await ipsets(['agent', 'empty.json', '--once', '--no-metrics', ...kernelArgs()], { cwd: dir });
    expect(agent.exitCode, agent.stdout + agent.stderr).toBe(2);
    expect(agent.stderr).toContain('"consecutiveFailures":0');
    expect(agent.stderr).toContain('has no sets, and applying it would destroy 1 owned set(s)');
    expect((await ipsets(['diff', 'shop.json', '--exit-code', ...kernelArgs()], { cwd: dir })).stdout, 'the refused agent apply changed nothing').toContain('no member differences');

    const allowed = await ipsets(['apply', 'empty.json', '--allow-empty', ...kernelArgs()], { cwd: dir });
    // The held set still stays: converged except in use.
    expect(allowed.exitCode, allowed.stdout + allowed.stderr).toBe(3);
  });

  it('reset exits 3 when a set leaks (still referenced), 0 once it is released', async () => {
    const reset = await ipsets(['reset', ...kernelArgs()], { cwd: dir });
    expect(reset.exitCode, reset.stdout + reset.stderr).toBe(3);
    expect(reset.stdout).toContain('reset complete except 1 leaked set(s)');
    const json = await ipsets(['reset', '--json', ...kernelArgs()], { cwd: dir });
    expect(JSON.parse(json.stdout)).toMatchObject({ outcome: 'converged-except-in-use', exitCode: 3, leaked: [HELD] });
    await release(dir);
    expect((await ipsets(['reset', ...kernelArgs()], { cwd: dir })).exitCode).toBe(0);
  });
}

describe('truthful exits on the fake kernel', () => {
  const setRefs = async (dir: string, refs: number) => {
    const path = join(dir, 'state.json');
    const state = JSON.parse(await readFile(path, 'utf8')) as { slots: ({ name: string; iptRefs: number } | null)[] };
    const slot = state.slots.find((s) => s?.name === HELD);
    expect(slot, 'the held set exists').toBeDefined();
    slot!.iptRefs = refs;
    await writeFile(path, JSON.stringify(state));
  };
  scenario(
    () => ['--kernel', 'fake', '--state', 'state.json'],
    (dir) => setRefs(dir, 1),
    (dir) => setRefs(dir, 0),
  );
});

describeKernel('truthful exits on the real kernel (network namespace)', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await createTestNamespace('h2-exits');
  });
  afterAll(async () => {
    await ns?.dispose();
  });
  scenario(
    () => ['--kernel', 'linux', '--netns', ns.name],
    async () => {
      const rule = await ns.run(['iptables', '-A', 'OUTPUT', '-m', 'set', '--match-set', HELD, 'dst', '-j', 'ACCEPT']);
      expect(rule.exitCode, rule.stderr).toBe(0);
    },
    async () => {
      expect((await ns.run(['iptables', '-F', 'OUTPUT'])).exitCode).toBe(0);
    },
  );
});
