/**
 * Read-only views of the manager's set records: the frozen snapshot `getIPSet` hands
 * out, and a set as the desired state lists it.
 */
import type { SetCapacity } from '../model/capacity.js';
import { HostSet } from '../model/host-set.js';
import { specInfoOf } from '../model/set-types.js';
import type { IPSet } from './set-record.js';
import type { IPSetSnapshot } from './manager-types.js';
import type { DesiredSet } from '../types.js';

/** A frozen copy of `set` (the reference hands out the live object, docs/reference-behaviour.md §g.2.17). */
export function snapshotOf(set: IPSet, inKernel: boolean): IPSetSnapshot {
  const members: string[] = [];
  const podKeys = new Map<string, string>();
  if (set.hash !== undefined) {
    set.hash.forEach((m, pod) => {
      members.push(m);
      podKeys.set(m, pod);
    });
  } else {
    for (const member of set.memberSets!.values()) members.push(member.name);
  }
  return Object.freeze({
    name: set.name,
    unprefixedName: set.unprefixedName,
    kernelName: set.kernelName,
    type: set.type,
    kind: set.info.kind,
    createSpec: set.info.createSpec,
    members: Object.freeze(members),
    podKeys,
    selectorReferences: Object.freeze([...(set.selectorRefs ?? [])]),
    netPolReferences: Object.freeze([...(set.netPolRefs ?? [])]),
    ipsetReferCount: set.ipsetReferCount,
    kernelReferCount: set.kernelReferCount,
    inKernel,
  });
}

/**
 * `set` as the desired state lists it: canonical members (lists: member kernel names),
 * with the capacity of its type; frozen, members too (the manager hands the same object
 * out again while the set does not change). A hash:net set of plain IPv4 hosts is a
 * {@link HostSet}: the same fields, its members made from their numbers when read.
 */
export function desiredSetOf(set: IPSet, capacity: SetCapacity | undefined): DesiredSet {
  const spec = specInfoOf(set.info.createSpec);
  const hosts = spec?.kernelType === 'hash:net' && spec.family === 'inet' ? set.plainHosts() : undefined;
  // A set of plain hosts keeps them as numbers: its member strings are made only if read.
  if (hosts !== undefined && hosts.length > 0) return new HostSet({ name: set.kernelName, label: set.name, spec: set.info.createSpec, ...capacity }, hosts);
  const members: string[] = [];
  set.forEachMember((m) => members.push(m));
  Object.freeze(members);
  return Object.freeze(
    capacity === undefined
      ? { name: set.kernelName, label: set.name, spec: set.info.createSpec, members }
      : { name: set.kernelName, label: set.name, spec: set.info.createSpec, members, ...capacity },
  );
}
