/**
 * Desired states: built directly from the owned-name pool (any spec, so a name may be
 * wanted as another type than the kernel has) or made by a manager from a call sequence.
 */
import fc from 'fast-check';
import { IPSetManager, kernelName } from '@ipsets/core';
import type { DesiredSet, DesiredState, IPSetManagerConfig } from '@ipsets/core';
import { NET_MEMBERS, PORT_MEMBERS, NET6_MEMBERS, PORT6_MEMBERS, OWNED_LABELS, SPECS, uniqueByEntry, upTo } from './pools.js';
import { managerCallsArb, managerConfigArb, applyManagerCall } from './manager-calls.js';
import type { ManagerCall } from './manager-calls.js';

/** Options of {@link desiredStateArb}. */
export interface DesiredStateOptions {
  /** Owner prefix (default `azure-npm-`). */
  owner?: string;
  /** Labels whose kernel names form the name pool (default {@link OWNED_LABELS}). */
  labels?: readonly string[];
  /** Most sets (default 6). */
  maxSets?: number;
  /**
   * Up to this many generated extra members per hash set (default 0): with a few hundred,
   * add runs cross ipset's 4096-byte batch boundary (167 host adds per batch).
   */
  bulk?: number;
}

/** The kernel names of `labels` under `owner` (sha256-base36, 30 characters for the default owner). */
export function ownedNames(owner = 'azure-npm-', labels: readonly string[] = OWNED_LABELS): { name: string; label: string }[] {
  return labels.map((label) => ({ name: kernelName(label, { owner }), label }));
}

/**
 * Desired states built directly: sets from the owned-name pool with any spec (so a
 * name may be wanted as another type than the kernel has), canonical members of the
 * spec's kind (at most one of `x` and `x nomatch`), lists holding desired hash sets.
 */
export function desiredStateArb(options: DesiredStateOptions = {}): fc.Arbitrary<DesiredState> {
  const owner = options.owner ?? 'azure-npm-';
  const pool = ownedNames(owner, options.labels ?? OWNED_LABELS);
  const setArb = fc.record({
    spec: fc.constantFrom(...SPECS),
    net: upTo(NET_MEMBERS, 6),
    port: upTo(PORT_MEMBERS, 4),
    net6: upTo(NET6_MEMBERS, 5),
    port6: upTo(PORT6_MEMBERS, 3),
    listPicks: fc.array(fc.nat(), { maxLength: 3 }),
    bulk: options.bulk ? fc.nat({ max: options.bulk }) : fc.constant(0),
  });
  return fc
    .tuple(fc.uniqueArray(fc.nat({ max: pool.length - 1 }), { maxLength: options.maxSets ?? 6 }), fc.array(setArb, { minLength: pool.length, maxLength: pool.length }))
    .map(([indices, shapes]) => {
      const chosen = indices.map((i) => ({ ...pool[i]!, shape: shapes[i]! }));
      const hashNames = chosen.filter((c) => c.shape.spec !== 'setlist').map((c) => c.name);
      const sets: DesiredSet[] = chosen.map(({ name, label, shape }) => {
        let members: string[];
        if (shape.spec === 'setlist') {
          members = hashNames.length === 0 ? [] : [...new Set(shape.listPicks.map((p) => hashNames[p % hashNames.length]!))];
        } else if (shape.spec === 'hash:ip,port family inet6') {
          members = [...shape.port6];
        } else if (shape.spec.includes('family inet6')) {
          members = uniqueByEntry(shape.net6);
        } else if (shape.spec === 'hash:ip,port') {
          members = [...shape.port, ...Array.from({ length: shape.bulk }, (_, i) => `10.200.${(i >> 8) & 255}.${i & 255},tcp:${1000 + (i % 1000)}`)];
        } else {
          members = [...uniqueByEntry(shape.net), ...Array.from({ length: shape.bulk }, (_, i) => `10.${200 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`)];
        }
        return { name, label, spec: shape.spec, members };
      });
      return { owner, sets };
    });
}

/** Desired states made by a manager: a config and a call sequence, then `manager.desiredState()`. */
export function managerDesiredStateArb(options: { maxCalls?: number } = {}): fc.Arbitrary<{ config: IPSetManagerConfig; calls: ManagerCall[]; desired: DesiredState }> {
  return fc.record({ config: managerConfigArb(), calls: managerCallsArb({ maxLength: options.maxCalls ?? 20 }) }).map(({ config, calls }) => {
    const manager = new IPSetManager(config);
    for (const call of calls) applyManagerCall(manager, call);
    return { config, calls, desired: manager.desiredState() };
  });
}
