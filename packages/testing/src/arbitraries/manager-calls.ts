/**
 * Manager call sequences as data (`ManagerCall`), the configurations worth running
 * them under, and `applyManagerCall`, the interpreter that plays one call on an
 * IPSetManager. A few calls are invalid on purpose: they must throw and change nothing.
 */
import fc from 'fast-check';
import { IPSetManager, isIpsetsError, prefixedName } from '@ipsets/core';
import type { DeleteOption, IPSetManagerConfig, IpsetsError, ReferenceType, SetMetadata } from '@ipsets/core';
import { NET_MEMBERS, RAW_NET_MEMBERS, PORT_MEMBERS, RAW_PORT_MEMBERS, NET_SET_METAS, PORT_SET_METAS, LIST_SET_METAS, ALL_METAS, HASH_METAS, POD_KEYS, REF_NAMES, pick, some } from './pools.js';

/** One call of {@link IPSetManager}, as data. */
export type ManagerCall =
  | { op: 'createIPSets'; sets: SetMetadata[] }
  | { op: 'deleteIPSet'; set: SetMetadata; option: DeleteOption }
  | { op: 'addToSets'; sets: SetMetadata[]; member: string; podKey: string }
  | { op: 'removeFromSets'; sets: SetMetadata[]; member: string; podKey: string }
  | { op: 'addToLists'; lists: SetMetadata[]; sets: SetMetadata[] }
  | { op: 'removeFromList'; list: SetMetadata; sets: SetMetadata[] }
  | { op: 'addReference'; set: SetMetadata; refName: string; refType: ReferenceType }
  | { op: 'deleteReference'; set: SetMetadata; refName: string; refType: ReferenceType }
  | { op: 'reconcile' };

const netMemberArb = fc.oneof({ arbitrary: pick(NET_MEMBERS), weight: 5 }, { arbitrary: pick(RAW_NET_MEMBERS), weight: 1 });
const portMemberArb = fc.oneof({ arbitrary: pick(PORT_MEMBERS), weight: 5 }, { arbitrary: pick(RAW_PORT_MEMBERS), weight: 1 });

/** Sets and a member of their kind; rarely a member of the wrong kind (the call must then throw and change nothing). */
const membershipArb: fc.Arbitrary<{ sets: SetMetadata[]; member: string }> = fc.oneof(
  { arbitrary: fc.record({ sets: some(NET_SET_METAS), member: netMemberArb }), weight: 6 },
  { arbitrary: fc.record({ sets: some(PORT_SET_METAS, 2), member: portMemberArb }), weight: 3 },
  { arbitrary: fc.record({ sets: some(HASH_METAS), member: fc.oneof(netMemberArb, portMemberArb) }), weight: 1 },
);

/** One manager call over the shared pools; a few are invalid on purpose (they must throw and change nothing). */
export function managerCallArb(): fc.Arbitrary<ManagerCall> {
  return fc.oneof(
    { arbitrary: fc.record({ op: fc.constant('createIPSets' as const), sets: some(ALL_METAS) }), weight: 2 },
    {
      arbitrary: fc.record({ op: fc.constant('deleteIPSet' as const), set: pick(ALL_METAS), option: fc.constantFrom<DeleteOption>('soft', 'force') }),
      weight: 2,
    },
    {
      arbitrary: fc.tuple(membershipArb, pick(POD_KEYS)).map(([m, podKey]) => ({ op: 'addToSets' as const, ...m, podKey })),
      weight: 8,
    },
    {
      arbitrary: fc.tuple(membershipArb, pick(POD_KEYS)).map(([m, podKey]) => ({ op: 'removeFromSets' as const, ...m, podKey })),
      weight: 4,
    },
    { arbitrary: fc.record({ op: fc.constant('addToLists' as const), lists: some(LIST_SET_METAS, 2), sets: some(HASH_METAS, 2) }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant('removeFromList' as const), list: pick(LIST_SET_METAS), sets: some(HASH_METAS, 2) }), weight: 2 },
    {
      arbitrary: fc.record({
        op: fc.constant('addReference' as const),
        set: pick(ALL_METAS),
        refName: pick(REF_NAMES),
        refType: fc.constantFrom<ReferenceType>('selector', 'netpol'),
      }),
      weight: 3,
    },
    {
      arbitrary: fc.record({
        op: fc.constant('deleteReference' as const),
        set: pick(ALL_METAS),
        refName: pick(REF_NAMES),
        refType: fc.constantFrom<ReferenceType>('selector', 'netpol'),
      }),
      weight: 2,
    },
    { arbitrary: fc.constant({ op: 'reconcile' as const }), weight: 1 },
  );
}

/** A sequence of manager calls. */
export function managerCallsArb(options: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<ManagerCall[]> {
  return fc.array(managerCallArb(), { minLength: options.minLength ?? 1, maxLength: options.maxLength ?? 20 });
}

/** Manager configurations worth testing: both modes, with and without the shared empty set in lists. */
export function managerConfigArb(): fc.Arbitrary<IPSetManagerConfig> {
  return fc.record({ mode: fc.constantFrom<'all' | 'on-need'>('all', 'on-need'), addEmptySetToLists: fc.boolean() });
}

/**
 * Runs one call on `manager`. An {@link IpsetsError} (the manager refusing a call) is
 * returned, not thrown — a refused call must change nothing, which the properties
 * check through the desired state; anything else propagates.
 */
export function applyManagerCall(manager: IPSetManager, call: ManagerCall): IpsetsError | undefined {
  try {
    switch (call.op) {
      case 'createIPSets':
        manager.createIPSets(call.sets);
        break;
      case 'deleteIPSet':
        manager.deleteIPSet(prefixedName(call.set), call.option);
        break;
      case 'addToSets':
        manager.addToSets(call.sets, call.member, call.podKey);
        break;
      case 'removeFromSets':
        manager.removeFromSets(call.sets, call.member, call.podKey);
        break;
      case 'addToLists':
        manager.addToLists(call.lists, call.sets);
        break;
      case 'removeFromList':
        manager.removeFromList(call.list, call.sets);
        break;
      case 'addReference':
        manager.addReference(call.set, call.refName, call.refType);
        break;
      case 'deleteReference':
        manager.deleteReference(prefixedName(call.set), call.refName, call.refType);
        break;
      case 'reconcile':
        manager.reconcile();
        break;
    }
    return undefined;
  } catch (error) {
    if (isIpsetsError(error)) return error;
    throw error;
  }
}
