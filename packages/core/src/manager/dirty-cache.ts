/**
 * The dirty cache (docs/reference-behaviour.md §c): which sets must be created, updated or
 * destroyed in the kernel at the next apply, and each set's member diff.
 *
 * One entry per dirty set, keyed by prefixed name, in the order the sets became
 * dirty (plans follow that order, so the same calls give the same plan). An entry is
 * in exactly one state:
 *
 * - `create`: not in the kernel; to be created with **all** its current members.
 *   The reference keeps an explicit `toAdd` that always equals the current members
 *   (every member change of such a set is recorded); here it is implicit, which
 *   saves a copy of every member when planning from an empty kernel.
 * - `update`: in the kernel; `toAdd` / `toDelete` are the member changes.
 * - `destroy`: in the kernel; to be destroyed. `kernelMembers` are the
 *   members believed to be in the kernel, kept so that a re-create in the same
 *   period can delete stale members.
 *
 * `unknown` marks a set whose kernel contents are not known: a `create` entry is then
 * rebuilt through a temporary set and swap (never flushed in place), and so is a
 * re-create after an unknown `destroy`.
 *
 * `fragile` marks an entry whose plan failed part-way (`IPSetManager.commit`): the
 * kernel holds some of the planned changes. Sent again unchanged the entry is still
 * right (every line is idempotent under `-exist`), but its diff no longer describes
 * the kernel, so the first operation on it turns it `unknown` before applying.
 *
 * Members are canonical member strings for hash sets (` nomatch` kept) and member
 * kernel names for lists.
 *
 * The operations take the set's member view **after** the manager changed the set.
 */

/** State of a dirty set. */
export type DirtyState = 'create' | 'update' | 'destroy';

/** The current members of a set, as the dirty cache needs them. */
export interface MemberSource {
  /** Calls `fn` for every current member, in insertion order. */
  forEachMember(fn: (member: string) => void): void;
  /** True when `member` is a current member (exact canonical string). */
  hasMember(member: string): boolean;
}

/** One dirty set. Read-only outside this module. */
export interface DirtyEntry {
  /** Prefixed name. */
  readonly name: string;
  /** Kernel name. */
  readonly kernelName: string;
  readonly state: DirtyState;
  /** `update`: members to add. */
  readonly toAdd: ReadonlySet<string> | undefined;
  /** `update`: members to delete. */
  readonly toDelete: ReadonlySet<string> | undefined;
  /** `destroy`: members believed to be in the kernel (undefined when {@link unknown}). */
  readonly kernelMembers: readonly string[] | undefined;
  /** The set's kernel contents are unknown (see the module documentation). */
  readonly unknown: boolean;
  /** The entry's last plan failed part-way (see the module documentation). */
  readonly fragile: boolean;
}

interface MutableEntry {
  name: string;
  kernelName: string;
  state: DirtyState;
  toAdd: Set<string> | undefined;
  toDelete: Set<string> | undefined;
  kernelMembers: readonly string[] | undefined;
  unknown: boolean;
  fragile: boolean;
}

function entry(name: string, kernelName: string, state: DirtyState): MutableEntry {
  return { name, kernelName, state, toAdd: undefined, toDelete: undefined, kernelMembers: undefined, unknown: false, fragile: false };
}

/** A fragile entry becomes unknown (keeping whether the set is wanted) before it is changed. */
function settle(e: MutableEntry | undefined): MutableEntry | undefined {
  if (e === undefined || !e.fragile) return e;
  e.fragile = false;
  e.unknown = true;
  e.state = e.state === 'destroy' ? 'destroy' : 'create';
  e.toAdd = undefined;
  e.toDelete = undefined;
  e.kernelMembers = undefined;
  return e;
}

/** Counts of dirty sets per state. */
export interface DirtyCounts {
  create: number;
  update: number;
  destroy: number;
}

/** The dirty cache of docs/reference-behaviour.md §c (see the module documentation). */
export class DirtyCache {
  private readonly entries = new Map<string, MutableEntry>();
  private readonly warn: ((message: string) => void) | undefined;

  /** @param warn receives the reference's "should not happen" warnings (create of an updated set, delete from a destroyed set). */
  constructor(warn?: (message: string) => void) {
    this.warn = warn;
  }

  /** Number of dirty sets. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry of `name`, if dirty. */
  get(name: string): DirtyEntry | undefined {
    return this.entries.get(name);
  }

  /** Every entry, in the order the sets became dirty. */
  values(): IterableIterator<DirtyEntry> {
    return this.entries.values();
  }

  /** Counts per state. */
  counts(): DirtyCounts {
    const counts: DirtyCounts = { create: 0, update: 0, destroy: 0 };
    for (const e of this.entries.values()) counts[e.state]++;
    return counts;
  }

  /**
   * The set must be in the kernel. Absent → `create`; `create`/`update` → no change;
   * `destroy` → `update` with the diff between the members believed in the kernel and
   * the current members (the reference reuses the destroy diff and ignores the current
   * members, docs/reference-behaviour.md §g.2.5).
   */
  create(name: string, kernelName: string, members: MemberSource): void {
    const e = settle(this.entries.get(name));
    if (e === undefined) {
      this.entries.set(name, entry(name, kernelName, 'create'));
      return;
    }
    if (e.state === 'update') {
      this.warn?.(`create should not be called for set ${name} since it's in the toUpdateCache`);
      return;
    }
    if (e.state === 'destroy') this.recreate(e, members);
  }

  /** `member` was added to the set (call after adding it). */
  addMember(name: string, kernelName: string, members: MemberSource, member: string): void {
    const e = settle(this.entries.get(name));
    if (e === undefined) {
      const fresh = entry(name, kernelName, 'update');
      fresh.toAdd = new Set([member]);
      this.entries.set(name, fresh);
      return;
    }
    switch (e.state) {
      case 'create':
        return;
      case 'update':
        diffAdd(e, member);
        return;
      case 'destroy':
        // The reference moves the destroy diff to toUpdate and adds the member to it,
        // deleting every other current member (docs/reference-behaviour.md §g.2.5); diff against the set instead.
        this.recreate(e, members);
        return;
    }
  }

  /** `member` was deleted from the set (call after deleting it). */
  deleteMember(name: string, kernelName: string, member: string): void {
    const e = settle(this.entries.get(name));
    if (e === undefined) {
      const fresh = entry(name, kernelName, 'update');
      fresh.toDelete = new Set([member]);
      this.entries.set(name, fresh);
      return;
    }
    switch (e.state) {
      case 'create':
        return;
      case 'update':
        diffDelete(e, member);
        return;
      case 'destroy':
        this.warn?.(`attempting to delete member ${member} for set ${name} in the toDestroyCache`);
        return;
    }
  }

  /**
   * The set must leave the kernel. Absent → `destroy` (kernel members = current);
   * `create` → forgotten (it never reached the kernel) unless its kernel state is
   * unknown; `update` → `destroy` with the members believed in the kernel.
   */
  destroy(name: string, kernelName: string, members: MemberSource): void {
    const e = settle(this.entries.get(name));
    if (e === undefined) {
      const fresh = entry(name, kernelName, 'destroy');
      fresh.kernelMembers = collect(members, undefined);
      this.entries.set(name, fresh);
      return;
    }
    switch (e.state) {
      case 'create':
        if (e.unknown) {
          e.state = 'destroy';
          e.kernelMembers = undefined;
        } else {
          this.entries.delete(name);
        }
        return;
      case 'update': {
        // Believed kernel members = current − toAdd + toDelete.
        const kernel = collect(members, e.toAdd);
        if (e.toDelete !== undefined) for (const m of e.toDelete) kernel.push(m);
        e.state = 'destroy';
        e.toAdd = undefined;
        e.toDelete = undefined;
        e.kernelMembers = kernel;
        return;
      }
      case 'destroy':
        return;
    }
  }

  /**
   * Marks the set's kernel contents unknown: the next plan rebuilds it from scratch
   * (through a temporary set and swap, with all members) when `desired`, or destroys it.
   */
  markUnknown(name: string, kernelName: string, desired: boolean): void {
    const e = entry(name, kernelName, desired ? 'create' : 'destroy');
    e.unknown = true;
    this.entries.set(name, e);
  }

  /** Marks the entry of `name` fragile: its last plan failed part-way (see the module documentation). */
  markFragile(name: string): void {
    const e = this.entries.get(name);
    if (e !== undefined) e.fragile = true;
  }

  /** Drops the entry of `name` (the set reached its desired kernel state). */
  forget(name: string): void {
    this.entries.delete(name);
  }

  /** Replaces the entry of `entry.name` with a copy of `source` (an entry of another cache). */
  adopt(source: DirtyEntry): void {
    this.entries.set(source.name, {
      name: source.name,
      kernelName: source.kernelName,
      state: source.state,
      toAdd: source.toAdd === undefined ? undefined : new Set(source.toAdd),
      toDelete: source.toDelete === undefined ? undefined : new Set(source.toDelete),
      kernelMembers: source.kernelMembers,
      unknown: source.unknown,
      fragile: source.fragile,
    });
  }

  /** Empties the cache (the reference's `reset()`). */
  clear(): void {
    this.entries.clear();
  }

  private recreate(e: MutableEntry, members: MemberSource): void {
    if (e.unknown || e.kernelMembers === undefined) {
      e.state = 'create';
      e.unknown = true;
      e.kernelMembers = undefined;
      return;
    }
    const kernel = new Set(e.kernelMembers);
    const toDelete = new Set<string>();
    for (const m of e.kernelMembers) if (!members.hasMember(m)) toDelete.add(m);
    const toAdd = new Set<string>();
    members.forEachMember((m) => {
      if (!kernel.has(m)) toAdd.add(m);
    });
    e.state = 'update';
    e.toAdd = toAdd.size > 0 ? toAdd : undefined;
    e.toDelete = toDelete.size > 0 ? toDelete : undefined;
    e.kernelMembers = undefined;
  }
}

/** True when an entry plans no change but the create line (an `update` with an empty diff). */
export function isEmptyUpdate(e: DirtyEntry): boolean {
  return e.state === 'update' && (e.toAdd === undefined || e.toAdd.size === 0) && (e.toDelete === undefined || e.toDelete.size === 0);
}

function diffAdd(e: MutableEntry, member: string): void {
  if (e.toDelete !== undefined && e.toDelete.delete(member)) return;
  (e.toAdd ??= new Set()).add(member);
}

function diffDelete(e: MutableEntry, member: string): void {
  if (e.toAdd !== undefined && e.toAdd.delete(member)) return;
  (e.toDelete ??= new Set()).add(member);
}

function collect(members: MemberSource, except: ReadonlySet<string> | undefined): string[] {
  const out: string[] = [];
  members.forEachMember((m) => {
    if (except === undefined || !except.has(m)) out.push(m);
  });
  return out;
}
