/**
 * Plans as data: what a manager hands to the planners, and how a report of a plan is
 * settled against the manager's dirty state.
 *
 * `manager.dirtySnapshot()` returns a {@link DirtySnapshot}: the dirty entries in plan
 * order, read access to the sets and their capacity, and a {@link PlanBasis} — a value
 * saying which sets the snapshot covered, at which change count of the manager, with
 * which planned operations. Taking a snapshot changes nothing in the manager, so a plan
 * made for a preview leaves every other plan as committable as it was.
 *
 * `manager.commit(basis, report)` settles a report with {@link settleReport}: a set whose
 * planned change reached the kernel leaves the dirty cache, unless it changed after the
 * snapshot; then what is still dirty is the difference between the state the plan
 * produced and the set's current state ({@link laterChange}). Sets that failed stay
 * dirty (fragile, or unknown when they changed since).
 *
 * A basis can be committed once, and only until the manager commits another basis or
 * is reset: dirty entries after a commit describe a different kernel state than the
 * one the older basis was planned against.
 */
import type { SetCapacity } from '../model/capacity.js';
import { isEmptyUpdate } from './dirty-cache.js';
import type { DirtyCache, DirtyEntry, DirtyState, MemberSource } from './dirty-cache.js';
import type { SetTypeInfo } from '../model/set-types.js';
import type { ApplyReport, SetType } from '../types.js';
import type { IPSet } from './set-record.js';

/** A set as the planners see it. */
export interface PlanSetView extends MemberSource {
  readonly name: string;
  readonly kernelName: string;
  readonly info: SetTypeInfo;
  /** Number of current members. */
  readonly memberCount: number;
  /**
   * A hash set whose members are all IPv4 hosts without ` nomatch`: their addresses
   * (unsigned 32-bit), in {@link MemberSource.forEachMember} order, in an array the
   * planner may keep; `undefined` for any other set. Optional: a planner then writes
   * such a set's add lines from the numbers, never making their strings.
   */
  plainHosts?(): Uint32Array | undefined;
}

/**
 * The manager's dirty state, as planners read it. Read it before the manager changes
 * again: `entries` and `set` show the manager as it is (the basis keeps what commit
 * needs of the state at snapshot time).
 */
export interface DirtySnapshot {
  /** What the snapshot covered; put it on the plan (`RestorePlan.basis`) for commit. */
  readonly basis: PlanBasis;
  /** Owner prefix of the manager's kernel names (temporary rebuild sets are owned by it too). */
  readonly owner: string;
  /** The dirty entries in plan order (the order the sets became dirty). */
  readonly entries: readonly DirtyEntry[];
  /** A cached set, for a create/update entry. */
  set(name: string): PlanSetView | undefined;
  /** The configured capacity of a set type (`{}` when none). */
  capacity(type: SetType): SetCapacity;
}

/** @internal What a basis recorded of one dirty set. */
export interface PlannedSet {
  readonly name: string;
  readonly kernelName: string;
  readonly state: DirtyState;
  readonly unknown: boolean;
  readonly fragile: boolean;
  /** `update`: the planned diff (copies). */
  readonly toAdd: readonly string[] | undefined;
  readonly toDelete: readonly string[] | undefined;
  /** The set record at snapshot time (absent for a removed set to destroy). */
  readonly record: IPSet | undefined;
  /** `record.memberCount` and `record.removals` at snapshot time. */
  readonly memberCount: number;
  readonly removals: number;
}

/**
 * The basis of a plan made from a manager's {@link DirtySnapshot}: which dirty sets it
 * covered, at which change count, with which planned operations. Opaque to everyone
 * but the manager that made it.
 */
export class PlanBasis {
  /** @internal Identity of the manager that made the basis. */
  readonly source: object;
  /** @internal The manager's commit count when the basis was made. */
  readonly epoch: number;
  /** The manager's change count when the basis was made. */
  readonly changes: number;
  /** @internal */
  readonly planned: ReadonlyMap<string, PlannedSet>;
  /** Number of dirty sets the plan covered. */
  readonly size: number;

  /** @internal */
  constructor(source: object, epoch: number, changes: number, planned: ReadonlyMap<string, PlannedSet>) {
    this.source = source;
    this.epoch = epoch;
    this.changes = changes;
    this.planned = planned;
    this.size = planned.size;
    Object.freeze(this);
  }
}

/** @internal What a basis records of a dirty entry and its set record. */
export function plannedSet(entry: DirtyEntry, record: IPSet | undefined): PlannedSet {
  return {
    name: entry.name,
    kernelName: entry.kernelName,
    state: entry.state,
    unknown: entry.unknown,
    fragile: entry.fragile,
    toAdd: entry.toAdd === undefined ? undefined : [...entry.toAdd],
    toDelete: entry.toDelete === undefined ? undefined : [...entry.toDelete],
    record,
    memberCount: record?.memberCount ?? 0,
    removals: record?.removals ?? 0,
  };
}

/** @internal What {@link settleReport} needs of the manager. */
export interface SettleTarget {
  /** The manager's dirty cache (changed in place). */
  readonly dirty: DirtyCache;
  /** The current record of a prefixed name. */
  record(name: string): IPSet | undefined;
  /** True when the set should be in the kernel. */
  desired(set: IPSet): boolean;
}

/**
 * The change still to make after a plan reached the kernel, relative to the state the
 * plan produced: `none` (the set is as the plan left it wanted), an `entry` (a dirty
 * entry relative to the planned state), or `unknown` (the planned state cannot be
 * worked out from what the basis kept: the set is re-sent whole).
 */
export type LaterChange = { readonly kind: 'none' } | { readonly kind: 'entry'; readonly entry: DirtyEntry } | { readonly kind: 'unknown' };

const NONE: LaterChange = Object.freeze({ kind: 'none' });
const UNKNOWN: LaterChange = Object.freeze({ kind: 'unknown' });

function dirtyEntry(planned: PlannedSet, state: DirtyState, parts: Partial<Pick<DirtyEntry, 'toAdd' | 'toDelete' | 'kernelMembers'>> = {}): LaterChange {
  const toAdd = parts.toAdd !== undefined && parts.toAdd.size > 0 ? parts.toAdd : undefined;
  const toDelete = parts.toDelete !== undefined && parts.toDelete.size > 0 ? parts.toDelete : undefined;
  return {
    kind: 'entry',
    entry: { name: planned.name, kernelName: planned.kernelName, state, toAdd, toDelete, kernelMembers: parts.kernelMembers, unknown: false, fragile: false },
  };
}

/** The members a planned create left in the kernel, when the record shows them still. */
function plannedMembers(planned: PlannedSet): string[] | undefined {
  const record = planned.record;
  if (record === undefined || record.removals !== planned.removals) return undefined;
  const members: string[] = [];
  let n = 0;
  record.forEachMember((m) => {
    if (n++ < planned.memberCount) members.push(m);
  });
  return members;
}

/**
 * What is still dirty for a planned set that changed after the snapshot, once its
 * plan reached the kernel (see {@link LaterChange}). `now` is the set's current record,
 * `current` its current dirty entry (relative to the kernel state before the plan).
 */
export function laterChange(planned: PlannedSet, now: IPSet | undefined, desired: boolean, current: DirtyEntry | undefined): LaterChange {
  if (planned.state === 'destroy') {
    // The plan removed the set: if it is wanted again it is created with all its members.
    return now !== undefined && desired ? dirtyEntry(planned, 'create') : NONE;
  }
  if (planned.fragile) return UNKNOWN;
  if (planned.state === 'update' && !planned.unknown) {
    // Both entries are diffs against the same kernel state K: planned P = K − del0 + add0,
    // current C = K − del1 + add1, so P → C adds (add1 − add0) ∪ (del0 − del1) and
    // deletes (add0 − add1) ∪ (del1 − del0).
    const add0 = new Set(planned.toAdd ?? []);
    const del0 = new Set(planned.toDelete ?? []);
    if (current !== undefined && (current.unknown || current.fragile)) return UNKNOWN;
    if (current === undefined || current.state === 'create') return UNKNOWN;
    if (current.state === 'destroy') {
      if (current.kernelMembers === undefined) return UNKNOWN;
      const kernel: string[] = [];
      for (const m of current.kernelMembers) if (!del0.has(m) && !add0.has(m)) kernel.push(m);
      for (const m of add0) kernel.push(m);
      return dirtyEntry(planned, 'destroy', { kernelMembers: kernel });
    }
    const add1 = current.toAdd ?? new Set<string>();
    const del1 = current.toDelete ?? new Set<string>();
    const toAdd = new Set<string>();
    const toDelete = new Set<string>();
    for (const m of add1) if (!add0.has(m)) toAdd.add(m);
    for (const m of del0) if (!del1.has(m)) toAdd.add(m);
    for (const m of add0) if (!add1.has(m)) toDelete.add(m);
    for (const m of del1) if (!del0.has(m)) toDelete.add(m);
    return dirtyEntry(planned, 'update', { toAdd, toDelete });
  }
  // A create (or a rebuild of unknown contents) left exactly the members the plan saw.
  const members = plannedMembers(planned);
  if (members === undefined) return UNKNOWN;
  if (now === undefined || !desired) return dirtyEntry(planned, 'destroy', { kernelMembers: members });
  const toDelete = new Set<string>();
  for (const m of members) if (!now.hasMember(m)) toDelete.add(m);
  const kernel = new Set(members);
  const toAdd = new Set<string>();
  now.forEachMember((m) => {
    if (!kernel.has(m)) toAdd.add(m);
  });
  return dirtyEntry(planned, 'update', { toAdd, toDelete });
}

/** What {@link settleReport} did: the prefixed names cleared and kept. */
export interface Settled {
  readonly applied: string[];
  readonly kept: string[];
}

/**
 * Clears from `target.dirty` what the plan of `basis` covered and reached the kernel
 * (every planned set except `report.failedSets` and `report.inUseSets`); changes made
 * after the snapshot stay dirty, relative to the state the plan produced.
 */
export function settleReport(basis: PlanBasis, report: ApplyReport, target: SettleTarget): Settled {
  const failed = new Set<string>([...(report.failedSets ?? []), ...(report.inUseSets ?? [])]);
  const applied: string[] = [];
  const kept: string[] = [];
  const { dirty } = target;
  for (const planned of basis.planned.values()) {
    const now = target.record(planned.name);
    const desired = now !== undefined && target.desired(now);
    const changed = now !== planned.record || (now !== undefined && now.changedAt > basis.changes);
    const current = dirty.get(planned.name);
    const later = changed ? laterChange(planned, now, desired, current) : NONE;
    if (!failed.has(planned.kernelName)) {
      if (later.kind === 'none') dirty.forget(planned.name);
      else if (later.kind === 'entry') dirty.adopt(later.entry);
      else dirty.markUnknown(planned.name, planned.kernelName, desired);
      applied.push(planned.name);
      continue;
    }
    // The kernel holds some of the planned lines. Sending the same entry again is
    // right (lines are idempotent) when the session said which lines failed; an entry
    // changed since planning is not, so the set is re-sent whole — and so is a set
    // planned, then cancelled after planning (created and deleted again): it may exist
    // now. After a session that ended early (a restore killed or crashed part-way, the
    // attempt budget spent) what reached the kernel is uncertain: the set's contents are
    // unknown and the next apply rebuilds it through a temporary set and swap instead
    // of resending the delta blind.
    const settled = later.kind === 'none' || (later.kind === 'entry' && isEmptyUpdate(later.entry));
    if (settled && current !== undefined && report.fatal === undefined) dirty.markFragile(planned.name);
    else dirty.markUnknown(planned.name, planned.kernelName, desired);
    kept.push(planned.name);
  }
  return { applied, kept };
}
