/**
 * What a commit keeps dirty for a planned set that changed after its snapshot
 * (`laterChange`): the difference between the state the plan produced and the set's
 * current state, worked out from the basis alone — no pending plan in the manager.
 */
import { describe, expect, it } from 'vitest';
import { laterChange, plannedSet } from '../../../src/manager/basis.js';
import type { DirtyEntry } from '../../../src/manager/dirty-cache.js';
import { IPSet } from '../../../src/manager/set-record.js';
import { setTypeInfo } from '../../../src/model/set-types.js';

function record(...members: string[]): IPSet {
  const set = new IPSet('ns-a', 'a', 'namespace', setTypeInfo('namespace'), 'azure-npm-a');
  for (const m of members) set.hash!.add(m, false, 'pod', (text) => text);
  return set;
}

function entry(state: DirtyEntry['state'], parts: Partial<DirtyEntry> = {}): DirtyEntry {
  return { name: 'ns-a', kernelName: 'azure-npm-a', state, toAdd: undefined, toDelete: undefined, kernelMembers: undefined, unknown: false, fragile: false, ...parts };
}

describe('laterChange', () => {
  it('an update planned and changed again: both diffs are against one kernel state, so their difference is exact', () => {
    // Kernel K = {k1, k2}; planned: +p, −k1; now: +p2 (p removed again), −k1, −k2.
    const planned = plannedSet(entry('update', { toAdd: new Set(['p']), toDelete: new Set(['k1']) }), record());
    const now = entry('update', { toAdd: new Set(['p2']), toDelete: new Set(['k1', 'k2']) });
    const later = laterChange(planned, record('p2'), true, now);
    expect(later).toMatchObject({ kind: 'entry', entry: { state: 'update', toAdd: new Set(['p2']), toDelete: new Set(['p', 'k2']) } });
  });

  it('an update planned, then the set left the kernel: destroyed with the members the plan left', () => {
    const planned = plannedSet(entry('update', { toAdd: new Set(['p']), toDelete: new Set(['k1']) }), record());
    const now = entry('destroy', { kernelMembers: ['k1', 'k2'] });
    expect(laterChange(planned, undefined, false, now)).toMatchObject({ kind: 'entry', entry: { state: 'destroy', kernelMembers: ['k2', 'p'] } });
  });

  it('a create planned, then members added: only the members after the planned ones', () => {
    const set = record('a', 'b');
    const planned = plannedSet(entry('create'), set);
    set.hash!.add('c', false, 'pod', (text) => text);
    expect(laterChange(planned, set, true, entry('create'))).toMatchObject({ kind: 'entry', entry: { state: 'update', toAdd: new Set(['c']), toDelete: undefined } });
  });

  it('a create planned, then a member removed: unknown (the basis keeps no copy of a new set\'s members), so the set is rebuilt', () => {
    const set = record('a', 'b');
    const planned = plannedSet(entry('create'), set);
    set.hash!.remove(set.hash!.slotOf('a'));
    set.removals++;
    expect(laterChange(planned, set, true, entry('create'))).toEqual({ kind: 'unknown' });
  });

  it('a destroy planned, then the set wanted again: created with all its members', () => {
    const planned = plannedSet(entry('destroy', { kernelMembers: ['a'] }), undefined);
    expect(laterChange(planned, record('a'), true, entry('update'))).toMatchObject({ kind: 'entry', entry: { state: 'create' } });
    expect(laterChange(planned, undefined, false, undefined)).toEqual({ kind: 'none' });
  });
});
