/**
 * IPSetManager.desiredState hands out a set that did not change as the very same frozen
 * object as before, so that a PreparedDesiredState made with the last one checks only
 * the sets that changed (a resync of a million members re-checked all of them).
 */
import { describe, expect, it } from 'vitest';
import { PreparedDesiredState } from '../../../src/plan/reconcile-validate.js';
import { CIDR, KEY_NS, NS, applyAll, manager } from '../../helpers/manager-fixtures.js';
import type { DesiredSet } from '../../../src/types.js';

const byName = (sets: readonly DesiredSet[]): Map<string, DesiredSet> => new Map(sets.map((s) => [s.label ?? s.name, s]));

describe('IPSetManager.desiredState: unchanged sets are the same frozen objects', () => {
  it('keeps an unchanged set, makes a new object for a changed one, and freezes both with their members', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    m.addToSets([CIDR], '10.1.0.0/16', 'n');
    const first = byName(m.desiredState().sets);
    m.addToSets([NS], '10.0.0.2', 'pod-b');
    const second = byName(m.desiredState().sets);
    expect(second.get('cidr-test-cidr-set')).toBe(first.get('cidr-test-cidr-set'));
    expect(second.get('ns-test-ns-set')).not.toBe(first.get('ns-test-ns-set'));
    expect(second.get('ns-test-ns-set')!.members).toEqual(['10.0.0.1', '10.0.0.2']);
    for (const set of second.values()) {
      expect(Object.isFrozen(set)).toBe(true);
      expect(Object.isFrozen(set.members)).toBe(true);
    }
    // A commit, a removal, a nomatch switch, a list change: each is seen.
    applyAll(m);
    expect(byName(m.desiredState().sets).get('ns-test-ns-set')).toBe(second.get('ns-test-ns-set'));
    m.removeFromSets([NS], '10.0.0.1', 'pod-a');
    expect(byName(m.desiredState().sets).get('ns-test-ns-set')!.members).toEqual(['10.0.0.2']);
    m.addToSets([CIDR], '10.1.0.0/16 nomatch', 'n');
    expect(byName(m.desiredState().sets).get('cidr-test-cidr-set')!.members).toEqual(['10.1.0.0/16 nomatch']);
    m.addToLists([KEY_NS], [NS]);
    const withList = byName(m.desiredState().sets);
    m.removeFromList(KEY_NS, [NS]);
    expect(byName(m.desiredState().sets).get('nslabel-test-keyNS-list')).not.toBe(withList.get('nslabel-test-keyNS-list'));
  });

  it('in mode on-need, a set that leaves the kernel and comes back changed is a new object', () => {
    const m = manager({ mode: 'on-need' });
    m.addReference(NS, 'sel', 'selector');
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    const before = m.desiredState().sets.find((s) => s.label === 'ns-test-ns-set')!;
    m.deleteReference('ns-test-ns-set', 'sel', 'selector');
    expect(m.desiredState().sets.find((s) => s.label === 'ns-test-ns-set')).toBeUndefined();
    m.addToSets([NS], '10.0.0.9', 'pod-z');
    m.addReference(NS, 'sel', 'selector');
    const after = m.desiredState().sets.find((s) => s.label === 'ns-test-ns-set')!;
    expect(after).not.toBe(before);
    expect(after.members).toEqual(['10.0.0.1', '10.0.0.9']);
  });

  it('a prepared state made with the last one as previous plans what a fresh one plans', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    m.addToSets([CIDR], '10.1.0.0/16', 'n');
    const first = new PreparedDesiredState(m.desiredState());
    m.addToSets([NS], '10.0.0.2', 'pod-b');
    const second = new PreparedDesiredState(m.desiredState(), first);
    expect(second.sets).toEqual(new PreparedDesiredState(m.desiredState()).sets);
  });
});
