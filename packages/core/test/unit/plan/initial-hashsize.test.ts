/**
 * A hash set the plan creates and fills with more than 3 × 1024 members asks for the
 * hashsize the kernel would end at (model/capacity.ts `initialHashsize`): from the
 * default 1024 buckets the kernel doubles and rehashes as it fills, which made a restore
 * of 100 sets × 10,000 members take 7.4–8.2 s instead of 4.4–5.1 s. Smaller sets, sets
 * that exist, lists and sets with an asked-for hashsize keep today's create line.
 */
import { describe, expect, it } from 'vitest';
import { initialHashsize, withInitialHashsize } from '../../../src/model/capacity.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply } from '../../../src/plan/plan-apply.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { parseSave } from '../../../src/parse/save-parser.js';
import { renderRestore } from '../../../src/session/render.js';
import { report } from '../../helpers/manager-fixtures.js';
import type { DesiredState, PlanLine, SetMetadata } from '../../../src/types.js';

const hosts = (n: number): string[] => Array.from({ length: n }, (_, i) => `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`);
const creates = (lines: readonly PlanLine[]): PlanLine[] => lines.filter((l) => l.op === 'create');

describe('initialHashsize', () => {
  it('leaves sets of up to 3 × 1024 members to the kernel default and then gives one bucket per three members, a power of two', () => {
    expect(initialHashsize(0)).toBeUndefined();
    expect(initialHashsize(3072)).toBeUndefined();
    expect(initialHashsize(3073)).toBe(2048);
    expect(initialHashsize(6144)).toBe(2048);
    expect(initialHashsize(10_000)).toBe(4096);
    expect(initialHashsize(65_536)).toBe(32_768);
    expect(initialHashsize(Number.NaN)).toBeUndefined();
  });

  it('never replaces a hashsize that was asked for', () => {
    expect(withInitialHashsize({ hashsize: 64 }, 10_000)).toEqual({ hashsize: 64 });
    expect(withInitialHashsize({ maxelem: 200_000 }, 10_000)).toEqual({ maxelem: 200_000, hashsize: 4096 });
    expect(withInitialHashsize({}, 100)).toEqual({});
  });
});

describe('create lines of big new hash sets', () => {
  it('reconcile sizes a new 10,000-member set and renders it', () => {
    const desired: DesiredState = {
      owner: 'azure-npm-',
      sets: [
        { name: 'azure-npm-1', spec: 'nethash', members: hosts(10_000) },
        { name: 'azure-npm-2', spec: 'nethash', members: hosts(3000) },
        { name: 'azure-npm-3', spec: 'nethash', members: hosts(10_000), hashsize: 1024 },
        { name: 'azure-npm-4', spec: 'setlist', members: ['azure-npm-1'] },
      ],
    };
    const plan = planReconcile(desired, parseSave(''), []);
    expect(creates(plan.lines).map((l) => [l.set, l.hashsize])).toEqual([
      ['azure-npm-1', 4096],
      ['azure-npm-2', undefined],
      ['azure-npm-3', 1024],
      ['azure-npm-4', undefined],
    ]);
    expect(renderRestore(plan).split('\n', 1)[0]).toBe('-N azure-npm-1 --exist nethash hashsize 4096');
  });

  it('reconcile leaves the create line of a set the kernel holds alone, and sees nothing to change once the kernel has it', () => {
    const header = 'family inet hashsize 4096 maxelem 65536 bucketsize 12 initval 0x1a2b3c4d';
    const save = parseSave([`create azure-npm-1 hash:net ${header}`, ...hosts(10_000).map((m) => `add azure-npm-1 ${m}`), ''].join('\n'));
    const plan = planReconcile({ owner: 'azure-npm-', sets: [{ name: 'azure-npm-1', spec: 'nethash', members: hosts(10_000) }] }, save, []);
    expect(plan.lines).toEqual([]);
  });

  it('apply sizes a set it creates, not one it only updates', () => {
    const meta: SetMetadata = { name: 'prod', type: 'namespace' };
    const m = new IPSetManager();
    for (const ip of hosts(5000)) m.addToSets([meta], ip, 'ns/pod');
    const first = planApply(m);
    expect(creates(first.lines).map((l) => l.hashsize)).toEqual([2048]);
    m.commit(report(first));
    m.addToSets([meta], '10.200.0.1', 'ns/pod');
    expect(creates(planApply(m).lines).map((l) => l.hashsize)).toEqual([undefined]);
  });
});
