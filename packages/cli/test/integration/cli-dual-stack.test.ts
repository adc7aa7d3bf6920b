/**
 * The dual-stack example through the built `ipsets` binary, on the real kernel inside
 * a network namespace: apply converges, the kernel holds each family's members in
 * its own kernel set (family inet6 for the IPv6 ones, canonical as `ipset save`
 * prints them), lists hold both families' sets, and a second apply changes nothing;
 * `ipsets plan --save` against that node's save (ipset's own and `ipsets save`'s)
 * plans no member line; a `family: inet6` set held by a list gets no `family inet` set.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { EXAMPLES, ipsets, tempDir } from '../helpers/run-ipsets.js';
import { describeKernel } from '../helpers/kernel.js';

describeKernel('ipsets apply of examples/dual-stack.yaml (real kernel, network namespace)', () => {
  let ns: TestNamespace;
  let dir: string;
  let cleanup: () => Promise<void>;
  const linux = () => ['--kernel', 'linux', '--netns', ns.name];

  beforeAll(async () => {
    ns = await createTestNamespace('h7-cli-dual');
    ({ dir, cleanup } = await tempDir());
    await copyFile(join(EXAMPLES, 'dual-stack.yaml'), join(dir, 'dual-stack.yaml'));
  });
  afterAll(async () => {
    await ns?.dispose();
    await cleanup?.();
  });

  it('converges with one kernel set per family, and a second apply plans nothing', async () => {
    const apply = await ipsets(['apply', 'dual-stack.yaml', ...linux()], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('converged');

    const kernel = parseSave((await ns.run(['ipset', 'save'])).stdout);
    const byName = (prefixed: string) => kernel.sets.find((s) => s.name === kernelName(prefixed, { owner: DEFAULT_CLI_OWNER }));
    expect([...(byName('ns-shop')?.members ?? [])].sort()).toEqual(['10.244.1.10', '10.244.1.11']);
    expect(byName('ns-shop')?.options).toMatch(/^family inet /);
    expect([...(byName('ns-shop inet6')?.members ?? [])].sort()).toEqual(['fd00:10:244:1::a', 'fd00:10:244:1::b']);
    expect(byName('ns-shop inet6')?.options).toMatch(/^family inet6 /);
    expect([...(byName('namedport:http inet6')?.members ?? [])].sort()).toEqual(['fd00:10:244:1::a,tcp:8080', 'fd00:10:244:1::b,tcp:8080']);
    expect([...(byName('cidr-allow-egress-in-ns-shop-0out inet6')?.members ?? [])].sort()).toEqual(['fd00:10:96::/48 nomatch', 'fd00::/8']);
    expect([...(byName('nslabel-team')?.members ?? [])]).toEqual(
      ['ns-shop', 'ns-shop inet6', 'ns-payments', 'ns-payments inet6'].map((n) => kernelName(n, { owner: DEFAULT_CLI_OWNER })),
    );

    const diff = await ipsets(['diff', 'dual-stack.yaml', '--exit-code', ...linux()], { cwd: dir });
    expect(diff.exitCode, diff.stdout).toBe(0);
    const again = await ipsets(['apply', 'dual-stack.yaml', '--json', ...linux()], { cwd: dir });
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ converged: true, linesTotal: 0 });
  }, 120_000);

  // The save checker of `plan --save` once checked every owned member as IPv4 and
  // refused the node's own save ("not a valid hash:net member") for its inet6 sets.
  it('plan --save against the save of the node where it was applied exits 0 and plans no member line', async () => {
    const apply = await ipsets(['apply', 'dual-stack.yaml', ...linux()], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    const own = await ipsets(['save', ...linux()], { cwd: dir });
    expect(own.exitCode, own.stderr).toBe(0);
    await writeFile(join(dir, 'ipsets-save.txt'), own.stdout);
    await writeFile(join(dir, 'ipset-save.txt'), (await ns.run(['ipset', 'save'])).stdout);
    for (const save of ['ipset-save.txt', 'ipsets-save.txt']) {
      const plan = await ipsets(['plan', 'dual-stack.yaml', '--save', save], { cwd: dir });
      expect(plan.exitCode, `${save}: ${plan.stderr}`).toBe(0);
      expect(plan.stdout.split('\n').filter((l) => /^-[AD] /.test(l)), save).toEqual([]);
      expect(plan.stderr).toMatch(/plan against .*\(\d+ sets\)/);
    }
  }, 120_000);

  // A list once held a family-less reference to the set, which made an empty `family
  // inet` sibling in the kernel just to put it into the list.
  it('a family: inet6 set held by a list creates no family inet set, in the kernel or in the list', async () => {
    await writeFile(
      join(dir, 'v6-only.yaml'),
      [
        'sets:',
        '  - { type: keyValueLabelOfPod, name: "app:v6", family: inet6, members: ["fd00::1"] }',
        '  - { type: keyValueLabelOfPod, name: "app:v4", family: inet, members: ["10.0.0.1"] }',
        '  - type: nestedLabelOfPod',
        '    name: "app:any"',
        '    members: [{ type: keyValueLabelOfPod, name: "app:v6" }, { type: keyValueLabelOfPod, name: "app:v4" }]',
        '',
      ].join('\n'),
    );
    // The same owner as the dual-stack file: this apply replaces its sets.
    const apply = await ipsets(['apply', 'v6-only.yaml', ...linux()], { cwd: dir });
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    const owned = parseSave((await ns.run(['ipset', 'save'])).stdout).sets.filter((s) => s.name.startsWith(DEFAULT_CLI_OWNER));
    const name = (prefixed: string) => kernelName(prefixed, { owner: DEFAULT_CLI_OWNER });
    expect(owned.map((s) => s.name).sort()).toEqual([name('podlabel-app:v6 inet6'), name('podlabel-app:v4'), name('nestedlabel-app:any')].sort());
    expect([...(owned.find((s) => s.name === name('nestedlabel-app:any'))?.members ?? [])]).toEqual([name('podlabel-app:v6 inet6'), name('podlabel-app:v4')]);
  }, 120_000);
});
