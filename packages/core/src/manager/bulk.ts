/**
 * The desired state of a whole list of sets in one call, for callers that know every
 * set and member at once (a desired-state file): the same state as the manager's calls
 * set by set, member by member, without one `addToSets` per member (the manager's
 * per-member bookkeeping was most of the CPU of applying a million-member file).
 *
 * The manager lays the sets out — kernel names and their collisions, families and
 * inet6 siblings, lists, references, creation order — from one call per set and
 * family; the members come from {@link SetMembers}, checked once per member.
 */
import { IpsetsError, isIpsetsError, quote } from '../errors.js';
import { validateCapacity } from '../model/capacity.js';
import type { SetCapacity } from '../model/capacity.js';
import { HostSet } from '../model/host-set.js';
import { prefixedName, setTypeInfo, specInfoOf, validateSetMetadata } from '../model/set-types.js';
import { IPSetManager } from './manager.js';
import { SetMembers } from './set-members.js';
import type { IPSetManagerConfig, ReferenceType } from './manager-types.js';
import type { AddressFamily, DesiredState, SetMetadata } from '../types.js';

/** One set given to {@link buildDesiredState}. */
export interface DesiredSetInput {
  /** The set (type, unprefixed name, and family for a single-family hash set). */
  readonly meta: SetMetadata;
  /** Hash sets: the members (checked here), or members {@link SetMembers.check} checked for a set of this type and family. */
  readonly members?: readonly string[] | SetMembers;
  /**
   * Lists: the member sets. A family-less member naming a set given here with a family
   * is that family's kernel set alone (no empty set of the other family is made for it).
   */
  readonly memberSets?: readonly SetMetadata[];
  /** Hash sets: `maxelem` and `hashsize` of the set's kernel set(s), over the configuration's per-type capacity. */
  readonly capacity?: SetCapacity;
  /** References to record on the set (they decide which sets are in the kernel in mode `on-need`). */
  readonly references?: readonly { readonly name: string; readonly type: ReferenceType }[];
}

/** The pod key of bulk members: a desired state does not say which pod a member came from. */
const BULK_POD_KEY = 'desired-state';

/**
 * The desired state of `sets` under `config`: what a manager made with `config` holds
 * after, for each set in order, `createIPSets`, `addToSets` of each member,
 * `addToLists` of its member sets and `addReference` of its references — with each
 * set's `capacity` on its kernel set(s). Validates everything; each set may be given once.
 *
 * @throws IpsetsError with the manager's code and message (`INVALID_SET_TYPE`,
 *   `INVALID_SET_NAME`, `INVALID_MEMBER`, `KERNEL_NAME_COLLISION`, `INVALID_REFERENCE`,
 *   `INVALID_ARGUMENT`), and `details.setIndex` (and `details.memberIndex` for a member)
 *   saying which input it is about.
 */
export function buildDesiredState(sets: readonly DesiredSetInput[], config: IPSetManagerConfig = {}): DesiredState {
  const manager = new IPSetManager(config);
  const declared = declaredFamilies(sets);
  const given = new Set<string>();
  const membersByLabel = new Map<string, readonly string[]>();
  /** Sets whose members are plain IPv4 hosts: their addresses (the set is handed out as numbers). */
  const hostsByLabel = new Map<string, Uint32Array>();
  const capacityByLabel = new Map<string, SetCapacity>();
  for (let i = 0; i < sets.length; i++) {
    const input = sets[i]!;
    try {
      const meta = validateSetMetadata(input.meta);
      const logical = prefixedName({ type: meta.type, name: meta.name });
      if (given.has(logical)) {
        throw new IpsetsError('INVALID_ARGUMENT', `ipset ${quote(logical)} is given twice; expected each set once`, { details: { set: logical } });
      }
      given.add(logical);
      manager.createIPSets([meta]);
      const info = setTypeInfo(meta.type);
      const raw = input.members ?? [];
      if (info.kind !== 'set' || meta.type === 'emptyHashSet') {
        // The manager's refusal, with its message.
        const first = raw instanceof SetMembers ? raw.all[0] : raw[0];
        if (first !== undefined) manager.addToSets([meta], first, BULK_POD_KEY);
      } else {
        const members = raw instanceof SetMembers && raw.fits(meta) ? raw : SetMembers.check(meta, raw instanceof SetMembers ? raw.all : raw);
        // One call per family lays out the kernel set(s), the inet6 sibling included.
        if (members.inet.length > 0) manager.addToSets([meta], members.inet[0]!, BULK_POD_KEY);
        if (members.inet6.length > 0) manager.addToSets([meta], members.inet6[0]!, BULK_POD_KEY);
        const capacity = input.capacity === undefined ? undefined : validateCapacity(input.capacity, info.createSpec, `ipset ${quote(logical)}`, 'INVALID_ARGUMENT');
        for (const family of FAMILIES) {
          if (meta.family !== undefined && meta.family !== family) continue;
          const label = prefixedName({ type: meta.type, name: meta.name, family });
          membersByLabel.set(label, family === 'inet' ? members.inet : members.inet6);
          // A copy: the set keeps the only reference to its addresses (the caller holds `members`).
          if (family === 'inet' && members.inetHosts !== undefined && members.inetHosts.length > 0) hostsByLabel.set(label, members.inetHosts.slice());
          if (capacity !== undefined) capacityByLabel.set(label, capacity);
        }
      }
      if (input.memberSets !== undefined && input.memberSets.length > 0) {
        manager.addToLists([meta], input.memberSets.map((m) => withDeclaredFamily(m, declared)));
      }
      for (const ref of input.references ?? []) manager.addReference(meta, ref.name, ref.type);
    } catch (error) {
      if (!isIpsetsError(error)) throw error;
      throw new IpsetsError(error.code, error.message, { cause: error, details: { ...error.details, setIndex: i } });
    }
  }
  const desired = manager.desiredState();
  return {
    ...desired,
    sets: desired.sets.map((s) => {
      const label = s.label ?? '';
      const members = membersByLabel.get(label);
      const capacity = capacityByLabel.get(label);
      const hosts = hostsByLabel.get(label);
      const spec = specInfoOf(s.spec);
      if (hosts !== undefined && spec?.kernelType === 'hash:net' && spec.family === 'inet') {
        return new HostSet({ name: s.name, label: s.label, spec: s.spec, maxelem: capacity?.maxelem ?? s.maxelem, hashsize: capacity?.hashsize ?? s.hashsize }, hosts);
      }
      if (members === undefined && capacity === undefined) return s;
      return { ...s, ...(members === undefined ? {} : { members }), ...capacity };
    }),
  };
}

const FAMILIES: readonly AddressFamily[] = ['inet', 'inet6'];

/** The family of each hash set given with one, by its family-less prefixed name. */
function declaredFamilies(sets: readonly DesiredSetInput[]): Map<string, AddressFamily> {
  const families = new Map<string, AddressFamily>();
  for (const { meta } of sets) {
    if (meta !== null && typeof meta === 'object' && meta.family !== undefined) {
      try {
        families.set(prefixedName({ type: meta.type, name: meta.name }), meta.family);
      } catch {
        // An invalid set is refused when its turn comes.
      }
    }
  }
  return families;
}

/** A list's member as the list holds it: see {@link DesiredSetInput.memberSets}. */
function withDeclaredFamily(member: SetMetadata, declared: ReadonlyMap<string, AddressFamily>): SetMetadata {
  if (member === null || typeof member !== 'object' || member.family !== undefined) return member;
  let family: AddressFamily | undefined;
  try {
    family = declared.get(prefixedName(member));
  } catch {
    return member; // the manager refuses it, with its message
  }
  return family === undefined ? member : { ...member, family };
}
