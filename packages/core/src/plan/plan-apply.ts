/**
 * Apply plans (docs/reference-behaviour.md §d.1–§d.2, §e): the manager's dirty delta
 * as restore lines with sections and error handlers as data.
 *
 * Order: creates for every set to add or update; then per set its deletes, then its
 * adds; then flushes, then destroys of the sets to destroy. Within each block sets
 * come in the order they became dirty and members in the order they were added —
 * never hash order — so the same calls give the same plan, byte for byte.
 */
import { quote } from '../errors.js';
import { isCanonicalMember } from '../model/members.js';
import type { IPSetManager } from '../manager/manager.js';
import type { DirtySnapshot, PlanSetView } from '../manager/basis.js';
import type { SetCapacity } from '../model/capacity.js';
import { withInitialHashsize } from '../model/capacity.js';
import { pushRebuildLines, temporaryName } from './rebuild.js';
import { APPLY_HANDLERS, addOrUpdateSection, deleteSection } from './handlers.js';
import type { DirtyEntry } from '../manager/dirty-cache.js';
import { planFromPieces } from './line-runs.js';
import type { PlanPiece } from './line-runs.js';
import type { ErrorHandler, PlanLine, PlanNote, RestorePlan, SaveSnapshot, SavedSet } from '../types.js';

// Member lines are kept as runs (line-runs.ts): a million-line plan makes no line
// objects until someone reads its lines, and the renderer reads the runs. Single lines
// are built as literals with only the fields their op uses.

/** The capacity of a target's create line: a new hash set is sized for the members it is created with. */
function createCapacity(t: Target, snapshot: DirtySnapshot): SetCapacity {
  const capacity = snapshot.capacity(t.set.info.type);
  return t.entry.state === 'create' && t.set.info.kind === 'set' ? withInitialHashsize(capacity, t.set.memberCount) : capacity;
}

/** Collects a plan's pieces; knows each kind of line's handlers. */
class Builder {
  readonly pieces: PlanPiece[] = [];
  readonly notes: PlanNote[] = [];

  create(set: PlanSetView, section: string, capacity: SetCapacity): void {
    const spec = set.info.createSpec;
    this.pieces.push(
      capacity.maxelem === undefined && capacity.hashsize === undefined
        ? { op: 'create', set: set.kernelName, spec, section, onError: APPLY_HANDLERS.create }
        : { op: 'create', set: set.kernelName, spec, ...capacity, section, onError: APPLY_HANDLERS.create },
    );
  }

  add(set: PlanSetView, member: string, section: string): void {
    this.pieces.push({ op: 'add', set: set.kernelName, member, section, onError: addHandlers(set) });
  }

  /** One add line per member of `set`, in set order. */
  addAll(set: PlanSetView, section: string): void {
    const members = new Array<string>(set.memberCount);
    let n = 0;
    set.forEachMember((member) => {
      members[n++] = member;
    });
    // memberCount is the number forEachMember yields; never leave holes if it were not.
    if (n !== members.length) members.length = n;
    this.run('add', set, members, section);
  }

  del(set: PlanSetView, member: string, section: string): void {
    this.pieces.push({ op: 'del', set: set.kernelName, member, section, onError: delHandlers(set) });
  }

  /** One `op` line per member, in order. */
  run(op: 'add' | 'del', set: PlanSetView, members: string[], section: string): void {
    if (members.length === 0) return;
    const onError = op === 'add' ? addHandlers(set) : delHandlers(set);
    this.pieces.push({ op, set: set.kernelName, section, onError, members });
  }

  /** The number of pieces so far, for {@link rollback}. */
  mark(): number {
    return this.pieces.length;
  }

  /** Drops the pieces added since `mark`. */
  rollback(mark: number): void {
    this.pieces.length = mark;
  }

  resyncFlush(set: PlanSetView, section: string): void {
    this.pieces.push({ op: 'flush', set: set.kernelName, section, onError: APPLY_HANDLERS.resync });
  }

  /** Appends one line made elsewhere (a rebuild's). */
  readonly emit = (line: PlanLine): void => {
    this.pieces.push(line);
  };

  destroyBlock(entries: readonly DirtyEntry[]): void {
    // All flushes before any destroy: a list being destroyed must release the
    // members being destroyed first (docs/reference-behaviour.md §d.1).
    for (const e of entries) {
      if (e.state === 'destroy') {
        this.pieces.push({ op: 'flush', set: e.kernelName, section: deleteSection(e.name), onError: APPLY_HANDLERS.flush });
      }
    }
    for (const e of entries) {
      if (e.state === 'destroy') {
        this.pieces.push({ op: 'destroy', set: e.kernelName, section: deleteSection(e.name), onError: APPLY_HANDLERS.destroy });
      }
    }
  }

  plan(basis: unknown): RestorePlan {
    return planFromPieces(this.pieces, this.notes.length > 0 ? this.notes : undefined, basis);
  }
}

function addHandlers(set: PlanSetView): readonly ErrorHandler[] {
  return set.info.kind === 'list' ? APPLY_HANDLERS.addToList : APPLY_HANDLERS.addToSet;
}

function delHandlers(set: PlanSetView): readonly ErrorHandler[] {
  return set.info.kind === 'list' ? APPLY_HANDLERS.delFromList : APPLY_HANDLERS.del;
}

/** Options of {@link planApply}. */
export interface PlanApplyOptions {
  /**
   * Kernel names of the sets the kernel holds (`ipset list -n`), when known. A dirty
   * set to update that is not among them was destroyed outside this library: it is
   * planned as a create with all its members (and a note) instead of its delta, which
   * would recreate it with only the newest members.
   */
  kernelSets?: ReadonlySet<string>;
}

/** True when an update entry's set is known to be missing from the kernel. */
function vanished(entry: DirtyEntry, kernelSets: ReadonlySet<string> | undefined): boolean {
  return kernelSets !== undefined && entry.state === 'update' && !kernelSets.has(entry.kernelName);
}

interface Target {
  readonly entry: DirtyEntry;
  readonly set: PlanSetView;
  readonly section: string;
}

/** Create/update entries with their live sets, in dirty order. */
function targets(snapshot: DirtySnapshot): Target[] {
  const out: Target[] = [];
  for (const entry of snapshot.entries) {
    if (entry.state === 'destroy') continue;
    const set = snapshot.set(entry.name);
    // A create/update entry always has a cached set; skip defensively rather than
    // emit lines for a set the manager no longer knows.
    if (set !== undefined) out.push({ entry, set, section: addOrUpdateSection(entry.name) });
  }
  return out;
}

/** What planners plan from: a manager's {@link DirtySnapshot}, or the manager (whose snapshot is taken). */
export type PlanSource = IPSetManager | DirtySnapshot;

function snapshotOf(source: PlanSource): DirtySnapshot {
  return 'dirtySnapshot' in source ? source.dirtySnapshot() : source;
}

/**
 * The reference's apply file (`fileCreatorForApply`, docs/reference-behaviour.md §d.1) for the manager's dirty
 * delta: creates (`-N … --exist`) for every set to add or update, then per set its
 * deletes (`-D`) and adds (`-A`; a set to create gets all its members), then flushes
 * (`-F`) and destroys (`-X`) of the sets to destroy. Sections and handlers are the
 * reference's (docs/reference-behaviour.md §e.1, {@link APPLY_HANDLERS}). A set whose kernel contents are unknown
 * (after a failed apply, see `IPSetManager.commit`) is rebuilt through a temporary set
 * and `swap` (rebuild.ts), so rules matching it never see it empty or partial.
 *
 * With `options.kernelSets` (the names `ipset list -n` printed), a set to update that
 * the kernel no longer holds is planned as a create with all its members.
 *
 * `source` is the manager or its {@link DirtySnapshot}; planning changes nothing in the
 * manager. The plan's `basis` lets `manager.commit(basis, report)` clear exactly what
 * reached the kernel.
 */
export function planApply(source: PlanSource, options: PlanApplyOptions = {}): RestorePlan {
  const { kernelSets } = options;
  const snapshot = snapshotOf(source);
  const { entries, basis } = snapshot;
  const sets = targets(snapshot);
  const b = new Builder();
  for (const t of sets) b.create(t.set, t.section, createCapacity(t, snapshot));
  for (const { entry, set, section } of sets) {
    if (entry.state === 'create') {
      if (entry.unknown) {
        // Contents unknown: rebuilt through a temporary set and swap, never flushed
        // in place (rules matching the set would see it empty, then partial).
        const capacity = snapshot.capacity(set.info.type);
        pushRebuildLines(b.emit, { name: set.kernelName, spec: set.info.createSpec, capacity, section, cleanupReportsLive: true }, temporaryName(snapshot.owner, set.kernelName), { forEach: (fn) => set.forEachMember(fn) });
        continue;
      }
      b.addAll(set, section);
      continue;
    }
    if (vanished(entry, kernelSets)) {
      b.notes.push({
        set: set.kernelName,
        kind: 'info',
        message: `set ${set.name} is missing from the kernel (destroyed outside this library); it is recreated with all its members`,
      });
      b.addAll(set, section);
      continue;
    }
    if (entry.toDelete !== undefined) b.run('del', set, [...entry.toDelete], section);
    if (entry.toAdd !== undefined) b.run('add', set, [...entry.toAdd], section);
  }
  b.destroyBlock(entries);
  return b.plan(basis);
}

/**
 * The reference's save-file variant (`fileCreatorForApplyWithSaveFile`, docs/reference-behaviour.md §d.2) without
 * its parser quirks: creates for every set to add or update; then the dirty sets the
 * snapshot holds, in snapshot order, diffed against their kernel members (`-D` for
 * kernel members not desired, in snapshot order, then `-A` for desired members not in
 * the kernel, in set order) — canonical members make unchanged members compare equal;
 * then every other set to add or update with all its members; then flushes and
 * destroys. A dirty set that exists in the kernel with another type gets only its
 * create line (which fails and marks it not converged) and a note. A saved member
 * that is not in the canonical form ipset prints for the set's type is never copied
 * into a `-D` line: the set is flushed and refilled with all its members instead
 * (`unreadable-members-rebuilt` note).
 */
export function planApplyWithSave(source: PlanSource, save: SaveSnapshot): RestorePlan {
  const snapshot = snapshotOf(source);
  const { entries, basis } = snapshot;
  const b = new Builder();
  const sets = targets(snapshot);
  for (const t of sets) b.create(t.set, t.section, createCapacity(t, snapshot));

  const byKernelName = new Map<string, Target>();
  for (const t of sets) byKernelName.set(t.set.kernelName, t);
  const done = new Set<Target>();
  for (const saved of save.sets) {
    const t = byKernelName.get(saved.name);
    if (t === undefined || done.has(t)) continue;
    done.add(t);
    diffAgainstKernel(b, t, saved);
  }
  for (const t of sets) if (!done.has(t)) b.addAll(t.set, t.section);
  b.destroyBlock(entries);
  return b.plan(basis);
}

function diffAgainstKernel(b: Builder, t: Target, saved: SavedSet): void {
  const { set, section } = t;
  if (saved.type !== set.info.kernelType) {
    b.notes.push({
      set: set.kernelName,
      kind: 'info',
      message: `set ${set.name} is ${saved.type} in the kernel but should be ${set.info.kernelType}; its create line will fail and its members are not changed`,
    });
    return;
  }
  const kernel = new Set<string>();
  const start = b.mark();
  for (const m of saved.members) {
    if (kernel.has(m)) continue;
    kernel.add(m);
    if (set.hasMember(m)) continue;
    if (!isCanonicalMember(set.info.kernelType, m)) {
      // A member ipset would not print this way is never echoed into a -D line:
      // flush the set and send all its members, as for unknown contents.
      b.rollback(start);
      b.notes.push({
        set: set.kernelName,
        kind: 'unreadable-members-rebuilt',
        message: `set ${set.name} holds ${quote(m)} in the kernel, which is not in the canonical form ipset prints for ${saved.type}; it is never copied into a plan: the set is flushed and refilled with its members`,
      });
      b.resyncFlush(set, section);
      b.addAll(set, section);
      return;
    }
    b.del(set, m, section);
  }
  set.forEachMember((m) => {
    if (!kernel.has(m)) b.add(set, m, section);
  });
}
