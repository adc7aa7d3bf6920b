/**
 * The fate of each owned set, decided once for every planner (`planApply`,
 * `planApplyWithSave`, `planReconcile`, reset) from the desired set and what is known
 * of the kernel set — the dirty cache (delta), a save (apply with a save, reconcile)
 * or `list -n` / `list -t` (reset, vanished sets):
 *
 * - **keep** — nothing to do; **patch** — `-D` / `-A` of the member difference;
 * - **rebuild** — through a temporary set and `swap` (rebuild.ts): contents unknown or
 *   unreadable, another maxelem or a smaller hashsize, growth past maxelem. Never `-F`
 *   and re-add: rules matching the set would see it empty, then partial;
 * - **recreate** — `-X` then `-N`, for a type or family `swap` cannot bridge, when
 *   nothing outside the plan references the set;
 * - **destroy** — `-X` only, never `-F` first: lists are destroyed before the sets
 *   they hold (destroying a list releases its members, {@link destroyOrder}), and a
 *   destroy the kernel refuses leaves the set intact and reported in use;
 * - **in use** / **conflict** — left as they are and reported.
 *
 * No planner writes `-F` any more: flushing a set that a rule or a list still
 * references empties it under the rule, and a flush before a refill is a rebuild done
 * badly.
 *
 * Temporaries are chosen so that none can block its set ({@link chooseTemporary}):
 * candidates are tried in order, skipping names the kernel is known to hold; the ones
 * it holds are orphans of a crashed rebuild, removed by the planner (or reported when
 * something references them).
 */
import { DEFAULT_HASHSIZE, DEFAULT_MAXELEM, effectiveCapacity } from '../model/capacity.js';
import type { SetCapacity } from '../model/capacity.js';
import { quote } from '../errors.js';
import { SPEC_INFO } from '../model/set-types.js';
import { DEFAULT_GROWTH_CEILING, growMaxelem, temporaryName } from './rebuild.js';
import type { GrowthPolicy } from './rebuild.js';
import type { CreateOptions, CreateSpec, PlanNote, SavedSet } from '../types.js';

/** What a planner does with one owned set. */
export type SetFate = 'keep' | 'patch' | 'rebuild' | 'recreate' | 'destroy' | 'in-use' | 'conflict';

const DEFAULT_LIST_SIZE = '8';

/** The kernel set's maxelem, from its parsed save options. */
function savedMaxelem(opts: CreateOptions): number {
  return Number(opts['maxelem'] ?? DEFAULT_MAXELEM);
}

/**
 * Why `-N name --exist <spec>` would fail on `saved` (`opts`: its create options, as the save parser read them)
 * (or create a set the desired members do not fit), or `undefined` when the kernel set
 * is compatible (docs/ipset-semantics.md §2.6: hashsize is not compared, the rest is).
 */
function conflictOf(saved: SavedSet, opts: CreateOptions, spec: CreateSpec, capacity: SetCapacity): string | undefined {
  const type = SPEC_INFO[spec].kernelType;
  if (saved.type !== type) return `kernel type ${quote(saved.type)} differs from ${quote(type)} (spec ${quote(spec)})`;
  for (const extra of ['timeout', 'netmask', 'markmask', 'counters', 'comment', 'skbinfo']) {
    if (opts[extra] !== undefined) return `kernel set has ${quote(extra)}, which spec ${quote(spec)} does not create`;
  }
  if (type === 'list:set') {
    const size = opts['size'] ?? DEFAULT_LIST_SIZE;
    if (size !== DEFAULT_LIST_SIZE) return `kernel list size ${size} differs from ${DEFAULT_LIST_SIZE}`;
    return undefined;
  }
  // `-N name --exist nethash` succeeds on an existing family inet6 set (measured on
  // 7.17: -exist does not compare the family), so a family change must be caught here.
  const family = opts['family'] ?? 'inet';
  const wantedFamily = SPEC_INFO[spec].family ?? 'inet';
  if (family !== wantedFamily) return `kernel family ${quote(family)} differs from ${quote(wantedFamily)}`;
  const maxelem = opts['maxelem'] ?? String(DEFAULT_MAXELEM);
  const wantedMaxelem = String(effectiveCapacity(spec, capacity).maxelem);
  if (maxelem !== wantedMaxelem) return `kernel maxelem ${maxelem} differs from ${wantedMaxelem}`;
  return undefined;
}

/**
 * The capacity a desired hash set of `count` members is created (or rebuilt) with: its
 * own, with maxelem grown when the members do not fit (rebuild.ts `growMaxelem`); a
 * note when it grows or cannot. The same policy and ceiling on every path.
 */
export function targetCapacity(name: string, spec: CreateSpec, capacity: SetCapacity, count: number, growth: GrowthPolicy, notes: PlanNote[]): SetCapacity {
  const maxelem = effectiveCapacity(spec, capacity).maxelem;
  const grown = growMaxelem(maxelem, count, growth);
  if (grown === maxelem) return capacity;
  if (grown === undefined) {
    notes.push({
      set: name,
      kind: 'info',
      message: `set ${quote(name)} should hold ${count} members but its maxelem is ${maxelem} and ${
        growth.enabled === false ? 'growth is disabled' : `growth stops at ${growth.ceiling ?? DEFAULT_GROWTH_CEILING}`
      }; the members past it will fail with hash-full`,
    });
    return capacity;
  }
  notes.push({ set: name, kind: 'info', message: `set ${quote(name)} holds ${count} members, more than maxelem ${maxelem}: grown to maxelem ${grown}` });
  return { ...capacity, maxelem: grown };
}

/**
 * The kernel set's maxelem when growth made it (the desired maxelem doubled, or the
 * ceiling), the desired members still need growth and fit it: such a set is kept, not
 * rebuilt to the exact doubling each time members come and go. `undefined` otherwise.
 */
export function grownBefore(kernelMaxelem: number, spec: CreateSpec, capacity: SetCapacity, count: number, growth: GrowthPolicy): number | undefined {
  if (growth.enabled === false) return undefined;
  const desiredMaxelem = effectiveCapacity(spec, capacity).maxelem;
  const ceiling = growth.ceiling ?? DEFAULT_GROWTH_CEILING;
  // Only while the members still need growth: once they fit the desired maxelem again, it is restored.
  if (count <= desiredMaxelem) return undefined;
  if (kernelMaxelem <= desiredMaxelem || kernelMaxelem > Math.max(ceiling, desiredMaxelem) || kernelMaxelem < count) return undefined;
  let step = desiredMaxelem;
  while (step < kernelMaxelem && step < ceiling) step = Math.min(step * 2, ceiling);
  return step === kernelMaxelem ? kernelMaxelem : undefined;
}

/**
 * Why the kernel set `saved` must be rebuilt (through a temporary set and swap) to hold
 * a set of `spec` with capacity `capacity`, or `undefined` when it can be patched or is
 * a conflict swap cannot fix (another type, family or option: the kernel refuses the
 * swap). Rebuilt: a maxelem other than the target, or a hashsize below the one asked
 * for (a larger one is the kernel's own growth).
 */
function rebuildReason(saved: SavedSet, opts: CreateOptions, spec: CreateSpec, capacity: SetCapacity): string | undefined {
  const kernelMaxelem = savedMaxelem(opts);
  // Everything but maxelem must match, or swap is refused (or would change other options).
  if (conflictOf(saved, opts, spec, { ...capacity, maxelem: kernelMaxelem }) !== undefined) return undefined;
  const wantedMaxelem = effectiveCapacity(spec, capacity).maxelem;
  if (kernelMaxelem !== wantedMaxelem) return `maxelem ${kernelMaxelem} → ${wantedMaxelem}`;
  const hashsize = Number(opts['hashsize'] ?? DEFAULT_HASHSIZE);
  if (capacity.hashsize !== undefined && hashsize < capacity.hashsize) return `hashsize ${hashsize} → ${capacity.hashsize}`;
  return undefined;
}

/** What {@link savedFate} decides for a desired set the kernel holds. */
export interface SavedFate {
  /** `keep` here means: patch what differs (member lines, if any). */
  readonly fate: 'keep' | 'rebuild' | 'recreate' | 'conflict';
  /** The capacity to create or rebuild with (growth applied; a grown kernel maxelem kept). */
  readonly capacity: SetCapacity;
  /** Why (rebuild, recreate, conflict). */
  readonly reason?: string;
}

/**
 * The fate of a desired set of `spec` (`capacity` after growth, for `count` desired
 * members) that the kernel holds as `saved`. `free`: nothing outside the plan
 * references the set (`undefined`: unknown, as with a save alone — the recreate's `-X`
 * is then tried and a refusal leaves the set intact, reported).
 */
export function savedFate(saved: SavedSet, spec: CreateSpec, capacity: SetCapacity, count: number, growth: GrowthPolicy, free: boolean | undefined, recreate = true): SavedFate {
  let target = capacity;
  const opts = saved.createOptions;
  if (!SPEC_INFO[spec].list) {
    const grown = grownBefore(savedMaxelem(opts), spec, capacity, count, growth);
    if (grown !== undefined) target = { ...capacity, maxelem: grown };
    const rebuild = rebuildReason(saved, opts, spec, target);
    if (rebuild !== undefined) return { fate: 'rebuild', capacity: target, reason: rebuild };
  }
  const conflict = conflictOf(saved, opts, spec, target);
  if (conflict === undefined) return { fate: 'keep', capacity: target };
  return { fate: recreate && free !== false ? 'recreate' : 'conflict', capacity: target, reason: conflict };
}

/**
 * The temporary set of a rebuild of `live`: the first candidate (rebuild.ts
 * `temporaryName`, round 0, 1, …) that `exists` does not report in the kernel. With
 * nothing known of the kernel (`exists` absent) it is candidate 0. At most `tries`
 * candidates are tried; the last is returned when all exist.
 */
export function chooseTemporary(owner: string, live: string, writer: string, exists?: (name: string) => boolean, tries = TEMPORARY_CANDIDATES): string {
  let name = temporaryName(owner, live, writer);
  if (exists === undefined) return name;
  for (let k = 1; k < tries && exists(name); k++) name = temporaryName(owner, live, writer, k);
  return name;
}

/** Candidate temporaries per live set (see {@link chooseTemporary}). */
export const TEMPORARY_CANDIDATES = 4;

/** Every candidate temporary of `live` (see {@link chooseTemporary}). */
export function temporaryCandidates(owner: string, live: string, writer: string): string[] {
  const out: string[] = [];
  for (let k = 0; k < TEMPORARY_CANDIDATES; k++) out.push(temporaryName(owner, live, writer, k));
  return out;
}

/**
 * The order sets are destroyed in: lists first, then hash sets (each group in the order
 * given). Destroying a list releases its members, so no member needs a flush, and no
 * set is ever emptied on the way to a destroy that may be refused.
 */
export function destroyOrder<T>(sets: readonly T[], isList: (set: T) => boolean): T[] {
  return [...sets.filter(isList), ...sets.filter((s) => !isList(s))];
}
