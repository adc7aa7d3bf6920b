/**
 * The fates of set-fate.ts on the paths that lacked them (issue 23): growth in the delta
 * path, temporaries that cannot block their set, orphan temporaries removed wherever
 * the kernel's names are read.
 */
import { describe, expect, it } from 'vitest';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply, planApplyWithSave } from '../../../src/plan/plan-apply.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { temporaryName } from '../../../src/plan/rebuild.js';
import { chooseTemporary } from '../../../src/plan/set-fate.js';
import { renderRestore } from '../../../src/session/render.js';
import { parseSave } from '../../../src/parse/save-parser.js';
import type { ApplyReport, DesiredState, RestorePlan, SavedSet, SetHeader } from '../../../src/types.js';
import { savedSet } from '../../../src/parse/saved-members.js';

const OWNER = 'azure-npm-';
const NS = { name: 'web', type: 'namespace' } as const;

function done(plan: RestorePlan): ApplyReport {
  return { converged: true, plan, attempts: [], linesTotal: plan.lines.length, linesApplied: plan.lines.length, skipped: [], failedSets: [], inUseSets: [], notes: [] };
}

function hosts(from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `10.${(from + i) >> 16}.${((from + i) >> 8) & 255}.${(from + i) & 255}`);
}

describe('growth in the delta path (planApply), with the policy and ceiling of reconcile', () => {
  it('a new set whose members do not fit its maxelem is created grown (it got hash-full)', () => {
    const m = new IPSetManager({ capacity: { namespace: { maxelem: 1024 } } });
    for (const ip of hosts(0, 1500)) m.addToSets([NS], ip, 'p');
    const plan = planApply(m);
    expect(renderRestore(plan).split('\n')[0]).toMatch(/^-N \S+ --exist nethash maxelem 2048$/);
    expect(plan.notes).toEqual([expect.objectContaining({ kind: 'info', message: expect.stringContaining('grown to maxelem 2048') })]);
  });

  it('a set that outgrows its maxelem by an update is rebuilt through a temporary set and swap with the grown maxelem, never flushed', () => {
    const m = new IPSetManager({ capacity: { namespace: { maxelem: 1024 } } });
    for (const ip of hosts(0, 1000)) m.addToSets([NS], ip, 'p');
    m.commit(done(planApply(m)));
    for (const ip of hosts(1000, 100)) m.addToSets([NS], ip, 'p');
    const live = m.dirtySets()[0]!.kernelName;
    const t = temporaryName(OWNER, live);
    const text = renderRestore(planApply(m, { kernelSets: new Set([live]) }));
    expect(text).not.toMatch(/^-F /m);
    expect(text).toContain(`-N ${t} --exist nethash maxelem 2048\n`);
    expect(text).toContain(`-W ${t} ${live}\n`);
    expect(text.split('\n').filter((l) => l.startsWith(`-A ${t} `))).toHaveLength(1100);
  });

  it('with growth off, the set keeps its maxelem and is patched (the members past it fail for that set only)', () => {
    const m = new IPSetManager({ capacity: { namespace: { maxelem: 1024 } } });
    for (const ip of hosts(0, 1000)) m.addToSets([NS], ip, 'p');
    m.commit(done(planApply(m)));
    for (const ip of hosts(1000, 100)) m.addToSets([NS], ip, 'p');
    const text = renderRestore(planApply(m, { growth: { enabled: false } }));
    expect(text).not.toContain('-W ');
    expect(text.split('\n').filter((l) => l.startsWith('-A '))).toHaveLength(100);
  });
});

describe('temporaries that cannot block their set (a stuck temporary blocked it forever)', () => {
  const A = 'azure-npm-aaaa';
  const saved = (name: string, maxelem: number, members: string[] = []): SavedSet => savedSet(name, 'hash:net', `family inet hashsize 1024 maxelem ${maxelem}`, members);
  const header = (name: string, references: number): SetHeader => ({ name, type: 'hash:net', header: '', references, entries: 0 });
  const desired: DesiredState = { owner: OWNER, sets: [{ name: A, spec: 'nethash', maxelem: 131072, members: ['10.0.0.1'] }] };

  it('chooseTemporary skips names the kernel holds, in order', () => {
    const t0 = temporaryName(OWNER, A);
    const t1 = temporaryName(OWNER, A, '', 1);
    expect(t1).not.toBe(t0);
    expect(t1).toHaveLength(A.length);
    expect(chooseTemporary(OWNER, A, '')).toBe(t0);
    expect(chooseTemporary(OWNER, A, '', (n) => n === t0)).toBe(t1);
  });

  it('reconcile: a referenced set of the first temporary name is reported and left; the set still rebuilds through the next one (maxelem applied, drift repaired)', () => {
    const t0 = temporaryName(OWNER, A);
    const t1 = temporaryName(OWNER, A, '', 1);
    const plan = planReconcile(desired, { sets: [saved(A, 1024, ['10.0.0.7']), saved(t0, 1024)], problems: [] }, [header(A, 1), header(t0, 1)]);
    expect(renderRestore(plan)).toBe(`-X ${t1}\n-N ${t1} --exist nethash maxelem 131072\n-A ${t1} 10.0.0.1\n-W ${t1} ${A}\n-X ${t1}\n`);
    expect(plan.notes).toEqual(expect.arrayContaining([expect.objectContaining({ set: t0, kind: 'referenced-not-destroyed' })]));
    // Once free, it is removed.
    const later = planReconcile(desired, { sets: [saved(A, 131072, ['10.0.0.1']), saved(t0, 1024)], problems: [] }, [header(A, 1), header(t0, 0)]);
    expect(renderRestore(later)).toBe(`-X ${t0}\n`);
  });

  it('the delta path: with the kernel names read, the next free temporary is used and the leftover one removed (reported in use while a rule holds it)', () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'p');
    const first = planApply(m);
    const live = m.dirtySets()[0]!.kernelName;
    m.commit({ ...done(first), converged: false, failedSets: [live], fatal: { code: 'RESTORE_FAILED', message: 'killed' } });
    const t0 = temporaryName(OWNER, live);
    const t1 = temporaryName(OWNER, live, '', 1);
    const text = renderRestore(planApply(m, { kernelSets: new Set([live, t0]) }));
    expect(text).toBe(`-N ${live} --exist nethash\n-X ${t0}\n-X ${t1}\n-N ${t1} --exist nethash\n-A ${t1} 10.0.0.1\n-W ${t1} ${live}\n-X ${t1}\n`);
  });

  it('apply with a save: the same, from the save', () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'p');
    const live = m.dirtySets()[0]!.kernelName;
    const t0 = temporaryName(OWNER, live);
    const t1 = temporaryName(OWNER, live, '', 1);
    const plan = planApplyWithSave(m, { sets: [saved(live, 65536, ['10.0.0.1', 'junk!']), saved(t0, 65536)], problems: [] });
    const text = renderRestore(plan);
    expect(text).toContain(`-X ${t0}\n-X ${t1}\n-N ${t1} --exist nethash\n`);
    expect(text).not.toMatch(/^-F /m);
  });
});

describe('a recreated set an owned list holds (apply with a save planned "-X" of a list member, which the kernel refuses)', () => {
  // A list names the empty set (addEmptySetToLists); the kernel holds that set with family inet6.
  function listHoldingInet6Member(): { m: IPSetManager; list: string; member: string; save: ReturnType<typeof parseSave> } {
    const m = new IPSetManager({ mode: 'on-need', addEmptySetToLists: true });
    m.addReference({ name: 'team:a', type: 'keyValueLabelOfNamespace' }, 'prod/deny-all', 'netpol');
    const sets = m.desiredState().sets;
    const list = sets.find((s) => s.spec === 'setlist')!.name;
    const member = sets.find((s) => s.spec !== 'setlist')!.name;
    const save = parseSave(`create ${member} hash:net family inet6 maxelem 4294967295\ncreate ${list} list:set\nadd ${list} ${member}\n`);
    return { m, list, member, save };
  }

  it('apply with a save: the list lets go of the member before its -X and adds it back after its -N, as reconcile does', () => {
    const { m, list, member, save } = listHoldingInet6Member();
    const text = renderRestore(planApplyWithSave(m, save));
    const lines = text.trim().split('\n');
    const del = lines.indexOf(`-D ${list} ${member}`);
    const destroy = lines.indexOf(`-X ${member}`);
    const create = lines.indexOf(`-N ${member} --exist nethash`);
    const add = lines.indexOf(`-A ${list} ${member}`);
    expect({ del, destroy, create, add }).toEqual({ del: 0, destroy: 1, create: 2, add: expect.any(Number) });
    expect(add).toBeGreaterThan(create);
    expect(text).not.toMatch(/^-F /m);
  });

  it('apply with a save and reconcile plan the same lines for the list', () => {
    const { m, list, save } = listHoldingInet6Member();
    // The list's hold is the member's only reference.
    const headers: SetHeader[] = save.sets.map((s) => ({ name: s.name, type: s.type, header: s.options, references: s.type === 'list:set' ? 0 : 1, entries: s.members.length }));
    const ofList = (plan: RestorePlan): string[] => renderRestore(plan).trim().split('\n').filter((l) => l.startsWith(`-D ${list} `) || l.startsWith(`-A ${list} `));
    expect(ofList(planApplyWithSave(m, save))).toEqual(ofList(planReconcile(m.desiredState(), save, headers)));
  });
});
