/**
 * Reconcile planning (beyond the reference): compare every owned kernel set
 * with a desired state and plan the restore lines that make the kernel equal to it.
 *
 * Rules, all decided from the snapshot (`ipset save`) and the headers (`ipset list -t`):
 *
 * - **Ownership.** A kernel set is owned when {@link isOwnedSetName} says so (the owner
 *   prefix followed by one or more of `0-9a-z`, nothing else).
 *   Foreign sets get no line, ever; a desired set that is not owned is refused.
 * - **Missing** desired sets are created, then filled.
 * - **Drift** of a desired set that exists with a compatible type is repaired: members
 *   to delete, then members to add. Members compare canonically (the kernel's save
 *   output is canonical; desired members are canonicalised here). A member and the
 *   same member with ` nomatch` are one kernel entry: switching the flag is a delete
 *   then an add. list:set members compare as a set (their order is not reconciled).
 * - **Undesired** owned sets are destroyed when nothing outside this plan references
 *   them. References come from the headers; references held by owned lists that this
 *   plan empties or destroys do not count. A set that stays referenced is left exactly
 *   as it is — not flushed: emptying a set an iptables rule still matches changes
 *   traffic (the reference's flush-then-destroy hazard, docs/reference-behaviour.md §g.2.4) — and gets a
 *   `referenced-not-destroyed` note (reported as in use).
 *   Undesired sets are destroyed without a flush: destroying a list releases its
 *   members just as flushing it does, and if a destroy is refused because a reference
 *   appeared meanwhile, the set keeps its members instead of matching nothing.
 * - **Type conflicts** (kernel type, family, maxelem, timeout, netmask, extensions or
 *   list size differ from what `-N name --exist <spec>` would create; such a create
 *   fails with "set with the same name already exists"): destroyed and recreated when
 *   unreferenced (`type-conflict-recreated`), otherwise left alone and reported
 *   (`type-conflict-referenced`, counted as not converged by the session's report).
 *
 * - **Unreadable kernel members.** A saved member of an owned set that is not in the
 *   exact canonical form ipset prints for the set's type (a hostile or hand-edited save
 *   such as `10.0.0.0/000…024-F`) is never copied into a `-D` line: the set is rebuilt
 *   through a temporary set and swap with its desired members (`unreadable-members-rebuilt` note).
 *
 * Every fate comes from set-fate.ts, as in the other planners; no line is ever `-F`.
 *
 * Line order: (B) deletes from kept lists, (C) destroys of lists (undesired or to be
 * recreated), (D) destroys of hash sets to be recreated, (E) creates, (F) hash-set
 * member deletes then adds, (G) list adds, (H) destroys of undesired hash sets. So a
 * list releases a member before that member is destroyed, every list member exists
 * before a list adds it, and the planned order is deterministic: desired sets in
 * desired order, kernel sets in snapshot order, members in desired or snapshot order.
 */
import { validateCapacity, withInitialHashsize } from '../model/capacity.js';
import { pushRebuildLines } from './rebuild.js';
import { chooseTemporary, savedFate, targetCapacity } from './set-fate.js';
import { RECONCILE_HANDLERS, addOrUpdateSection, deleteSection } from './handlers.js';
import type { GrowthPolicy } from './rebuild.js';
import type { SetCapacity } from '../model/capacity.js';
import { IpsetsError, quote } from '../errors.js';
import { NOMATCH_FLAG, canonicalMember, entryKey, hostValue, isCanonicalMember } from '../model/members.js';
import { validateSetName } from '../model/set-names.js';
import { planFromPieces } from './line-runs.js';
import type { PlanPiece } from './line-runs.js';
import type { MemberKind } from '../model/members.js';
import { isOwnedSetName, validateOwnerPrefix } from '../model/naming.js';
import { CREATE_SPECS, familyOfSpec, isCreateSpec, kernelTypeOfSpec } from '../model/set-types.js';
import type {
  CreateSpec,
  DesiredSet,
  DesiredState,
  PlanLine,
  PlanNote,
  RestorePlan,
  SavedSet,
  SaveSnapshot,
  SetHeader,
} from '../types.js';

/** Options of {@link planReconcile}. */
export interface PlanReconcileOptions {
  /**
   * Destroy and recreate an unreferenced set whose kernel type conflicts with the
   * desired spec (default `true`). With `false`, every conflict is only reported.
   */
  recreateTypeConflicts?: boolean;
  /**
   * Growth of hash sets whose desired members do not fit their maxelem (default: on,
   * doubling, up to 1,048,576): such a set is created, or rebuilt through a temporary
   * set and swap, with a larger maxelem, and a note says so. Off: the set keeps its
   * maxelem and gets `hash-full` for itself only.
   */
  growth?: GrowthPolicy;
  /**
   * Writer id that makes temporary set names of rebuilds unique per writer (default
   * `''`): concurrent writers of one kernel must pass different ids.
   */
  writer?: string;
}

function unreadableNote(saved: SavedSet, member: string): PlanNote {
  return {
    set: saved.name,
    kind: 'unreadable-members-rebuilt',
    message: `set ${quote(saved.name)} holds ${quote(member)}, which is not in the canonical form ipset prints for ${saved.type}; it is never copied into a plan: the set is rebuilt through a temporary set and swap`,
  };
}

/** A desired set, validated, with canonical members keyed by kernel entry. */
interface Wanted {
  readonly set: DesiredSet;
  readonly list: boolean;
  /** Canonical members (for lists: names), one per kernel entry, in desired order. */
  readonly members: readonly string[];
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

/**
 * Host members of a hash:net set by address (open addressing, linear probing): a
 * million fresh kernel strings are looked up by the number they spell instead of
 * by string hash and contents. A slot holds `index + 1` of the member in
 * `Wanted.members`, negated when the member has ` nomatch`; 0 is empty.
 */
class HostTable {
  private readonly addresses: Int32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly shift: number;
  /** What {@link touchStrings} read for this table, kept so that its reads are not optimised away. */
  touched = 0;

  /** Slots a table for `capacity` members takes from a {@link HostTablePool}. */
  static size(capacity: number): number {
    let bits = 3;
    while (1 << bits < capacity * 2) bits++;
    return 1 << bits;
  }

  /** @param capacity the most members it will hold; its arrays are views of `pool`'s. */
  constructor(capacity: number, pool: HostTablePool) {
    const size = HostTable.size(capacity);
    [this.addresses, this.slots] = pool.take(size);
    this.mask = size - 1;
    this.shift = 32 - Math.log2(size);
  }

  /** The slot value of `address` (see the class), or 0 when it is absent. */
  get(address: number): number {
    const a = address | 0;
    const { addresses, slots, mask } = this;
    // Fibonacci hashing: the high bits of the product mix every bit of the address.
    for (let i = Math.imul(a, -1640531535) >>> this.shift; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0 || addresses[i] === a) return v;
    }
  }

  /** Stores `value` for `address` unless it is present; returns the present value, or 0 when stored. */
  insertIfAbsent(address: number, value: number): number {
    const a = address | 0;
    const { addresses, slots, mask } = this;
    for (let i = Math.imul(a, -1640531535) >>> this.shift; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0) {
        addresses[i] = a;
        slots[i] = value;
        return 0;
      }
      if (addresses[i] === a) return v;
    }
  }
}

/**
 * The arrays of every {@link HostTable} of one plan, allocated at once: a few typed
 * arrays per desired set measured costlier to allocate than the tables cost to fill.
 */
class HostTablePool {
  private readonly addresses: Int32Array;
  private readonly slots: Int32Array;
  private used = 0;

  constructor(slots: number) {
    this.addresses = new Int32Array(slots);
    this.slots = new Int32Array(slots);
  }

  /** The next `size` slots (zeroed: never handed out before); arrays of their own past the pool's end. */
  take(size: number): [Int32Array, Int32Array] {
    if (this.used + size > this.slots.length) return [new Int32Array(size), new Int32Array(size)];
    const from = this.used;
    this.used += size;
    return [this.addresses.subarray(from, this.used), this.slots.subarray(from, this.used)];
  }
}

/** Desired members read per block: see {@link touchStrings}. */
const PREFETCH = 64;

/**
 * Reads the length of each string in `members[from, to)` before they are parsed. The
 * manager's member strings lie all over the heap: parsed one after the other each
 * waits for its own cache miss, while these independent reads wait for many at once
 * (measured: the first read of a million desired members 215 → 125 ms). Returns
 * `sum` plus the lengths read (modulo 2^16), for the caller to keep.
 */
function touchStrings(members: readonly unknown[], from: number, to: number, sum: number): number {
  for (let i = from; i < to; i++) {
    const m = members[i];
    if (typeof m === 'string') sum += m.length;
  }
  return sum & 0xffff;
}

type Fate = 'keep' | 'destroy' | 'stay' | 'recreate' | 'conflict-stay' | 'rebuild';

/** True for a desired set whose host members go to a {@link HostTable}: hash:net, family inet. */
function hashNetInet(set: DesiredSet): boolean {
  return typeof set === 'object' && set !== null && isCreateSpec(set.spec) && kernelTypeOfSpec(set.spec) === 'hash:net' && (familyOfSpec(set.spec) ?? 'inet') === 'inet';
}

function invalid(message: string, details: Record<string, unknown>): IpsetsError {
  return new IpsetsError('INVALID_INPUT', message, { details });
}

function validateDesired(desired: DesiredState): Map<string, Wanted> {
  const owner = desired?.owner;
  validateOwnerPrefix(owner);
  const wanted = new Map<string, Wanted>();
  let slots = 0;
  for (const set of desired.sets) if (hashNetInet(set) && Array.isArray(set.members)) slots += HostTable.size(set.members.length);
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
    if (!isCreateSpec(set.spec)) {
      throw invalid(`Desired set ${quote(name)} has spec ${quote(set.spec)}; expected one of ${CREATE_SPECS.join(', ')}.`, {
        set: name,
        spec: set.spec,
      });
    }
    const capacity = validateCapacity({ maxelem: set.maxelem, hashsize: set.hashsize }, set.spec, `desired set ${quote(name)}`);
    const kernelType = kernelTypeOfSpec(set.spec);
    const family = familyOfSpec(set.spec) ?? 'inet';
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
    wanted.set(name, { set, list, members: canonical, entries, hosts, capacity });
  }
  return wanted;
}

/**
 * The capacity each desired hash set is created (or rebuilt) with (set-fate.ts
 * `targetCapacity`: the same growth on every path).
 */
function capacityTargets(wanted: ReadonlyMap<string, Wanted>, growth: GrowthPolicy, notes: PlanNote[]): Map<string, SetCapacity> {
  const out = new Map<string, SetCapacity>();
  for (const [name, w] of wanted) if (!w.list) out.set(name, targetCapacity(name, w.set.spec, w.capacity, w.members.length, growth, notes));
  return out;
}

/**
 * Plans the restore lines that make the owned part of the kernel (`snapshot`, with
 * references from `headers`) equal to `desired` (see the module documentation).
 * Decisions that are not lines are in `plan.notes`.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an owner prefix `validateOwnerPrefix` refuses; `INVALID_INPUT` for a
 *   desired set that is not owned, listed twice, has an unknown spec or contradictory
 *   members; `INVALID_MEMBER` / `INVALID_SET_NAME` for a member that does not fit its set.
 */
export function planReconcile(
  desired: DesiredState,
  snapshot: SaveSnapshot,
  headers: readonly SetHeader[],
  options: PlanReconcileOptions = {},
): RestorePlan {
  const recreate = options.recreateTypeConflicts ?? true;
  const wanted = validateDesired(desired);
  const owner = desired.owner;

  const kernel = new Map<string, SavedSet>();
  for (const s of snapshot.sets) if (isOwnedSetName(s.name, owner) && !kernel.has(s.name)) kernel.set(s.name, s);
  const refs = new Map<string, number>();
  for (const h of headers) if (!refs.has(h.name)) refs.set(h.name, h.references);

  // Owned kernel lists holding each set: references this plan may release.
  const holders = new Map<string, string[]>();
  for (const s of kernel.values()) {
    if (s.type !== 'list:set') continue;
    for (const m of s.members) {
      const h = holders.get(m);
      if (h === undefined) holders.set(m, [s.name]);
      else if (!h.includes(s.name)) h.push(s.name);
    }
  }

  const notes: PlanNote[] = [];
  const fate = new Map<string, Fate>();
  const growth = options.growth ?? {};
  const target = capacityTargets(wanted, growth, notes);

  /** References from outside the owned lists, or `undefined` when the headers do not know the set. */
  const external = (name: string): number | undefined => {
    const r = refs.get(name);
    return r === undefined ? undefined : Math.max(0, r - (holders.get(name)?.length ?? 0));
  };

  // Lists first: lists cannot hold lists, so their fate depends on their own references only.
  const decide = (s: SavedSet, released: boolean): void => {
    const w = wanted.get(s.name);
    const ext = external(s.name);
    const free = ext === 0 && released;
    const why =
      ext === undefined
        ? 'its references are unknown (it is missing from the list -t output)'
        : ext > 0
          ? `it has ${ext} reference(s) from outside this plan (iptables rules or foreign lists)`
          : 'an owned list that stays keeps it as a member';
    if (w === undefined) {
      fate.set(s.name, free ? 'destroy' : 'stay');
      if (!free) {
        notes.push({
          set: s.name,
          kind: 'referenced-not-destroyed',
          message: `set ${quote(s.name)} is no longer desired but is not destroyed: ${why}; left unchanged`,
        });
      }
      return;
    }
    const decided = savedFate(s, w.set.spec, target.get(s.name) ?? w.capacity, w.members.length, growth, free, recreate);
    if (!w.list) target.set(s.name, decided.capacity);
    if (decided.fate === 'keep') {
      const unreadable = w.list ? [...s.members].find((m) => !isCanonicalMember('list:set', m)) : undefined;
      if (unreadable !== undefined) {
        fate.set(s.name, 'rebuild');
        notes.push(unreadableNote(s, unreadable));
      } else {
        fate.set(s.name, 'keep');
      }
    } else if (decided.fate === 'rebuild') {
      fate.set(s.name, 'rebuild');
      notes.push({ set: s.name, kind: 'info', message: `set ${quote(s.name)}: rebuild (${decided.reason}) through a temporary set and swap` });
    } else if (decided.fate === 'recreate') {
      fate.set(s.name, 'recreate');
      notes.push({ set: s.name, kind: 'type-conflict-recreated', message: `set ${quote(s.name)}: ${decided.reason}; destroyed and recreated` });
    } else {
      fate.set(s.name, 'conflict-stay');
      notes.push({
        set: s.name,
        kind: 'type-conflict-referenced',
        message: `set ${quote(s.name)}: ${decided.reason}; not recreated because ${recreate ? why : 'recreating type conflicts is disabled'}`,
      });
    }
  };

  for (const s of kernel.values()) if (s.type === 'list:set') decide(s, true);
  for (const s of kernel.values()) {
    if (s.type === 'list:set') continue;
    const undesired = !wanted.has(s.name);
    // Every owned list holding the set must let go of it within this plan.
    const released = (holders.get(s.name) ?? []).every((l) => {
      const f = fate.get(l);
      if (f === 'destroy' || f === 'recreate') return true;
      if (f !== 'keep') return false;
      // A kept list deletes members it should not hold; a desired member it holds is
      // deleted and re-added only around a recreate (never for an undesired set).
      return !wanted.get(l)!.entries.has(s.name) || !undesired;
    });
    decide(s, released);
  }

  // A set's adds are one run of members (see line-runs.ts): a million adds are not a
  // million line objects unless someone reads `plan.lines`.
  const pieces: PlanPiece[] = [];
  const line = (l: PlanLine): void => {
    pieces.push(l);
  };
  /** A rebuild through a temporary set the kernel does not hold (set-fate.ts `chooseTemporary`). */
  const rebuild = (name: string, w: Wanted, section: string): void => {
    const temporary = chooseTemporary(owner, name, options.writer ?? '', (n) => kernel.has(n));
    pushRebuildLines(line, { name, spec: w.set.spec, capacity: target.get(name) ?? w.capacity, section }, temporary, w.members);
  };

  // (B) Kept lists let go of members they should not hold and of members to be
  // recreated (every saved member of a kept list is a set name: see decide).
  const listAfter = new Map<string, Set<string>>();
  for (const s of kernel.values()) {
    if (s.type !== 'list:set' || fate.get(s.name) !== 'keep') continue;
    const w = wanted.get(s.name)!;
    const after = new Set<string>();
    for (const m of s.members) {
      if (after.has(m)) continue;
      if (!w.entries.has(m) || fate.get(m) === 'recreate') {
        line({ op: 'del', set: s.name, member: m, section: addOrUpdateSection(s.name), onError: RECONCILE_HANDLERS.delFromList });
      } else {
        after.add(m);
      }
    }
    listAfter.set(s.name, after);
  }

  // (C) Lists go before hash sets so that destroyed lists release their members.
  for (const s of kernel.values()) {
    if (s.type !== 'list:set') continue;
    const f = fate.get(s.name);
    if (f === 'destroy') line({ op: 'destroy', set: s.name, section: deleteSection(s.name), onError: RECONCILE_HANDLERS.destroy });
    if (f === 'recreate') line({ op: 'destroy', set: s.name, section: addOrUpdateSection(s.name), onError: RECONCILE_HANDLERS.destroyToRecreate });
  }
  // (D)
  for (const s of kernel.values()) {
    if (s.type !== 'list:set' && fate.get(s.name) === 'recreate') {
      line({ op: 'destroy', set: s.name, section: addOrUpdateSection(s.name), onError: RECONCILE_HANDLERS.destroyToRecreate });
    }
  }

  // (E) Creates: every member a list adds in (G) exists by then.
  for (const [name, w] of wanted) {
    const f = fate.get(name);
    if (f === undefined || f === 'recreate') {
      // A new hash set is sized for the members it is filled with (see initialHashsize).
      const capacity = target.get(name) ?? w.capacity;
      line({ op: 'create', set: name, spec: w.set.spec, ...(w.list ? capacity : withInitialHashsize(capacity, w.members.length)), section: addOrUpdateSection(name), onError: RECONCILE_HANDLERS.create });
    }
  }

  // (F) Hash sets: deletes, then adds.
  for (const [name, w] of wanted) {
    if (w.list) continue;
    const f = fate.get(name);
    if (f === 'conflict-stay') continue;
    const section = addOrUpdateSection(name);
    const members = w.members;
    if (f === 'rebuild') {
      rebuild(name, w, section);
      continue;
    }
    // Marks of the desired members the kernel already holds, by index: a second map of
    // a million kept members cost more than the lookups themselves.
    const have = new Uint8Array(members.length);
    let rebuilt = false;
    if (f === 'keep') {
      const { entries, hosts } = w;
      const saved = kernel.get(name)!;
      const type = kernelTypeOfSpec(w.set.spec) as MemberKind;
      const start = pieces.length;
      // A saved set is planned from its member list's host values (for a set parseSave
      // made, what the parser read): a host member is a number, and only members that
      // get a line become strings (a million unchanged members make no garbage).
      const spans = saved.members;
      const values = spans.hostValues();
      const count = spans.length;
      for (let i = 0; i < count; i++) {
        let m: string | undefined;
        // The parser read a host's value on the way; any other member is read here.
        let v = values[i]!;
        if (v < 0 || hosts === undefined) {
          m = spans.at(i);
          v = hosts === undefined ? -1 : hostValue(m);
        }
        const nomatch = v >= NOMATCH_FLAG;
        const address = nomatch ? v - NOMATCH_FLAG : v;
        let match = -1;
        if (address >= 0) {
          // Same address and same nomatch flag: the same string (see hostValue).
          const slot = hosts!.get(address);
          if (slot > 0 ? !nomatch : slot < 0 && nomatch) match = Math.abs(slot) - 1;
        } else {
          const index = entries.get(entryKey(m!));
          if (index !== undefined && members[index] === m) match = index;
        }
        if (match >= 0) {
          have[match] = 1;
          continue;
        }
        // Only a member hostValue read (a canonical host by construction) or one
        // isCanonicalMember accepts is written into a line.
        m ??= spans.at(i);
        if (address >= 0 || isCanonicalMember(type, m, familyOfSpec(w.set.spec))) {
          // Not desired, or its nomatch flag switches: delete (and add back below).
          line({ op: 'del', set: name, member: m, section, onError: RECONCILE_HANDLERS.delFromSet });
        } else {
          // Never echo a member ipset would not print: rebuild the set instead.
          pieces.length = start;
          notes.push(unreadableNote(saved, m));
          rebuilt = true;
          break;
        }
      }
    }
    if (rebuilt) {
      rebuild(name, w, section);
      continue;
    }
    const adds: string[] = [];
    for (let i = 0; i < members.length; i++) if (have[i] === 0) adds.push(members[i]!);
    if (adds.length > 0) pieces.push({ op: 'add', set: name, section, onError: RECONCILE_HANDLERS.addToSet, members: adds });
  }

  // (G) List adds (or rebuilds), once every member set exists.
  for (const [name, w] of wanted) {
    if (!w.list || fate.get(name) === 'conflict-stay') continue;
    if (fate.get(name) === 'rebuild') {
      rebuild(name, w, addOrUpdateSection(name));
      continue;
    }
    const after = listAfter.get(name) ?? new Set<string>();
    for (const m of w.members) {
      if (!after.has(m)) line({ op: 'add', set: name, member: m, section: addOrUpdateSection(name), onError: RECONCILE_HANDLERS.addToList });
    }
  }

  // (H) Undesired hash sets, released above.
  for (const s of kernel.values()) {
    if (s.type !== 'list:set' && fate.get(s.name) === 'destroy') {
      line({ op: 'destroy', set: s.name, section: deleteSection(s.name), onError: RECONCILE_HANDLERS.destroy });
    }
  }

  for (const p of snapshot.problems) {
    const text = p.length === undefined ? quote(p.text) : `${quote(p.text)} (cut; the line is ${p.length} characters long)`;
    notes.push({ set: '', kind: 'info', message: `ipset save line ${p.line} was not understood (${p.reason}): ${text}` });
  }
  const more = (snapshot.problemCount ?? snapshot.problems.length) - snapshot.problems.length;
  if (more > 0) notes.push({ set: '', kind: 'info', message: `${more} more ipset save line(s) were not understood` });

  return planFromPieces(pieces, notes.length > 0 ? notes : undefined, undefined);
}
