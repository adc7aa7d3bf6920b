/**
 * The desired state of a file is built per set, not per member. Building it through
 * one `addToSets` call per member made the manager's string pool the top cost of
 * `ipsets apply` at 1,000,000 members (4.4 of the CLI's 7.8 CPU seconds in a profile):
 * every member of a file is already canonical and de-duplicated by validation, so the
 * manager only has to lay out the sets (kernel names, families, lists, order).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IPSetManager, prefixedName } from '@ipsets/core';
import type { AddressFamily, DesiredState, SetMetadata } from '@ipsets/core';
import { desiredStateOf, parseDesiredText } from '../../../src/desired/file.js';
import type { DesiredFile } from '../../../src/desired/file.js';

/**
 * What the per-member path produced: every member through the manager's public API
 * (`createIPSets`, `addToSets` per member, `addToLists` per list, a list's family-less
 * member naming a set the file declares with a family as that family's set), with
 * each set's capacity from the file on its kernel set(s).
 */
function perMemberState(file: DesiredFile): DesiredState {
  const manager = new IPSetManager({ mode: 'all', owner: file.owner, scheme: file.scheme });
  const declared = new Map<string, AddressFamily>();
  for (const set of file.sets) if (set.family !== undefined) declared.set(prefixedName({ type: set.type, name: set.name }), set.family);
  const capacities = new Map<string, object>();
  for (const set of file.sets) {
    const meta: SetMetadata = { type: set.type, name: set.name, ...(set.family === undefined ? {} : { family: set.family }) };
    manager.createIPSets([meta]);
    for (const member of set.members) manager.addToSets([meta], member, 'pod');
    const memberSets = set.memberSets.map((m) => (declared.has(prefixedName(m)) ? { ...m, family: declared.get(prefixedName(m))! } : m));
    if (memberSets.length > 0) manager.addToLists([meta], memberSets);
    if (set.capacity !== undefined) {
      capacities.set(prefixedName({ type: set.type, name: set.name }), set.capacity);
      capacities.set(prefixedName({ type: set.type, name: set.name, family: 'inet6' }), set.capacity);
    }
  }
  const desired = manager.desiredState();
  return {
    ...desired,
    sets: desired.sets.map((s) => {
      const capacity = s.label === undefined ? undefined : capacities.get(s.label);
      return capacity === undefined ? s : { ...s, ...capacity };
    }),
  };
}

const MIXED = [
  'owner: mix-',
  'sets:',
  // A list that names a set declared later, and a logical set that gains an inet6 sibling after it.
  '  - { type: keyLabelOfNamespace, name: team, members: [{ type: namespace, name: dual }, { type: cidrBlocks, name: c }] }',
  '  - { type: namespace, name: dual, maxelem: 131072, members: ["10.0.0.2", "FE80::0001", 10.0.0.1, "2001:db8::5", "10.0.0.2"] }',
  '  - { type: namespace, name: v6only, family: inet6, hashsize: 2048, members: ["2001:DB8::1", "2001:db8::/64"] }',
  '  - { type: cidrBlocks, name: c, members: [10.0.0.0/8, "10.96.0.0/12 nomatch", "fd00::/8 nomatch", 192.168.1.7/32] }',
  '  - { type: namedPorts, name: http, members: ["10.0.0.1,tcp:80", "10.0.0.1,80", "[fe80::1],udp:53"] }',
  '  - { type: keyValueLabelOfPod, name: "app:web", members: [] }',
  '  - { type: emptyHashSet, name: nothing }',
  '  - { type: nestedLabelOfPod, name: nest, members: [{ type: keyValueLabelOfPod, name: "app:web" }, { type: namespace, name: v6only, }] }',
].join('\n');

afterEach(() => vi.restoreAllMocks());

describe('desiredStateOf builds per set', () => {
  it('gives exactly the state of the per-member path: names, labels, order, families, lists, capacities', () => {
    for (const text of [MIXED, MIXED.replace('owner: mix-', 'owner: mix-\nscheme: fnv32')]) {
      const file = parseDesiredText(text, { format: 'yaml' });
      expect(desiredStateOf(file)).toEqual(perMemberState(file));
    }
  });

  it('calls the manager per set, not per member (20,000-member sets make one addToSets per set and family)', () => {
    const members = Array.from({ length: 20_000 }, (_, i) => `"10.${i >> 16}.${(i >> 8) & 255}.${i & 255}"`);
    const file = parseDesiredText(`{"sets":[{"type":"namespace","name":"a","members":[${members.join(',')}]},{"type":"cidrBlocks","name":"b","members":["fe80::/64",${members.join(',')}]}]}`);
    const spy = vi.spyOn(IPSetManager.prototype, 'addToSets');
    const desired = desiredStateOf(file);
    expect(spy.mock.calls.length).toBeLessThanOrEqual(3);
    expect(desired.sets.map((s) => s.members.length)).toEqual([20_000, 20_000, 1]);
  });

  it('splits the families of a set it did not validate itself (a hand-made DesiredFile): no fact of the validator is assumed', () => {
    const file: DesiredFile = {
      owner: 'hand-',
      scheme: 'sha256-base36',
      sets: [
        { type: 'namespace', name: 'dual', members: ['10.0.0.1', 'fe80::1', '10.0.0.2'], memberSets: [] },
        { type: 'namespace', name: 'v4', members: ['10.0.0.3'], memberSets: [] },
      ],
    };
    expect(desiredStateOf(file)).toEqual(perMemberState(file));
    expect(desiredStateOf(file).sets.map((s) => s.members)).toEqual([['10.0.0.1', '10.0.0.2'], ['fe80::1'], ['10.0.0.3']]);
  });

  it('a validated set read again with an IPv6 member added by hand is still split (what the validator learned is about the set object it returned)', () => {
    const file = parseDesiredText('{"sets":[{"type":"namespace","name":"a","members":["10.0.0.1","10.0.0.2"]}]}');
    const edited: DesiredFile = { ...file, sets: [{ ...file.sets[0]!, members: [...file.sets[0]!.members, 'fe80::1'] }] };
    expect(desiredStateOf(edited).sets.map((s) => s.members)).toEqual([['10.0.0.1', '10.0.0.2'], ['fe80::1']]);
  });
});


// A list's family-less reference to a set declared with one family used to name the
// logical set: the manager created an empty `family inet` sibling of a `family: inet6`
// set just to put it into the list (and would have listed an inet6 sibling of a
// `family: inet` set).
describe('a list holds a single-family set alone', () => {
  const text = (listFirst: boolean) => {
    const list = '  - { type: nestedLabelOfPod, name: any, members: [{ type: keyValueLabelOfPod, name: "app:v6" }, { type: keyValueLabelOfPod, name: "app:v4" }] }';
    const sets = [
      '  - { type: keyValueLabelOfPod, name: "app:v6", family: inet6, members: ["fd00::1"] }',
      '  - { type: keyValueLabelOfPod, name: "app:v4", family: inet, members: ["10.0.0.1"] }',
    ];
    return ['owner: one-', 'sets:', ...(listFirst ? [list, ...sets] : [...sets, list])].join('\n');
  };
  for (const listFirst of [false, true]) {
    it(`family: inet6 makes no family inet set, family: inet no inet6 one (list declared ${listFirst ? 'before' : 'after'} its members)`, () => {
      const desired = desiredStateOf(parseDesiredText(text(listFirst), { format: 'yaml' }));
      expect(desired.sets.map((s) => [s.label, s.spec]).sort()).toEqual(
        [
          ['podlabel-app:v6 inet6', 'nethash family inet6'],
          ['podlabel-app:v4', 'nethash'],
          ['nestedlabel-any', 'setlist'],
        ].sort(),
      );
      const name = (label: string) => desired.sets.find((s) => s.label === label)!.name;
      expect(desired.sets.find((s) => s.label === 'nestedlabel-any')!.members).toEqual([name('podlabel-app:v6 inet6'), name('podlabel-app:v4')]);
    });
  }
});
