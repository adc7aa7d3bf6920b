/**
 * Hitless rebuilds: a set that must be rebuilt rather than patched is
 * built as a temporary set, filled, swapped with the live one, and the temporary
 * destroyed. Flush-then-add leaves a window in which iptables rules and lists that
 * reference the set see it empty, then partial; `ipset swap` exchanges the contents of
 * two sets atomically while names and references stay where they are (measured on
 * ipset 7.17: a swap succeeds while an iptables rule and a list reference the live set,
 * and the rule matches the new contents at once).
 *
 * The lines, as data (1-4 reported for the live set, `PlanLine.subject`; 5 for the
 * temporary itself, or for the live set with `cleanupReportsLive`):
 *
 * 1. `-X T` — a temporary left by a crash would make the create below keep its old
 *    members; missing is fine.
 * 2. `-N T --exist <spec> [maxelem …] [hashsize …]`
 * 3. `-A T <member>` for every desired member
 * 4. `-W T S` — the swap: from here on S has the new contents
 * 5. `-X T` — now holding the old contents; its own section, so it runs even when
 *    the rebuild was abandoned.
 *
 * Any failure in 1-4 abandons the rest of 1-4 (one section): the live set is never
 * swapped with a partial temporary, it keeps its old contents and is reported not
 * converged. What swap cannot do — a different type or family (`The sets cannot be
 * swapped: their type does not match`) — is never planned as a rebuild.
 *
 * Temporary names are owned (owner + `[0-9a-z]` characters, as long as the live
 * name) and depend on the live name and a writer id, so two writers given different
 * ids never share one and a crashed writer's temporary is found again: by its own next
 * rebuild of the set (step 1) and by any reconcile, to which it is an undesired owned set.
 */
import type { SetCapacity } from '../model/capacity.js';
import { sha256Base36 } from '../model/naming.js';
import { REBUILD_HANDLERS, rebuildCleanupSection } from './handlers.js';
import type { CreateSpec, PlanLine } from '../types.js';

/**
 * True for a rebuild's cleanup line reported for the live set (`cleanupReportsLive`):
 * when it is not applied, the temporary is left too, so both sets are reported.
 */
export function leavesTemporary(line: PlanLine): boolean {
  return line.op === 'destroy' && line.subject !== undefined && line.section === rebuildCleanupSection(line.subject);
}

/**
 * The set a plan line is for, in reports that group lines by set: its `subject` (a
 * rebuild's lines 1-4, reported for the live set), the live set of a rebuild's cleanup
 * line, else the set it names.
 */
export function lineSubject(line: PlanLine): string {
  if (line.subject !== undefined) return line.subject;
  const cleanup = rebuildCleanupSection('');
  return line.op === 'destroy' && line.section.startsWith(cleanup) ? line.section.slice(cleanup.length) : line.set;
}

/**
 * The temporary set name of a rebuild of `live`: `owner` followed by base-36 digits of
 * a digest of the writer id, the live name and the candidate number, as long as the
 * live name (at least one digit), so it fits wherever the live name fits and is owned
 * by `owner`. Planners try candidates 0, 1, … and skip names the kernel holds
 * (set-fate.ts `chooseTemporary`), so a stuck temporary never blocks its set.
 */
export function temporaryName(owner: string, live: string, writer = '', candidate = 0): string {
  const length = Math.max(1, live.length - owner.length);
  const which = candidate === 0 ? live : `${live}#${candidate}`;
  let digits = '';
  for (let round = 0; digits.length < length; round++) digits += sha256Base36(`ipsets-rebuild:${round}:${writer}:${which}`);
  return owner + digits.slice(0, length);
}

/** What a rebuild needs to know about its set. */
export interface RebuildTarget {
  /** Kernel name of the live set. */
  readonly name: string;
  readonly spec: CreateSpec;
  /** Capacity of the rebuilt set (only the fields to write). */
  readonly capacity: SetCapacity;
  /** Section of lines 1-4 (the set's own update section, so a failed create of the set skips them too). */
  readonly section: string;
  /**
   * Report a failed cleanup (step 5) for the live set instead of the temporary (default
   * false). For planners that never read the kernel (apply): the live set then stays
   * dirty, and its next rebuild removes the temporary in step 1; a reconcile sees the
   * temporary itself.
   */
  readonly cleanupReportsLive?: boolean;
}

/**
 * Emits the lines of a rebuild of `target` through `temporary` (see the module
 * documentation), with `members` added in order.
 */
export function pushRebuildLines(
  emit: (line: PlanLine) => void,
  target: RebuildTarget,
  temporary: string,
  members: { forEach(fn: (member: string) => void): void },
): void {
  const { name, spec, capacity, section } = target;
  const subject = name;
  emit({ op: 'destroy', set: temporary, subject, section, onError: REBUILD_HANDLERS.clear });
  emit(
    capacity.maxelem === undefined && capacity.hashsize === undefined
      ? { op: 'create', set: temporary, subject, spec, section, onError: REBUILD_HANDLERS.build }
      : { op: 'create', set: temporary, subject, spec, ...capacity, section, onError: REBUILD_HANDLERS.build },
  );
  members.forEach((member) => {
    emit({ op: 'add', set: temporary, member, subject, section, onError: REBUILD_HANDLERS.build });
  });
  emit({ op: 'swap', set: temporary, to: name, subject, section, onError: REBUILD_HANDLERS.build });
  // Once swapped the live set is done; a temporary that stays is reported itself, unless
  // the planner cannot see it later (see cleanupReportsLive).
  emit(
    target.cleanupReportsLive === true
      ? { op: 'destroy', set: temporary, subject, section: rebuildCleanupSection(name), onError: REBUILD_HANDLERS.cleanup }
      : { op: 'destroy', set: temporary, section: rebuildCleanupSection(name), onError: REBUILD_HANDLERS.cleanup },
  );
}

/** Growth of hash sets past their `maxelem` (see {@link growMaxelem}). */
export interface GrowthPolicy {
  /** Grow at all (default `true`). Without growth, a set whose members do not fit gets `hash-full` for that set only. */
  readonly enabled?: boolean;
  /** The largest maxelem growth may pick (default {@link DEFAULT_GROWTH_CEILING}). A larger configured maxelem is kept as it is. */
  readonly ceiling?: number;
}

/** Default growth ceiling: 1,048,576 entries (Calico's default `MaxIpsetSize`). */
export const DEFAULT_GROWTH_CEILING = 1048576;

/**
 * The maxelem a set of `count` members gets: `maxelem` when they fit; else, with growth
 * enabled, `maxelem` doubled until they fit, at most the ceiling; `undefined` when they
 * cannot fit (growth disabled, or the ceiling is too small).
 */
export function growMaxelem(maxelem: number, count: number, policy: GrowthPolicy = {}): number | undefined {
  if (count <= maxelem) return maxelem;
  if (policy.enabled === false) return undefined;
  const ceiling = policy.ceiling ?? DEFAULT_GROWTH_CEILING;
  let grown = Math.max(1, maxelem);
  while (grown < count && grown < ceiling) grown = Math.min(grown * 2, ceiling);
  return grown >= count ? grown : undefined;
}
