/**
 * Validation of the desired state of reconcile planning: every desired set owned,
 * listed once, of a known spec and capacity, with its members canonical and keyed by
 * kernel entry (host members of a hash:net inet set in a {@link HostTable}); and the
 * {@link PreparedDesiredState} that keeps that work for every later plan.
 */
import { validateCapacity } from '../model/capacity.js';
import type { SetCapacity } from '../model/capacity.js';
import { IpsetsError, quote } from '../errors.js';
import { NOMATCH_FLAG, canonicalMember, entryKey, formatHostAddress, hostValue } from '../model/members.js';
import { validateSetName } from '../model/set-names.js';
import { isOwnedSetName, validateOwnerPrefix } from '../model/naming.js';
import { CREATE_SPECS, specInfoOf } from '../model/set-types.js';
import type { SpecInfo } from '../model/set-types.js';
import { HostTable, HostTablePool } from '../model/host-table.js';
import { HostSet, desiredMemberCount } from '../model/host-set.js';
import { PREFETCH, touchStrings } from './prefetch.js';
import type { CreateSpec, DesiredSet, DesiredState } from '../types.js';

/** A desired set, validated, with canonical members keyed by kernel entry. */
export interface Wanted {
  readonly set: DesiredSet;
  /** The {@link SPEC_INFO} row of the set's spec. */
  readonly spec: SpecInfo;
  readonly list: boolean;
  /**
   * Canonical members (for lists: names), one per kernel entry, in desired order. For a
   * set given as numbers ({@link hostList}) its strings are made on first read: planners
   * read {@link count} and `hostList` instead where they can.
   */
  readonly members: readonly string[];
  /** The number of members. */
  readonly count: number;
  /** A set given as the addresses of plain IPv4 hosts (a {@link HostSet}): those, in desired order. */
  readonly hostList: Uint32Array | undefined;
  /**
   * entry key → index in `members` (for lists the key is the name), for the members
   * that are not in `hosts`.
   */
  readonly entries: Map<string, number>;
  /** hash:net sets: the host members (`a.b.c.d[ nomatch]`) by address. */
  readonly hosts: HostTable | undefined;
  /** `maxelem`/`hashsize` of the desired set, checked (only the fields given). */
  readonly capacity: SetCapacity;
}

/** True for a desired set whose host members go to a {@link HostTable}: hash:net, family inet. */
function hashNetInet(set: DesiredSet): boolean {
  const spec = typeof set === 'object' && set !== null ? specInfoOf(set.spec) : undefined;
  return spec !== undefined && spec.kernelType === 'hash:net' && spec.family === 'inet';
}

function invalid(message: string, details: Record<string, unknown>): IpsetsError {
  return new IpsetsError('INVALID_INPUT', message, { details });
}

/**
 * The desired sets of `desired` by name, validated (see the module documentation).
 *
 * @throws IpsetsError as documented on `planReconcile`.
 */
export function validateDesired(desired: DesiredState, known?: ReadonlyMap<DesiredSet, Wanted>): Map<string, Wanted> {
  const owner = desired?.owner;
  validateOwnerPrefix(owner);
  const wanted = new Map<string, Wanted>();
  let slots = 0;
  for (const set of desired.sets) {
    if (hashNetInet(set) && (HostSet.hostsOf(set) !== undefined || Array.isArray(set.members)) && known?.get(set) === undefined) slots += HostTable.size(desiredMemberCount(set));
  }
  const pool = new HostTablePool(slots);
  for (const set of desired.sets) {
    const name = validateSetName(set.name);
    if (!isOwnedSetName(name, owner)) {
      throw invalid(
        `Desired set ${quote(name)} is not owned by ${quote(owner)}; expected the owner prefix followed by one or more of 0-9 and a-z (only owned sets can be reconciled).`,
        {
          set: name,
          owner,
        },
      );
    }
    if (wanted.has(name)) throw invalid(`Desired set ${quote(name)} is listed twice; expected each kernel name once.`, { set: name });
    // A set checked before as this very object, frozen (so it cannot have changed since).
    const before = known?.get(set);
    if (before !== undefined) {
      wanted.set(name, before);
      continue;
    }
    const spec = specInfoOf(set.spec);
    if (spec === undefined) {
      throw invalid(`Desired set ${quote(name)} has spec ${quote(set.spec)}; expected one of ${CREATE_SPECS.join(', ')}.`, {
        set: name,
        spec: set.spec,
      });
    }
    const capacity = validateCapacity({ maxelem: set.maxelem, hashsize: set.hashsize }, set.spec, `desired set ${quote(name)}`);
    const numbers = hashNetInet(set) ? HostSet.hostsOf(set) : undefined;
    if (numbers !== undefined) {
      wanted.set(name, checkedHosts(set, spec, numbers, capacity, pool));
      continue;
    }
    const kernelType = spec.kernelType;
    const family = spec.family ?? 'inet';
    const list = kernelType === 'list:set';
    const entries = new Map<string, number>();
    const input: readonly string[] = Array.isArray(set.members) ? set.members : Array.from(set.members);
    // The desired members themselves while every one so far is canonical and new (the
    // common case: members from the manager or a loaded file); a copy from the first
    // member that is not.
    let members: string[] | undefined;
    // The host table reads IPv4 addresses: an inet6 set's members all take the generic path.
    const hosts = hashNetInet(set) ? new HostTable(input.length, pool) : undefined;
    const n = input.length;
    for (let block = 0; block < n; block += PREFETCH) {
      const blockEnd = Math.min(n, block + PREFETCH);
      if (hosts !== undefined) hosts.touched = touchStrings(input, block, blockEnd, hosts.touched);
      for (let i = block; i < blockEnd; i++) {
        const raw = input[i]!;
        const at = members === undefined ? i : members.length;
        // A canonical host member is read once, for its address; anything else is
        // canonicalised first.
        let value = hosts !== undefined && typeof raw === 'string' ? hostValue(raw) : -1;
        const member = value >= 0 ? raw : list ? validateSetName(raw) : canonicalMember(kernelType, raw, family);
        if (value < 0 && hosts !== undefined) value = hostValue(member);
        let index: number | undefined;
        let key = '';
        if (value >= 0) {
          const slot = value >= NOMATCH_FLAG ? hosts!.insertIfAbsent(value - NOMATCH_FLAG, -(at + 1)) : hosts!.insertIfAbsent(value, at + 1);
          if (slot !== 0) index = Math.abs(slot) - 1;
        } else {
          key = list ? member : entryKey(member);
          index = entries.get(key);
        }
        if (index !== undefined) {
          const seen = (members ?? input)[index]!;
          if (seen !== member) {
            throw invalid(
              `Desired set ${quote(name)} holds both ${quote(seen)} and ${quote(member)}; they are one kernel entry, expected only one of them.`,
              { set: name, members: [seen, member] },
            );
          }
          members ??= input.slice(0, i);
          continue;
        }
        if (value < 0) entries.set(key, at);
        if (members !== undefined) members.push(member);
        else if (member !== raw) (members = input.slice(0, i)).push(member);
      }
    }
    const canonical = members ?? input;
    wanted.set(name, { set, spec, list, members: canonical, count: canonical.length, hostList: undefined, entries, hosts, capacity });
  }
  return wanted;
}

/**
 * The check of a set of plain IPv4 hosts given as numbers (a {@link HostSet}): every
 * address is a canonical host by construction, so only repeats are looked for; the
 * member strings are not made.
 */
function checkedHosts(set: DesiredSet, spec: SpecInfo, numbers: Uint32Array, capacity: SetCapacity, pool: HostTablePool): Wanted {
  const hosts = new HostTable(numbers.length, pool);
  let list = numbers;
  for (let i = 0; i < numbers.length; i++) {
    if (hosts.insertIfAbsent(numbers[i]!, i + 1) === 0) continue;
    // A repeat (a HostSet holds none; never trust it): the first of each address stays, as for strings.
    const kept: number[] = [];
    const seen = new HostTable(numbers.length, new HostTablePool(0));
    for (const address of numbers) if (seen.insertIfAbsent(address, kept.length + 1) === 0) kept.push(address);
    list = Uint32Array.from(kept);
    return hostWanted(set, spec, list, seen, capacity);
  }
  return hostWanted(set, spec, list, hosts, capacity);
}

function hostWanted(set: DesiredSet, spec: SpecInfo, list: Uint32Array, hosts: HostTable, capacity: SetCapacity): Wanted {
  let members: readonly string[] | undefined;
  return {
    set,
    spec,
    list: false,
    get members(): readonly string[] {
      // The set's own strings while they are its members; else made from the kept addresses.
      return (members ??= list === HostSet.hostsOf(set) ? set.members : Object.freeze(Array.from(list, formatHostAddress)));
    },
    count: list.length,
    hostList: list,
    entries: new Map(),
    hosts,
    capacity,
  };
}

/** A prepared state's checked sets and their sources, for {@link wantedOf} and the next state (set by the class's static block). */
let checkedOf: (prepared: PreparedDesiredState) => ReadonlyMap<string, Wanted>;
let sourcesOf: (prepared: PreparedDesiredState) => ReadonlyMap<DesiredSet, Wanted>;

/**
 * A desired state checked once, for a caller that reconciles the same state again and
 * again (an agent holding a desired file between its changes, or a manager between pod
 * changes): `planReconcile` and `reconcileIPSets` take it as they take any
 * {@link DesiredState}, without checking it again.
 *
 * It holds its own frozen copy of every set (members canonical, one per kernel entry):
 * changing the state it was made from afterwards changes nothing here.
 */
export class PreparedDesiredState implements DesiredState {
  readonly owner: string;
  readonly sets: readonly DesiredSet[];
  /** What the check found: the sets by name, members keyed by kernel entry (see {@link Wanted}). */
  readonly #checked: ReadonlyMap<string, Wanted>;
  /** The same checks by the set object of `desired` each came from, for a next state made with this one as `previous`. */
  readonly #sources: ReadonlyMap<DesiredSet, Wanted>;

  static {
    checkedOf = (prepared) => prepared.#checked;
    sourcesOf = (prepared) => prepared.#sources;
  }

  /**
   * Checks `desired` as `planReconcile` would, and keeps what the check found. With
   * `previous` (of the same owner), a set of `desired` that is the very object a set of
   * `previous` was made from, frozen with its members (as `IPSetManager.desiredState`
   * hands out a set that did not change), is not checked again.
   *
   * @throws IpsetsError as documented on `planReconcile`, at once.
   */
  constructor(desired: DesiredState, previous?: PreparedDesiredState) {
    const known = previous !== undefined && previous.owner === desired?.owner ? sourcesOf(previous) : undefined;
    const checked = validateDesired(desired, known);
    const sets: DesiredSet[] = [];
    const own = new Map<string, Wanted>();
    const sources = new Map<DesiredSet, Wanted>();
    for (const [name, w] of checked) {
      const frozen = frozenWanted(w);
      sets.push(frozen.set);
      own.set(name, frozen);
    }
    for (const set of desired.sets) {
      const w = isFrozenSet(set) ? own.get(set.name) : undefined;
      if (w !== undefined) sources.set(set, w);
    }
    this.owner = desired.owner;
    this.sets = Object.freeze(sets);
    this.#checked = own;
    this.#sources = sources;
  }
}

/**
 * True for a set that cannot change: a frozen plain object of data properties (no
 * getter could answer differently later), its members a frozen array.
 */
function isFrozenSet(set: DesiredSet): boolean {
  // A HostSet is frozen and its addresses are private to core: it cannot change either.
  if (HostSet.hostsOf(set) !== undefined) return true;
  if (typeof set !== 'object' || set === null || !Object.isFrozen(set)) return false;
  const proto = Object.getPrototypeOf(set) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const descriptors = Object.getOwnPropertyDescriptors(set);
  for (const key in descriptors) if (!('value' in descriptors[key]!)) return false;
  const members = set.members;
  return Array.isArray(members) && Object.isFrozen(members) && Object.getPrototypeOf(members) === Array.prototype;
}

/**
 * The check of one set with its set and members frozen: a frozen set whose members were
 * all canonical and new is its own copy; otherwise the set's fields are copied, and its
 * members too when they are the caller's own array, which the caller may change later.
 */
function frozenWanted(w: Wanted): Wanted {
  if (w.hostList !== undefined) return w.hostList === HostSet.hostsOf(w.set) ? w : hostWanted(new HostSet(w.set, w.hostList), w.spec, w.hostList, w.hosts!, w.capacity);
  if (isFrozenSet(w.set) && w.members === w.set.members) return w;
  const members = Object.freeze(w.members === w.set.members ? w.members.slice() : w.members);
  return { ...w, set: Object.freeze(setCopy(w.set, members)), members };
}

/** A desired set's own fields, with `members`. */
function setCopy(set: DesiredSet, members: readonly string[]): DesiredSet {
  const copy: { name: string; label?: string; spec: CreateSpec; members: readonly string[]; maxelem?: number; hashsize?: number } = {
    name: set.name,
    spec: set.spec,
    members,
  };
  if (set.label !== undefined) copy.label = set.label;
  if (set.maxelem !== undefined) copy.maxelem = set.maxelem;
  if (set.hashsize !== undefined) copy.hashsize = set.hashsize;
  return copy;
}

/** The checked sets of `desired`: a prepared state's own, anything else checked now (see {@link validateDesired}). */
export function wantedOf(desired: DesiredState): ReadonlyMap<string, Wanted> {
  return desired instanceof PreparedDesiredState ? checkedOf(desired) : validateDesired(desired);
}
