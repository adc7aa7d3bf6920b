/**
 * The fates of reconcile planning: what the planner knows of the owned kernel sets
 * (their save, their references, the owned lists holding them), the capacity each
 * desired hash set is made with (growth), and the fate of every owned kernel set
 * (set-fate.ts `savedFate` for desired sets; destroy or stay for undesired ones), with
 * the notes that explain the decisions that are not lines.
 */
import { quote } from '../errors.js';
import { isCanonicalMember } from '../model/members.js';
import { isOwnedSetName } from '../model/naming.js';
import type { SetCapacity } from '../model/capacity.js';
import { savedFate, targetCapacity } from './set-fate.js';
import type { GrowthPolicy } from './rebuild.js';
import type { Wanted } from './reconcile-validate.js';
import type { PlanNote, SavedSet, SaveSnapshot, SetHeader } from '../types.js';

/** What reconcile planning does with an owned kernel set (a desired set the kernel lacks has none: it is created). */
export type Fate = 'keep' | 'destroy' | 'stay' | 'recreate' | 'conflict-stay' | 'rebuild';

/** The owned part of the kernel, as the snapshot and the headers tell it. */
export interface KernelView {
  /** Owned kernel sets by name, in snapshot order (the first of a name). */
  readonly sets: ReadonlyMap<string, SavedSet>;
  /** References of each set the headers know (the first header of a name). */
  readonly refs: ReadonlyMap<string, number>;
  /** Owned kernel lists holding each set: references this plan may release. */
  readonly holders: ReadonlyMap<string, readonly string[]>;
}

/** The owned kernel sets of `owner` in `snapshot`, with references from `headers`. */
export function readKernel(snapshot: SaveSnapshot, headers: readonly SetHeader[], owner: string): KernelView {
  const sets = new Map<string, SavedSet>();
  for (const s of snapshot.sets) if (isOwnedSetName(s.name, owner) && !sets.has(s.name)) sets.set(s.name, s);
  const refs = new Map<string, number>();
  for (const h of headers) if (!refs.has(h.name)) refs.set(h.name, h.references);
  const holders = new Map<string, string[]>();
  for (const s of sets.values()) {
    if (s.type !== 'list:set') continue;
    for (const m of s.members) {
      const h = holders.get(m);
      if (h === undefined) holders.set(m, [s.name]);
      else if (!h.includes(s.name)) h.push(s.name);
    }
  }
  return { sets, refs, holders };
}

/** The note of a saved set holding `member`, which is not in the canonical form ipset prints: it is rebuilt. */
export function unreadableNote(saved: SavedSet, member: string): PlanNote {
  return {
    set: saved.name,
    kind: 'unreadable-members-rebuilt',
    message: `set ${quote(saved.name)} holds ${quote(member)}, which is not in the canonical form ipset prints for ${saved.type}; it is never copied into a plan: the set is rebuilt through a temporary set and swap`,
  };
}

/**
 * The capacity each desired hash set is created (or rebuilt) with (set-fate.ts
 * `targetCapacity`: the same growth on every path).
 */
export function capacityTargets(wanted: ReadonlyMap<string, Wanted>, growth: GrowthPolicy, notes: PlanNote[]): Map<string, SetCapacity> {
  const out = new Map<string, SetCapacity>();
  for (const [name, w] of wanted) if (!w.list) out.set(name, targetCapacity(name, w.set.spec, w.capacity, w.count, growth, notes));
  return out;
}

/** What {@link decideFates} needs besides the kernel and the desired sets. */
export interface FateOptions {
  readonly growth: GrowthPolicy;
  /** Recreate unreferenced type conflicts (`recreateTypeConflicts`). */
  readonly recreate: boolean;
}

/**
 * The fate of every owned kernel set. Lists first: lists cannot hold lists, so their
 * fate depends on their own references only; a hash set is free when nothing outside
 * the plan references it and every owned list holding it lets go of it within the
 * plan. `target` (from {@link capacityTargets}) takes the capacity each decided hash
 * set is made with; the notes go to `notes`.
 */
export function decideFates(
  wanted: ReadonlyMap<string, Wanted>,
  kernel: KernelView,
  target: Map<string, SetCapacity>,
  options: FateOptions,
  notes: PlanNote[],
): Map<string, Fate> {
  const { refs, holders } = kernel;
  const { growth, recreate } = options;
  const fate = new Map<string, Fate>();

  /** References from outside the owned lists, or `undefined` when the headers do not know the set. */
  const external = (name: string): number | undefined => {
    const r = refs.get(name);
    return r === undefined ? undefined : Math.max(0, r - (holders.get(name)?.length ?? 0));
  };

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
    const decided = savedFate(s, w.set.spec, target.get(s.name) ?? w.capacity, w.count, growth, free, recreate);
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

  for (const s of kernel.sets.values()) if (s.type === 'list:set') decide(s, true);
  for (const s of kernel.sets.values()) {
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
  return fate;
}
