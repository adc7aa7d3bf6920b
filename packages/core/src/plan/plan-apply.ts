/**
 * Apply plans (docs/reference-behaviour.md §d.1–§d.2, §e): the manager's dirty delta
 * as restore lines with sections and error handlers as data. Each set's fate comes
 * from set-fate.ts, as in every planner.
 *
 * Order: `-X` of sets to recreate (another type in the save); creates for every set to
 * add or update; then per set its deletes, then its adds (or its rebuild through a
 * temporary set and swap); then destroys of the sets to destroy, lists first — never
 * a flush (set-fate.ts). Within each block sets come in the order they became dirty
 * and members in the order they were added — never hash order — so the same calls
 * give the same plan, byte for byte.
 */
import { quote } from '../errors.js';
import { isCanonicalMember } from '../model/members.js';
import type { IPSetManager } from '../manager/manager.js';
import type { DirtySnapshot, PlanSetView } from '../manager/basis.js';
import type { SetCapacity } from '../model/capacity.js';
import { effectiveCapacity, withInitialHashsize } from '../model/capacity.js';
import { isListName } from '../model/set-types.js';
import { isOwnedSetName } from '../model/naming.js';
import { growMaxelem, pushRebuildLines } from './rebuild.js';
import type { GrowthPolicy } from './rebuild.js';
import { chooseTemporary, destroyOrder, savedFate, targetCapacity, temporaryCandidates } from './set-fate.js';
import { APPLY_HANDLERS, REBUILD_HANDLERS, addOrUpdateSection, deleteSection, rebuildCleanupSection } from './handlers.js';
import type { DirtyEntry } from '../manager/dirty-cache.js';
import { HostRun, planFromPieces } from './line-runs.js';
import type { PlanPiece } from './line-runs.js';
import type { ErrorHandler, PlanLine, PlanNote, RestorePlan, SaveSnapshot, SavedSet } from '../types.js';

// Member lines are kept as runs (line-runs.ts): a million-line plan makes no line
// objects until someone reads its lines, and the renderer reads the runs. Single lines
// are built as literals with only the fields their op uses.

/** Collects a plan's pieces; knows each kind of line's handlers. */
class Builder {
  readonly pieces: PlanPiece[] = [];
  readonly notes: PlanNote[] = [];

  create(set: PlanSetView, section: string, capacity: SetCapacity, onError: readonly ErrorHandler[] = APPLY_HANDLERS.create): void {
    const spec = set.info.createSpec;
    this.pieces.push(
      capacity.maxelem === undefined && capacity.hashsize === undefined
        ? { op: 'create', set: set.kernelName, spec, section, onError }
        : { op: 'create', set: set.kernelName, spec, ...capacity, section, onError },
    );
  }

  add(set: PlanSetView, member: string, section: string): void {
    this.pieces.push({ op: 'add', set: set.kernelName, member, section, onError: addHandlers(set) });
  }

  /** One add line per member of `set`, in set order (a set of plain hosts as their numbers). */
  addAll(set: PlanSetView, section: string): void {
    const hosts = set.plainHosts?.();
    if (hosts !== undefined && hosts.length > 0) {
      this.pieces.push(new HostRun('add', set.kernelName, section, addHandlers(set), hosts));
      return;
    }
    const members: string[] = [];
    set.forEachMember((member) => members.push(member));
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

  /** Appends one line made elsewhere (a rebuild's). */
  readonly emit = (line: PlanLine): void => {
    this.pieces.push(line);
  };

  /**
   * `-X` of every set to destroy, lists first (set-fate.ts `destroyOrder`): a destroyed
   * list releases its members, so nothing is flushed, and a destroy the kernel refuses
   * (a rule references the set) leaves it intact and reported in use.
   */
  destroyBlock(entries: readonly DirtyEntry[], orphans: (kernelName: string) => readonly string[]): void {
    const gone = destroyOrder(entries.filter((e) => e.state === 'destroy'), (e) => isListName(e.name));
    for (const e of gone) {
      this.pieces.push({ op: 'destroy', set: e.kernelName, section: deleteSection(e.name), onError: APPLY_HANDLERS.destroy });
      this.orphans(e.kernelName, orphans(e.kernelName));
    }
  }

  /**
   * `-X` of temporaries of `live` left by earlier rebuilds (crashed, or whose cleanup
   * failed), each shaped as a cleanup line of `live` (rebuild.ts `cleanupReportsLive`):
   * the delta paths find a temporary only through its live set, so a removal that fails
   * reports both and keeps `live` dirty, and the next apply tries again.
   */
  orphans(live: string, names: readonly string[]): void {
    for (const name of names) this.pieces.push({ op: 'destroy', set: name, subject: live, section: rebuildCleanupSection(live), onError: REBUILD_HANDLERS.cleanup });
  }

  /** A rebuild of `set` through a temporary set and swap, with all its members. */
  rebuild(set: PlanSetView, section: string, capacity: SetCapacity, k: Knowledge): void {
    const temporary = chooseTemporary(k.owner, set.kernelName, k.writer, k.exists);
    this.orphans(set.kernelName, k.orphans(set.kernelName, temporary));
    // The delta paths see a temporary again only through its live set: a failed cleanup keeps that set dirty.
    pushRebuildLines(this.emit, { name: set.kernelName, spec: set.info.createSpec, capacity, section, cleanupReportsLive: true }, temporary, { forEach: (fn) => set.forEachMember(fn) });
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

/** Options of {@link planApply} and {@link planApplyWithSave}. */
export interface PlanApplyOptions {
  /**
   * Kernel names of the sets the kernel holds (`ipset list -n`), when known. A dirty
   * set to update that is not among them was destroyed outside this library: it is
   * planned as a create with all its members (and a note) instead of its delta, which
   * would recreate it with only the newest members. A rebuild's temporary is chosen
   * among names the kernel does not hold, and leftover temporaries are removed.
   */
  kernelSets?: ReadonlySet<string>;
  /** Growth of hash sets past their maxelem, as in `planReconcile` (default: on, doubling, up to 1,048,576). */
  growth?: GrowthPolicy;
  /** Writer id that makes temporary set names unique per writer (default `''`), as in `planReconcile`. */
  writer?: string;
}

/** True when an update entry's set is known to be missing from the kernel. */
function vanished(entry: DirtyEntry, kernelSets: ReadonlySet<string> | undefined): boolean {
  return kernelSets !== undefined && entry.state === 'update' && !kernelSets.has(entry.kernelName);
}

/** What a plan knows of the kernel's set names, for temporaries (set-fate.ts). */
interface Knowledge {
  readonly owner: string;
  readonly writer: string;
  /** True when the kernel holds the name; absent when nothing is known. */
  readonly exists: ((name: string) => boolean) | undefined;
  /** Candidate temporaries of `live` the kernel holds, other than `keep`. */
  orphans(live: string, keep?: string): string[];
}

function knowledge(owner: string, writer: string, names: ReadonlySet<string> | undefined): Knowledge {
  const exists = names === undefined ? undefined : (name: string) => names.has(name);
  return {
    owner,
    writer,
    exists,
    orphans: (live, keep) => (names === undefined ? [] : temporaryCandidates(owner, live, writer).filter((t) => t !== keep && names.has(t))),
  };
}

interface Target {
  readonly entry: DirtyEntry;
  readonly set: PlanSetView;
  readonly section: string;
  /** The capacity to create (or rebuild) the set with: growth applied (set-fate.ts `targetCapacity`). */
  capacity: SetCapacity;
}

/** Create/update entries with their live sets and target capacities, in dirty order. */
function targets(snapshot: DirtySnapshot, growth: GrowthPolicy, notes: PlanNote[]): Target[] {
  const out: Target[] = [];
  for (const entry of snapshot.entries) {
    if (entry.state === 'destroy') continue;
    const set = snapshot.set(entry.name);
    // A create/update entry always has a cached set; skip defensively rather than
    // emit lines for a set the manager no longer knows.
    if (set !== undefined) out.push({ entry, set, section: addOrUpdateSection(entry.name), capacity: {} });
  }
  for (const t of out) {
    const configured = snapshot.capacity(t.set.info.type);
    t.capacity = t.set.info.kind === 'set' ? targetCapacity(t.set.kernelName, t.set.info.createSpec, configured, t.set.memberCount, growth, notes) : configured;
  }
  return out;
}

/**
 * The delta path's growth rule: it cannot read the kernel's maxelem, so it keeps each
 * set at the growth step of its member count. A set to update whose step changes with
 * this delta (it outgrew its maxelem, or fits the configured one again) is rebuilt with
 * the new one; the maxelem it holds now is the step of its previous count.
 */
function kernelCapacity(t: Target, snapshot: DirtySnapshot, growth: GrowthPolicy): SetCapacity | undefined {
  const { entry, set } = t;
  if (set.info.kind !== 'set' || entry.state !== 'update') return undefined;
  const configured = snapshot.capacity(set.info.type);
  const maxelem = effectiveCapacity(set.info.createSpec, configured).maxelem;
  const before = set.memberCount - (entry.toAdd?.size ?? 0) + (entry.toDelete?.size ?? 0);
  const held = growMaxelem(maxelem, before, growth) ?? maxelem;
  return held === maxelem ? configured : { ...configured, maxelem: held };
}

/** What planners plan from: a manager's {@link DirtySnapshot}, or the manager (whose snapshot is taken). */
export type PlanSource = IPSetManager | DirtySnapshot;

function snapshotOf(source: PlanSource): DirtySnapshot {
  return 'dirtySnapshot' in source ? source.dirtySnapshot() : source;
}

/**
 * The reference's apply file (`fileCreatorForApply`, docs/reference-behaviour.md §d.1) for the manager's dirty
 * delta: creates (`-N … --exist`) for every set to add or update, then per set its
 * deletes (`-D`) and adds (`-A`; a set to create gets all its members), then destroys
 * (`-X`, lists first, never a flush) of the sets to destroy. Sections and handlers are
 * the reference's (docs/reference-behaviour.md §e.1, {@link APPLY_HANDLERS}), except
 * that destroys are not flushed first: a destroy the kernel refuses leaves the set
 * intact (reported in use) instead of empty under a live rule. A set whose kernel
 * contents are unknown (after a failed apply, see `IPSetManager.commit`), or whose
 * members outgrow its maxelem, is rebuilt through a temporary set and `swap`
 * (rebuild.ts), so rules matching it never see it empty or partial.
 *
 * With `options.kernelSets` (the names `ipset list -n` printed), a set to update that
 * the kernel no longer holds is planned as a create with all its members, temporaries
 * are chosen among free names and leftover ones are removed.
 *
 * `source` is the manager or its {@link DirtySnapshot}; planning changes nothing in the
 * manager. The plan's `basis` lets `manager.commit(basis, report)` clear exactly what
 * reached the kernel.
 */
export function planApply(source: PlanSource, options: PlanApplyOptions = {}): RestorePlan {
  const { kernelSets } = options;
  const growth = options.growth ?? {};
  const snapshot = snapshotOf(source);
  const { entries, basis } = snapshot;
  const b = new Builder();
  const k = knowledge(snapshot.owner, options.writer ?? '', kernelSets);
  const sets = targets(snapshot, growth, b.notes);
  const rebuild = new Set<Target>();
  for (const t of sets) {
    const held = kernelCapacity(t, snapshot, growth);
    const maxelem = (capacity: SetCapacity): number => effectiveCapacity(t.set.info.createSpec, capacity).maxelem;
    const resized = held !== undefined && maxelem(held) !== maxelem(t.capacity) && !vanished(t.entry, kernelSets);
    if (t.entry.state === 'create' ? t.entry.unknown : resized) rebuild.add(t);
    if (rebuild.has(t)) b.create(t.set, t.section, t.capacity, REBUILD_HANDLERS.live);
    else b.create(t.set, t.section, t.entry.state === 'create' ? createCapacity(t) : (held ?? t.capacity));
  }
  for (const t of sets) {
    const { entry, set, section } = t;
    if (rebuild.has(t)) {
      // Contents unknown, or maxelem changes: rebuilt through a temporary set and swap,
      // never flushed in place (rules matching the set would see it empty, then partial).
      b.rebuild(set, section, t.capacity, k);
      continue;
    }
    if (entry.state === 'create') {
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
  b.destroyBlock(entries, (name) => k.orphans(name));
  return b.plan(basis);
}

/** The capacity of a new set's create line: sized for the members it is created with. */
function createCapacity(t: Target): SetCapacity {
  return t.set.info.kind === 'set' ? withInitialHashsize(t.capacity, t.set.memberCount) : t.capacity;
}

/**
 * The reference's save-file variant (`fileCreatorForApplyWithSaveFile`, docs/reference-behaviour.md §d.2) without
 * its parser quirks, with the fates of set-fate.ts: a dirty set the save holds with
 * another type or family is destroyed and recreated (its `-X` first, lists first, after
 * every owned list holding it lets go of it, `-D`, to hold it again once created;
 * refused, the set stays intact and its section is dropped); one with another maxelem (or that outgrew
 * it), or holding a member that is not in the canonical form ipset prints for its type
 * (never copied into a `-D` line, `unreadable-members-rebuilt` note), is rebuilt
 * through a temporary set and swap. Then creates for every set to add or update; then
 * the dirty sets the snapshot holds, in snapshot order, diffed against their kernel
 * members (`-D` for kernel members not desired, in snapshot order, then `-A` for
 * desired members not in the kernel, in set order); then every other set to add or
 * update with all its members; then destroys, lists first.
 */
export function planApplyWithSave(source: PlanSource, save: SaveSnapshot, options: Omit<PlanApplyOptions, 'kernelSets'> = {}): RestorePlan {
  const snapshot = snapshotOf(source);
  const growth = options.growth ?? {};
  const { entries, basis } = snapshot;
  const b = new Builder();
  const names = new Set<string>();
  for (const s of save.sets) names.add(s.name);
  const k = knowledge(snapshot.owner, options.writer ?? '', names);
  const sets = targets(snapshot, growth, b.notes);

  const byKernelName = new Map<string, Target>();
  for (const t of sets) byKernelName.set(t.set.kernelName, t);
  const saved = new Map<Target, SavedSet>();
  for (const s of save.sets) {
    const t = byKernelName.get(s.name);
    if (t !== undefined && !saved.has(t)) saved.set(t, s);
  }
  const fates = new Map<Target, ReturnType<typeof savedFate>>();
  for (const [t, s] of saved) fates.set(t, savedFate(s, t.set.info.createSpec, t.capacity, t.set.memberCount, growth, undefined));
  const recreated = new Set<string>();
  for (const [t, fate] of fates) if (fate.fate === 'recreate') recreated.add(t.set.kernelName);
  // The kernel refuses -X of a set a list holds: every owned list the save shows holding
  // a set to recreate lets go of it first (as in reconcile) and holds it again once it
  // is created — a dirty list through its diff below, any other list here.
  const released = new Map<string, Set<string>>();
  for (const s of save.sets) {
    if (s.type !== 'list:set' || recreated.has(s.name) || !isOwnedSetName(s.name, snapshot.owner)) continue;
    const t = byKernelName.get(s.name);
    const section = t?.section ?? addOrUpdateSection(s.name);
    for (const m of s.members) {
      if (!recreated.has(m)) continue;
      let held = released.get(s.name);
      if (held === undefined) released.set(s.name, (held = new Set()));
      if (held.has(m)) continue;
      held.add(m);
      b.pieces.push({ op: 'del', set: s.name, member: m, section, onError: APPLY_HANDLERS.delFromList });
    }
  }
  // Lists first: a recreated list releases its members before they are destroyed.
  for (const [t, fate] of destroyOrder([...fates], ([t]) => t.set.info.kind === 'list')) {
    if (fate.fate !== 'recreate') continue;
    b.notes.push({ set: t.set.kernelName, kind: 'type-conflict-recreated', message: `set ${t.set.name}: ${fate.reason}; destroyed and recreated` });
    b.pieces.push({ op: 'destroy', set: t.set.kernelName, section: t.section, onError: APPLY_HANDLERS.destroyToRecreate });
  }
  for (const t of sets) {
    const fate = fates.get(t);
    if (fate?.fate === 'rebuild') b.create(t.set, t.section, fate.capacity, REBUILD_HANDLERS.live);
    else b.create(t.set, t.section, fate === undefined || fate.fate === 'recreate' ? createCapacity(t) : fate.capacity);
  }
  for (const [t, s] of saved) {
    const fate = fates.get(t)!;
    if (fate.fate === 'rebuild') b.rebuild(t.set, t.section, fate.capacity, k);
    else if (fate.fate === 'recreate') b.addAll(t.set, t.section);
    else diffAgainstKernel(b, t, s, fate.capacity, k, released.get(t.set.kernelName));
  }
  for (const [list, members] of released) {
    if (byKernelName.has(list)) continue;
    for (const m of members) b.pieces.push({ op: 'add', set: list, member: m, section: addOrUpdateSection(list), onError: APPLY_HANDLERS.addToList });
  }
  for (const t of sets) if (!saved.has(t)) b.addAll(t.set, t.section);
  b.destroyBlock(entries, (name) => k.orphans(name));
  return b.plan(basis);
}

/** `released`: members this plan already deleted from the kernel list (around their recreate), absent from it here. */
function diffAgainstKernel(b: Builder, t: Target, saved: SavedSet, capacity: SetCapacity, k: Knowledge, released?: ReadonlySet<string>): void {
  const { set, section } = t;
  const kernel = new Set<string>();
  const start = b.mark();
  const members = saved.members;
  for (let i = 0, n = members.length; i < n; i++) {
    const m = members.at(i);
    if (kernel.has(m) || released?.has(m) === true) continue;
    kernel.add(m);
    if (set.hasMember(m)) continue;
    if (!isCanonicalMember(set.info.kernelType, m, set.info.family)) {
      // A member ipset would not print this way is never echoed into a -D line: the
      // set is rebuilt through a temporary set and swap, as for unknown contents.
      b.rollback(start);
      b.notes.push({
        set: set.kernelName,
        kind: 'unreadable-members-rebuilt',
        message: `set ${set.name} holds ${quote(m)} in the kernel, which is not in the canonical form ipset prints for ${saved.type}; it is never copied into a plan: the set is rebuilt through a temporary set and swap`,
      });
      b.rebuild(set, section, capacity, k);
      return;
    }
    b.del(set, m, section);
  }
  set.forEachMember((m) => {
    if (!kernel.has(m)) b.add(set, m, section);
  });
}
