/**
 * `IPSetManager.desiredState` hands a hash:net set of plain IPv4 hosts out as a HostSet
 * (model/host-set.ts): its addresses as numbers, its member strings made only when
 * read. To a reader it must be the plain desired set it replaces, and a prepared state
 * made from it must check and plan it as that plain set.
 */
import { describe, expect, it } from 'vitest';
import { IPSetManager } from '../../../src/manager/manager.js';
import { HostSet, desiredMemberCount } from '../../../src/model/host-set.js';
import { PreparedDesiredState } from '../../../src/plan/reconcile-validate.js';
import type { DesiredSet, SetMetadata } from '../../../src/types.js';

const POD: SetMetadata = { name: 'app:web', type: 'keyValueLabelOfPod' };
const CIDR: SetMetadata = { name: 'c1', type: 'cidrBlocks' };
const PORTS: SetMetadata = { name: 'http', type: 'namedPorts' };

function manager(): IPSetManager {
  const m = new IPSetManager({ capacity: { keyValueLabelOfPod: { maxelem: 2048 } } });
  for (let i = 0; i < 5; i++) m.addToSets([POD, CIDR], `10.0.0.${i}`, `ns/pod-${i}`);
  m.addToSets([CIDR], '10.1.0.0/16', 'ns/range');
  m.addToSets([PORTS], '10.0.0.1,tcp:80', 'ns/pod-1');
  return m;
}

const byLabel = (sets: readonly DesiredSet[], label: string): DesiredSet => sets.find((s) => s.label === label)!;

describe('a desired set of hosts as numbers', () => {
  it('is handed out for a set of plain hosts only, and reads as the plain set it replaces', () => {
    const sets = manager().desiredState().sets;
    const pod = byLabel(sets, 'podlabel-app:web');
    expect(HostSet.hostsOf(pod)).toBeDefined();
    // A CIDR or an ip,port member: plain objects, as before.
    expect(HostSet.hostsOf(byLabel(sets, 'cidr-c1'))).toBeUndefined();
    expect(HostSet.hostsOf(byLabel(sets, 'namedport:http'))).toBeUndefined();
    const plain = { name: pod.name, label: pod.label, spec: pod.spec, members: ['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'], maxelem: 2048 };
    expect(desiredMemberCount(pod)).toBe(5);
    expect({ ...pod }).toEqual(plain);
    expect(Object.keys(pod)).toEqual(Object.keys(plain));
    expect(JSON.stringify(pod)).toBe(JSON.stringify(plain));
    expect(Object.isFrozen(pod)).toBe(true);
    expect(Object.isFrozen(pod.members)).toBe(true);
    expect(pod.members).toBe(pod.members);
    expect(() => {
      (pod as unknown as { members: string[] }).members = [];
    }).toThrow(TypeError);
  });

  it('is the same object while the set does not change, and a new one when it does', () => {
    const m = new IPSetManager();
    m.addToSets([POD], '10.0.0.1', 'ns/pod-1');
    const first = m.desiredState().sets[0]!;
    expect(m.desiredState().sets[0]).toBe(first);
    m.addToSets([POD], '10.0.0.2', 'ns/pod-2');
    const second = m.desiredState().sets[0]!;
    expect(second).not.toBe(first);
    expect(second.members).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(first.members).toEqual(['10.0.0.1']);
  });

  it('is prepared as the plain set it replaces: the same checked set, kept by reference', () => {
    const desired = manager().desiredState();
    const prepared = new PreparedDesiredState(desired);
    const pod = byLabel(desired.sets, 'podlabel-app:web');
    // A HostSet cannot change: the prepared state keeps it as it is.
    expect(prepared.sets).toContain(pod);
    expect(byLabel(prepared.sets, 'cidr-c1').members).toEqual(byLabel(desired.sets, 'cidr-c1').members);
  });
});
