/**
 * The core drivers over the fake kernel, for the trust defects of issue 10: a set
 * destroyed behind the manager's back, reset of referenced sets, ownership, and the
 * save-file injection. The same scenarios run on the real kernel in
 * @ipsets/exec-linux's integration tests.
 */
import { describe, expect, it } from 'vitest';
import { IPSetManager, applyIPSets, parseListHeaders, parseSave, planReconcile, prefixedName, renderRestore, resetIPSets } from '@ipsets/core';
import type { SetMetadata } from '@ipsets/core';
import { FakeKernel, createFakePort } from '../../src/index.js';

const NS: SetMetadata = { name: 'team-a', type: 'namespace' };

describe('drivers over the fake kernel', () => {
  it('a set destroyed outside the library is recreated with all its members by the delta path (the kernel got only {10.0.0.3})', async () => {
    const kernel = new FakeKernel();
    const port = createFakePort(kernel);
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-1');
    m.addToSets([NS], '10.0.0.2', 'pod-2');
    expect((await applyIPSets(m, port)).converged).toBe(true);
    const name = m.getIPSet(prefixedName(NS))!.kernelName;
    expect(kernel.exec(['destroy', name]).exitCode).toBe(0);
    m.addToSets([NS], '10.0.0.3', 'pod-3');
    const report = await applyIPSets(m, port);
    expect(report.converged).toBe(true);
    expect(kernel.members(name)?.sort()).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });

  it('reset leaves a referenced owned set intact (members kept) and destroys the rest; foreign and look-alike sets are untouched', async () => {
    const kernel = new FakeKernel();
    for (const [name, member] of [
      ['azure-npm-used', '10.0.0.1'],
      ['azure-npm-free', '10.0.0.2'],
      ['azure-npm-', '10.0.0.3'],
      ['azure-npm-ABC', '10.0.0.4'],
      ['azure-npm-x.y', '10.0.0.5'],
      ['foo', '10.0.0.6'],
    ] as const) {
      expect(kernel.exec(['create', name, 'hash:net']).exitCode).toBe(0);
      expect(kernel.exec(['add', name, member]).exitCode).toBe(0);
    }
    kernel.reference('azure-npm-used');
    const before = kernel.saveText();
    const report = await resetIPSets(createFakePort(kernel));
    expect(report).toMatchObject({ found: ['azure-npm-used', 'azure-npm-free'], destroyed: ['azure-npm-free'], leaked: ['azure-npm-used'] });
    expect(kernel.members('azure-npm-used')).toEqual(['10.0.0.1']);
    const foreign = (text: string): string => text.split('\n').filter((l) => !/ azure-npm-(used|free)( |$)/.test(l)).join('\n');
    expect(foreign(kernel.saveText())).toBe(foreign(before));
  });

  it('a plan from a save with a 1,023-byte -F member leaves every foreign set as it was', async () => {
    const kernel = new FakeKernel();
    const owned = 'azure-npm-aaa';
    kernel.exec(['create', owned, 'hash:net']);
    kernel.exec(['create', 'foreign', 'hash:net']);
    kernel.exec(['add', 'foreign', '10.9.9.9']);
    const head = `-D ${owned} 10.0.0.0/`;
    const member = `10.0.0.0/${'0'.repeat(1023 - head.length - 2)}24-F`;
    const save = `${kernel.saveText()}add ${owned} ${member}\n`;
    const snapshot = parseSave(save);
    const plan = planReconcile({ owner: 'azure-npm-', sets: [{ name: owned, spec: 'nethash', members: ['10.0.0.1'] }] }, snapshot, parseListHeaders(kernel.listHeaders().stdout));
    const text = renderRestore(plan);
    expect(text).not.toContain('-F\n-');
    for (const line of text.split('\n')) expect(line.length + 1).toBeLessThanOrEqual(1023);
    const before = kernel.save('foreign').stdout;
    expect(kernel.restore(text, { exist: true }).exitCode).toBe(0);
    expect(kernel.save('foreign').stdout).toBe(before);
    expect(kernel.members(owned)).toEqual(['10.0.0.1']);
  });
});
