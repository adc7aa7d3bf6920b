/**
 * The dual-stack example through the built `ipsets` binary, on the real kernel inside
 * a network namespace: apply converges, the kernel holds each family's members in
 * its own kernel set (family inet6 for the IPv6 ones, canonical as `ipset save`
 * prints them), lists hold both families' sets, and a second apply changes nothing.
 */
import { copyFile } from 'node:fs/promises';
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
    expect(byName('ns-shop')?.members.slice().sort()).toEqual(['10.244.1.10', '10.244.1.11']);
    expect(byName('ns-shop')?.options).toMatch(/^family inet /);
    expect(byName('ns-shop inet6')?.members.slice().sort()).toEqual(['fd00:10:244:1::a', 'fd00:10:244:1::b']);
    expect(byName('ns-shop inet6')?.options).toMatch(/^family inet6 /);
    expect(byName('namedport:http inet6')?.members.slice().sort()).toEqual(['fd00:10:244:1::a,tcp:8080', 'fd00:10:244:1::b,tcp:8080']);
    expect(byName('cidr-allow-egress-in-ns-shop-0out inet6')?.members.slice().sort()).toEqual(['fd00:10:96::/48 nomatch', 'fd00::/8']);
    expect(byName('nslabel-team')?.members).toEqual(
      ['ns-shop', 'ns-shop inet6', 'ns-payments', 'ns-payments inet6'].map((n) => kernelName(n, { owner: DEFAULT_CLI_OWNER })),
    );

    const diff = await ipsets(['diff', 'dual-stack.yaml', '--exit-code', ...linux()], { cwd: dir });
    expect(diff.exitCode, diff.stdout).toBe(0);
    const again = await ipsets(['apply', 'dual-stack.yaml', '--json', ...linux()], { cwd: dir });
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ converged: true, linesTotal: 0 });
  }, 120_000);
});
