import { describe, expect, it } from 'vitest';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply, planApplyWithSave } from '../../../src/plan/plan-apply.js';
import { APPLY_HANDLERS, REBUILD_HANDLERS, addOrUpdateSection, deleteSection } from '../../../src/plan/handlers.js';
import { renderRestore } from '../../../src/session/render.js';
import type { PlanLine, SaveSnapshot, SavedSet } from '../../../src/types.js';
import { CIDR, K, KEY_NS, KEY_POD, NAMED_PORT, NESTED, NS, applyAll, lines, manager, report, text } from '../../helpers/manager-fixtures.js';import { temporaryName } from '../../../src/plan/rebuild.js';
import { savedSet } from '../../../src/parse/saved-members.js';


/** A manager whose kernel (after one successful apply) holds NS {.1,.2}, KEY_NS [NS], CIDR {10.1.0.0/16}, KEY_POD {}. */
function applied(): IPSetManager {
  const m = manager();
  m.addToSets([NS], '10.0.0.1', 'a');
  m.addToSets([NS], '10.0.0.2', 'b');
  m.addToLists([KEY_NS], [NS]);
  m.addToSets([CIDR], '10.1.0.0/16', 'np');
  m.createIPSets([KEY_POD]);
  applyAll(m);
  return m;
}

/** The mixed change set used by several tests. */
function mixedChanges(m: IPSetManager): void {
  m.removeFromSets([NS], '10.0.0.1', 'a');
  m.addToSets([NS], '10.0.0.3', 'c');
  m.addToSets([NAMED_PORT], '10.0.0.1,80', 'a');
  m.removeFromList(KEY_NS, [NS]);
  m.deleteIPSet('podlabel-test-keyPod-set');
  m.addToSets([CIDR], '10.1.0.0/16 nomatch', 'np');
}

const MIXED = lines(
  `-N ${K.NS} --exist nethash`,
  `-N ${K.NAMED_PORT} --exist hash:ip,port`,
  `-N ${K.KEY_NS} --exist setlist`,
  `-N ${K.CIDR} --exist nethash maxelem 4294967295`,
  `-D ${K.NS} 10.0.0.1`,
  `-A ${K.NS} 10.0.0.3`,
  `-A ${K.NAMED_PORT} 10.0.0.1,tcp:80`,
  `-D ${K.KEY_NS} ${K.NS}`,
  `-D ${K.CIDR} 10.1.0.0/16`,
  `-A ${K.CIDR} 10.1.0.0/16 nomatch`,
  `-X ${K.KEY_POD}`,
);

describe('planApply', () => {
  it('plans creates, then per set deletes then adds, then destroys (never a flush), in call order', () => {
    const m = applied();
    mixedChanges(m);
    expect(text(m)).toBe(MIXED);
  });

  it('gives every line the reference\'s section and handlers', () => {
    const m = applied();
    mixedChanges(m);
    const plan = planApply(m);
    const summary = plan.lines.map((l) => [l.op, l.set, l.section, l.onError]);
    const up = (p: string): string => addOrUpdateSection(p);
    expect(summary).toEqual([
      ['create', K.NS, up('ns-test-ns-set'), APPLY_HANDLERS.create],
      ['create', K.NAMED_PORT, up('namedport:test-namedport-set'), APPLY_HANDLERS.create],
      ['create', K.KEY_NS, up('nslabel-test-keyNS-list'), APPLY_HANDLERS.create],
      ['create', K.CIDR, up('cidr-test-cidr-set'), APPLY_HANDLERS.create],
      ['del', K.NS, up('ns-test-ns-set'), APPLY_HANDLERS.del],
      ['add', K.NS, up('ns-test-ns-set'), APPLY_HANDLERS.addToSet],
      ['add', K.NAMED_PORT, up('namedport:test-namedport-set'), APPLY_HANDLERS.addToSet],
      ['del', K.KEY_NS, up('nslabel-test-keyNS-list'), APPLY_HANDLERS.delFromList],
      ['del', K.CIDR, up('cidr-test-cidr-set'), APPLY_HANDLERS.del],
      ['add', K.CIDR, up('cidr-test-cidr-set'), APPLY_HANDLERS.addToSet],
      ['destroy', K.KEY_POD, deleteSection('podlabel-test-keyPod-set'), APPLY_HANDLERS.destroy],
    ]);
    expect(plan.lines[0]!.section).toBe('add/update-ns-test-ns-set');
    // The line array is allocated at its exact size: no holes, nothing left over.
    expect(Object.keys(plan.lines)).toHaveLength(plan.lines.length);
  });

  it('uses list handlers for adds to lists', () => {
    const m = manager();
    m.addToLists([NESTED], [KEY_POD]);
    const add = planApply(m).lines.find((l) => l.op === 'add')!;
    expect(add).toEqual({ op: 'add', set: K.NESTED, member: K.KEY_POD, section: 'add/update-nestedlabel-test-nestedlabel-list', onError: APPLY_HANDLERS.addToList });
  });

  it('maps the reference\'s handler table (docs/reference-behaviour.md §e.1) to data', () => {
    expect(APPLY_HANDLERS).toEqual({
      create: [
        { when: 'set-exists', then: 'skip-section', report: 'not-converged' },
        { when: 'any', then: 'skip-section', report: 'not-converged' },
      ],
      addToList: [
        { when: 'member-set-missing', then: 'skip-line', report: 'not-converged' },
        { when: 'any', then: 'skip-line', report: 'not-converged' },
      ],
      addToSet: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
      del: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
      // Not in the reference: a list delete of a member set that is gone already holds.
      delFromList: [
        { when: 'member-set-missing', then: 'skip-line', report: 'ignorable' },
        { when: 'any', then: 'skip-line', report: 'not-converged' },
      ],
      // Not in the reference: -X without a -F first (issue 23), so a set already gone is fine.
      destroy: [
        { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
        { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
        { when: 'any', then: 'skip-line', report: 'not-converged' },
      ],
      destroyToRecreate: [
        { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
        { when: 'any', then: 'skip-section', report: 'not-converged' },
      ],
    });
    expect(Object.isFrozen(APPLY_HANDLERS.create)).toBe(true);
    expect(Object.isFrozen(APPLY_HANDLERS.create[0])).toBe(true);
  });

  it('shares one handler array between all lines of a kind', () => {
    const m = manager();
    for (let i = 1; i <= 5; i++) m.addToSets([NS, KEY_POD], `10.0.0.${i}`, 'p');
    const adds = planApply(m).lines.filter((l) => l.op === 'add');
    expect(adds).toHaveLength(10);
    for (const l of adds) expect(l.onError).toBe(APPLY_HANDLERS.addToSet);
  });

  it('keeps the canonical member on del lines; the text drops nomatch (issue #2840)', () => {
    const m = manager();
    m.addToSets([CIDR], '10.2.0.0/16 nomatch', 'np');
    applyAll(m);
    m.removeFromSets([CIDR], '10.2.0.0/16 nomatch', 'np');
    const plan = planApply(m);
    expect(plan.lines[1]).toEqual({ op: 'del', set: K.CIDR, member: '10.2.0.0/16 nomatch', section: 'add/update-cidr-test-cidr-set', onError: APPLY_HANDLERS.del });
    expect(renderRestore(plan)).toBe(lines(`-N ${K.CIDR} --exist nethash maxelem 4294967295`, `-D ${K.CIDR} 10.2.0.0/16`));
  });

  it('is deterministic: the same calls give the same bytes', () => {
    const a = applied();
    const b = applied();
    mixedChanges(a);
    mixedChanges(b);
    expect(text(a)).toBe(text(b));
    expect(text(a)).toBe(text(a)); // planning twice without commit changes nothing
  });

  it('follows call order, not hash order', () => {
    const m = manager();
    const members = ['10.9.0.1', '10.0.0.7', '192.168.1.1', '10.0.0.3', '172.16.0.0/12'];
    for (const ip of members) m.addToSets([KEY_POD], ip, 'p');
    m.addToSets([NS], '10.0.0.1', 'p');
    expect(text(m)).toBe(
      lines(`-N ${K.KEY_POD} --exist nethash`, `-N ${K.NS} --exist nethash`, ...members.map((ip) => `-A ${K.KEY_POD} ${ip}`), `-A ${K.NS} 10.0.0.1`),
    );
  });

  it('plans nothing when nothing is dirty', () => {
    const m = applied();
    expect(planApply(m).lines).toEqual([]);
    expect(new IPSetManager().hasDirtyChanges).toBe(false);
  });

  it('plans a create line for an update whose diff cancelled out (as the reference does)', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.9', 'x');
    m.removeFromSets([NS], '10.0.0.9', 'x');
    expect(text(m)).toBe(lines(`-N ${K.NS} --exist nethash`));
  });
});

describe('manager.commit', () => {
  it('clears everything a fully successful apply covered', () => {
    const m = applied();
    mixedChanges(m);
    const plan = planApply(m);
    const result = m.commit(report(plan));
    expect(result).toEqual({
      stale: false,
      applied: ['ns-test-ns-set', 'namedport:test-namedport-set', 'nslabel-test-keyNS-list', 'podlabel-test-keyPod-set', 'cidr-test-cidr-set'],
      kept: [],
    });
    expect(planApply(m).lines).toEqual([]);
  });

  it('clears nothing after a fatal session that reached no set, and rebuilds every set it covered (a restore that died part-way was retried blind: issue 23)', () => {
    const m = applied();
    mixedChanges(m);
    const plan = planApply(m);
    const all = [...new Set(plan.lines.map((l) => l.set))];
    const result = m.commit(report(plan, { fatal: { code: 'RESTORE_FAILED', message: 'ipset crashed' }, failedSets: all }));
    expect(result.applied).toEqual([]);
    expect(result.kept).toHaveLength(5);
    // Their contents are uncertain: never the same delta again, never a flush; each is
    // rebuilt through a temporary set and swap (or destroyed).
    const next = text(m);
    expect(next).not.toMatch(/^-[FD] /m);
    for (const live of [K.NS, K.NAMED_PORT, K.KEY_NS, K.CIDR]) expect(next).toContain(`-W ${temporaryName('azure-npm-', live)} ${live}\n`);
    expect(next).toContain(`-X ${K.KEY_POD}\n`);
  });

  it('after a fatal session, clears the sets whose lines all landed before it ended', () => {
    const m = applied();
    mixedChanges(m);
    const plan = planApply(m);
    const notReached = [...new Set(plan.lines.map((l) => l.set))].filter((s) => s !== K.NS);
    const result = m.commit(report(plan, { fatal: { code: 'RESTORE_FAILED', message: 'attempts exhausted' }, failedSets: notReached }));
    expect(result.applied).toEqual(['ns-test-ns-set']);
    expect(result.kept).toHaveLength(4);
    expect(planApply(m).lines.some((l) => l.set === K.NS)).toBe(false);
  });

  it('keeps failed sets dirty and clears the rest', () => {
    const m = applied();
    mixedChanges(m);
    m.commit(report(planApply(m), { failedSets: [K.NS, K.CIDR] }));
    expect(text(m)).toBe(
      lines(
        `-N ${K.NS} --exist nethash`,
        `-N ${K.CIDR} --exist nethash maxelem 4294967295`,
        `-D ${K.NS} 10.0.0.1`,
        `-A ${K.NS} 10.0.0.3`,
        `-D ${K.CIDR} 10.1.0.0/16`,
        `-A ${K.CIDR} 10.1.0.0/16 nomatch`,
      ),
    );
  });

  it('keeps a set whose destroy was refused (in use) dirty, so the destroy is retried', () => {
    const m = applied();
    m.deleteIPSet('podlabel-test-keyPod-set');
    m.commit(report(planApply(m), { inUseSets: [K.KEY_POD] }));
    expect(text(m)).toBe(lines(`-X ${K.KEY_POD}`));
    applyAll(m);
    expect(text(m)).toBe('');
  });

  it('keeps changes made after planning dirty', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.8', 'x');
    const plan = planApply(m);
    m.addToSets([NS], '10.0.0.9', 'y'); // after planning
    m.removeFromSets([NS], '10.0.0.8', 'x'); // undoes a planned add
    m.addToSets([KEY_POD], '10.0.0.5', 'z'); // a set the plan did not cover
    m.commit(report(plan));
    expect(text(m)).toBe(
      lines(`-N ${K.NS} --exist nethash`, `-N ${K.KEY_POD} --exist nethash`, `-D ${K.NS} 10.0.0.8`, `-A ${K.NS} 10.0.0.9`, `-A ${K.KEY_POD} 10.0.0.5`),
    );
  });

  it('a set created by the plan and deleted after planning is destroyed next', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    const plan = planApply(m);
    m.deleteIPSet('ns-test-ns-set', 'force');
    expect(m.dirtySets()).toEqual([]); // as far as the old kernel state goes, nothing to do
    m.commit(report(plan));
    expect(text(m)).toBe(lines(`-X ${K.NS}`));
  });

  it('a set created by the plan that gains members after planning sends only the new members next', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    m.addToLists([KEY_NS], [NS]);
    const plan = planApply(m);
    m.addToSets([NS], '10.0.0.2', 'q');
    m.addToLists([KEY_NS], [KEY_POD]);
    m.commit(report(plan));
    expect(text(m)).toBe(
      lines(
        `-N ${K.NS} --exist nethash`,
        `-N ${K.KEY_NS} --exist setlist`,
        `-N ${K.KEY_POD} --exist nethash`,
        `-A ${K.NS} 10.0.0.2`,
        `-A ${K.KEY_NS} ${K.KEY_POD}`,
      ),
    );
  });

  it('a set created by the plan that loses a member after planning is rebuilt next (the basis keeps no copy of a new set\'s members)', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    m.addToSets([NS], '10.0.0.2', 'q');
    const plan = planApply(m);
    m.removeFromSets([NS], '10.0.0.1', 'p');
    m.commit(report(plan));
    const t = temporaryName('azure-npm-', K.NS);
    expect(text(m)).toBe(lines(`-N ${K.NS} --exist nethash`, `-X ${t}`, `-N ${t} --exist nethash`, `-A ${t} 10.0.0.2`, `-W ${t} ${K.NS}`, `-X ${t}`));
  });

  it('a set destroyed by the plan and re-created after planning is created again with its members', () => {
    const m = applied();
    m.deleteIPSet('podlabel-test-keyPod-set');
    const plan = planApply(m);
    m.addToSets([KEY_POD], '10.0.0.5', 'p');
    m.commit(report(plan));
    expect(text(m)).toBe(lines(`-N ${K.KEY_POD} --exist nethash`, `-A ${K.KEY_POD} 10.0.0.5`));
  });

  it('a failed set that changed after planning is re-sent whole, as a rebuild through a temporary set and swap (no flush in place)', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.4', 'd');
    const plan = planApply(m);
    m.removeFromSets([NS], '10.0.0.2', 'b'); // after planning
    m.commit(report(plan, { failedSets: [K.NS] }));
    const next = planApply(m);
    const t = temporaryName('azure-npm-', K.NS);
    expect(renderRestore(next)).toBe(
      lines(`-N ${K.NS} --exist nethash`, `-X ${t}`, `-N ${t} --exist nethash`, `-A ${t} 10.0.0.1`, `-A ${t} 10.0.0.4`, `-W ${t} ${K.NS}`, `-X ${t}`),
    );
    expect(next.lines[5]).toEqual({ op: 'swap', set: t, to: K.NS, subject: K.NS, section: 'add/update-ns-test-ns-set', onError: REBUILD_HANDLERS.build });
    expect(next.lines.slice(1).every((l) => l.subject === K.NS)).toBe(true);
    m.commit(report(next));
    expect(text(m)).toBe('');
  });

  it('a failed set left alone is re-sent as planned (no flush); changed later, it is re-sent whole', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.4', 'd');
    m.commit(report(planApply(m), { failedSets: [K.NS] }));
    expect(text(m)).toBe(lines(`-N ${K.NS} --exist nethash`, `-A ${K.NS} 10.0.0.4`));
    // The kernel may hold 10.0.0.4 or not, so the diff can no longer follow changes.
    m.removeFromSets([NS], '10.0.0.4', 'd');
    const t = temporaryName('azure-npm-', K.NS);
    expect(text(m)).toBe(
      lines(`-N ${K.NS} --exist nethash`, `-X ${t}`, `-N ${t} --exist nethash`, `-A ${t} 10.0.0.1`, `-A ${t} 10.0.0.2`, `-W ${t} ${K.NS}`, `-X ${t}`),
    );
  });

  it('a failed create of a set deleted after the commit is destroyed (it may exist)', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    m.commit(report(planApply(m), { failedSets: [K.NS] }));
    m.deleteIPSet('ns-test-ns-set', 'force');
    expect(text(m)).toBe(lines(`-X ${K.NS}`));
  });

  it('a refused destroy of a set re-created after planning re-sends the set whole', () => {
    const m = applied();
    m.deleteIPSet('podlabel-test-keyPod-set');
    const plan = planApply(m);
    m.addToSets([KEY_POD], '10.0.0.5', 'p');
    m.commit(report(plan, { inUseSets: [K.KEY_POD] }));
    // Its kernel contents are unknown (the plan's lines may or may not have run).
    const t = temporaryName('azure-npm-', K.KEY_POD);
    expect(text(m)).toBe(lines(`-N ${K.KEY_POD} --exist nethash`, `-X ${t}`, `-N ${t} --exist nethash`, `-A ${t} 10.0.0.5`, `-W ${t} ${K.KEY_POD}`, `-X ${t}`));
  });

  it('a failed create of a set deleted after planning is destroyed (it may exist)', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    const plan = planApply(m);
    m.deleteIPSet('ns-test-ns-set', 'force');
    m.commit(report(plan, { failedSets: [K.NS] }));
    expect(text(m)).toBe(lines(`-X ${K.NS}`));
  });

  it('a preview plan changes nothing: a plan made before it stays committable, and changes made after that plan stay dirty', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.8', 'x');
    const first = planApply(m);
    m.addToSets([NS], '10.0.0.9', 'y');
    const dirtyBefore = m.dirtySets();
    for (let i = 0; i < 10; i++) planApply(m); // previews (the old manager kept only the latest 8 plans of a state)
    const second = planApply(m);
    expect(m.dirtySets()).toEqual(dirtyBefore);
    expect(m.commit(report(first))).toEqual({ stale: false, applied: ['ns-test-ns-set'], kept: [] });
    expect(text(m)).toBe(lines(`-N ${K.NS} --exist nethash`, `-A ${K.NS} 10.0.0.9`));
    // A commit makes every plan made before it stale: its entries describe the kernel before the commit.
    expect(m.commit(report(second))).toEqual({ stale: true, applied: [], kept: [] });
    expect(m.commit(report(first)).stale).toBe(true);
    expect(text(m)).toBe(lines(`-N ${K.NS} --exist nethash`, `-A ${K.NS} 10.0.0.9`));
  });

  it('commit(basis, report) takes the basis explicitly, from a snapshot planned by hand', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.8', 'x');
    const snapshot = m.dirtySnapshot();
    expect(snapshot.basis.size).toBe(1);
    const plan = planApply(snapshot);
    expect(renderRestore(plan)).toBe(lines(`-N ${K.NS} --exist nethash`, `-A ${K.NS} 10.0.0.8`));
    expect(m.commit(snapshot.basis, report({ lines: plan.lines }))).toEqual({ stale: false, applied: ['ns-test-ns-set'], kept: [] });
    expect(text(m)).toBe('');
    expect(m.commit(snapshot.basis, report(plan)).stale).toBe(true);
    expect(m.commit(undefined, report(plan)).stale).toBe(true);
  });

  it('a reset makes every earlier plan stale', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.8', 'x');
    const plan = planApply(m);
    m.reset();
    m.addToSets([NS], '10.0.0.8', 'x');
    expect(m.commit(report(plan)).stale).toBe(true);
    expect(m.dirtySets()).toHaveLength(1);
  });

  it('plans of an unchanged state are interchangeable: either may be committed, once', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.8', 'x');
    const first = planApply(m);
    const second = planApplyWithSave(m, { sets: [], problems: [] });
    expect(m.commit(report(second)).applied).toEqual(['ns-test-ns-set']);
    expect(m.commit(report(first)).stale).toBe(true);
    expect(text(m)).toBe('');
  });

  it('ignores reports of plans from another manager or without a basis', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.8', 'x');
    planApply(m);
    const other = applied();
    other.addToSets([NS], '10.0.0.8', 'x');
    expect(m.commit(report(planApply(other))).stale).toBe(true);
    expect(m.commit(report({ lines: [] })).stale).toBe(true);
    expect(text(m)).not.toBe('');
  });
});

describe('planApplyWithSave', () => {
  function saved(name: string, type: string, members: string[]): SavedSet {
    return savedSet(name, type, 'family inet hashsize 1024 maxelem 65536', members);
  }

  function snapshot(...sets: SavedSet[]): SaveSnapshot {
    return { sets, problems: [] };
  }

  it('diffs dirty sets in the kernel against their kernel members; the rest get all members', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'a');
    m.addToSets([NS], '10.0.0.5/24', 'b'); // canonical 10.0.0.0/24
    m.addToSets([KEY_POD], '10.0.0.9', 'c');
    m.addToSets([CIDR], '10.1.0.0/16', 'np');
    m.deleteIPSet('nothing');
    const plan = planApplyWithSave(
      m,
      snapshot(
        saved('foreign-set', 'hash:ip', ['1.2.3.4']),
        savedSet(K.CIDR, 'hash:net', 'family inet hashsize 1024 maxelem 4294967295', ['10.1.0.0/16 nomatch', '10.3.0.0/16']),
        saved(K.NS, 'hash:net', ['10.0.0.0/24', '10.0.0.7']),
      ),
    );
    expect(renderRestore(plan)).toBe(
      lines(
        `-N ${K.NS} --exist nethash`,
        `-N ${K.KEY_POD} --exist nethash`,
        `-N ${K.CIDR} --exist nethash maxelem 4294967295`,
        // In snapshot order: CIDR first. Same entry, other flag: delete then add.
        `-D ${K.CIDR} 10.1.0.0/16`,
        `-D ${K.CIDR} 10.3.0.0/16`,
        `-A ${K.CIDR} 10.1.0.0/16`,
        // 10.0.0.0/24 is unchanged (canonical forms compare equal).
        `-D ${K.NS} 10.0.0.7`,
        `-A ${K.NS} 10.0.0.1`,
        // Not in the kernel: all members.
        `-A ${K.KEY_POD} 10.0.0.9`,
      ),
    );
    expect(plan.lines[3]!.member).toBe('10.1.0.0/16 nomatch');
  });

  it('diffs lists by member kernel names and keeps destroys (without flushes)', () => {
    const m = manager();
    m.addToLists([KEY_NS], [NS, KEY_POD]);
    applyAll(m);
    m.removeFromList(KEY_NS, [KEY_POD]);
    m.deleteIPSet('podlabel-test-keyPod-set');
    const plan = planApplyWithSave(m, snapshot(saved(K.KEY_NS, 'list:set', [K.KEY_POD, K.NAMED_PORT])));
    expect(renderRestore(plan)).toBe(
      lines(
        `-N ${K.KEY_NS} --exist setlist`,
        `-D ${K.KEY_NS} ${K.KEY_POD}`,
        `-D ${K.KEY_NS} ${K.NAMED_PORT}`,
        `-A ${K.KEY_NS} ${K.NS}`,
        `-X ${K.KEY_POD}`,
      ),
    );
  });

  it('recreates a set of another type in the kernel, as reconcile does (it left the set failing: "its create line will fail")', () => {
    const m = manager();
    m.addToSets([NAMED_PORT], '10.0.0.1,tcp:80', 'p');
    const plan = planApplyWithSave(m, snapshot(saved(K.NAMED_PORT, 'hash:net', ['10.0.0.1'])));
    expect(renderRestore(plan)).toBe(lines(`-X ${K.NAMED_PORT}`, `-N ${K.NAMED_PORT} --exist hash:ip,port`, `-A ${K.NAMED_PORT} 10.0.0.1,tcp:80`));
    // Refused (a rule references it), the -X abandons the section: the set stays intact.
    expect(plan.lines[0]!.onError).toBe(APPLY_HANDLERS.destroyToRecreate);
    expect(plan.lines[0]!.section).toBe(plan.lines[1]!.section);
    expect(plan.notes).toEqual([expect.objectContaining({ set: K.NAMED_PORT, kind: 'type-conflict-recreated' })]);
  });

  it('recreates a set the kernel holds with another family (the same type), never flushing it', () => {
    const m = manager();
    m.addToSets([NAMED_PORT], '10.0.0.1,tcp:80', 'p');
    const plan = planApplyWithSave(m, snapshot(savedSet(K.NAMED_PORT, 'hash:ip,port', 'family inet6 hashsize 1024 maxelem 65536', ['fd00::1,tcp:80'])));
    expect(renderRestore(plan)).toBe(lines(`-X ${K.NAMED_PORT}`, `-N ${K.NAMED_PORT} --exist hash:ip,port`, `-A ${K.NAMED_PORT} 10.0.0.1,tcp:80`));
  });

  it('resolves unknown kernel contents exactly, without a flush', () => {
    const m = applied();
    m.addToSets([NS], '10.0.0.4', 'd');
    const plan = planApply(m);
    m.removeFromSets([NS], '10.0.0.2', 'b');
    m.commit(report(plan, { failedSets: [K.NS] }));
    const withSave = planApplyWithSave(m, snapshot(saved(K.NS, 'hash:net', ['10.0.0.2', '10.0.0.1'])));
    expect(renderRestore(withSave)).toBe(lines(`-N ${K.NS} --exist nethash`, `-D ${K.NS} 10.0.0.2`, `-A ${K.NS} 10.0.0.4`));
    m.commit(report(withSave));
    expect(text(m)).toBe('');
  });

  it('is committed like planApply', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'a');
    const plan = planApplyWithSave(m, snapshot());
    expect(renderRestore(plan)).toBe(lines(`-N ${K.NS} --exist nethash`, `-A ${K.NS} 10.0.0.1`));
    expect(m.commit(report(plan)).applied).toEqual(['ns-test-ns-set']);
    expect(planApply(m).lines).toEqual([] as PlanLine[]);
  });
});

describe('planApplyWithSave: a saved member that is not canonical is never echoed (the 1,023-byte -F injection through a save file)', () => {
  const hostile = `10.0.0.0/${'0'.repeat(1000)}24-F`;

  it.each([hostile, '10.0.0.5/24', '010.0.0.1', '10.0.0.1,tcp:80', 'fe80::1'])('rebuilds a hash:net set whose save shows %j through a temporary set and swap (it was flushed in place: an outage under live rules)', (member) => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'a');
    applyAll(m);
    m.addToSets([NS], '10.0.0.2', 'b');
    const plan = planApplyWithSave(m, { sets: [savedSet(K.NS, 'hash:net', '', ['10.0.0.9', member])], problems: [] });
    const t = temporaryName('azure-npm-', K.NS);
    expect(renderRestore(plan)).toBe(
      lines(`-N ${K.NS} --exist nethash`, `-X ${t}`, `-N ${t} --exist nethash`, `-A ${t} 10.0.0.1`, `-A ${t} 10.0.0.2`, `-W ${t} ${K.NS}`, `-X ${t}`),
    );
    expect(plan.notes).toEqual([expect.objectContaining({ set: K.NS, kind: 'unreadable-members-rebuilt' })]);
    expect(plan.notes![0]!.message.length).toBeLessThan(600);
  });

  it('rebuilds a list whose save shows a member that is not a set name', () => {
    const m = manager();
    m.addToLists([KEY_NS], [NS]);
    applyAll(m);
    m.addToLists([KEY_NS], [KEY_POD]);
    const plan = planApplyWithSave(m, { sets: [savedSet(K.KEY_NS, 'list:set', 'size 8', [K.NS, 'x -F'])], problems: [] });
    const out = renderRestore(plan);
    expect(out).not.toContain('x -F');
    expect(out).not.toMatch(/^-F /m);
    expect(out).toContain(`-W ${temporaryName('azure-npm-', K.KEY_NS)} ${K.KEY_NS}\n`);
  });
});
