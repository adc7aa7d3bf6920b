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
 *
 * The planner is four steps, each in a module of its own: validate the desired state
 * (reconcile-validate.ts, with the host table of host-table.ts and the prefetch of
 * prefetch.ts), read the owned kernel sets and decide their capacity and fate
 * (reconcile-fates.ts), write the lines in the order above (reconcile-lines.ts), and
 * note what the save did not say (this module).
 */
import { quote } from '../errors.js';
import { planFromPieces } from './line-runs.js';
import { capacityTargets, decideFates, readKernel } from './reconcile-fates.js';
import { reconcileLines } from './reconcile-lines.js';
import { wantedOf } from './reconcile-validate.js';
import type { GrowthPolicy } from './rebuild.js';
import type { PreparedDesiredState } from './reconcile-validate.js';
import type { DesiredState, PlanNote, RestorePlan, SaveSnapshot, SetHeader } from '../types.js';

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

/**
 * Plans the restore lines that make the owned part of the kernel (`snapshot`, with
 * references from `headers`) equal to `desired` (see the module documentation).
 * Decisions that are not lines are in `plan.notes`. A {@link PreparedDesiredState}
 * is not checked again.
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
  const wanted = wantedOf(desired);
  const owner = desired.owner;
  const kernel = readKernel(snapshot, headers, owner);

  const notes: PlanNote[] = [];
  const growth = options.growth ?? {};
  const target = capacityTargets(wanted, growth, notes);
  const fate = decideFates(wanted, kernel, target, { growth, recreate }, notes);
  const pieces = reconcileLines({ owner, writer: options.writer ?? '', wanted, kernel, fate, target }, notes);
  notes.push(...saveProblemNotes(snapshot));
  return planFromPieces(pieces, notes.length > 0 ? notes : undefined, undefined);
}

/** Notes of the save lines the parser did not understand. */
function saveProblemNotes(snapshot: SaveSnapshot): PlanNote[] {
  const notes: PlanNote[] = [];
  for (const p of snapshot.problems) {
    const text = p.length === undefined ? quote(p.text) : `${quote(p.text)} (cut; the line is ${p.length} characters long)`;
    notes.push({ set: '', kind: 'info', message: `ipset save line ${p.line} was not understood (${p.reason}): ${text}` });
  }
  const more = (snapshot.problemCount ?? snapshot.problems.length) - snapshot.problems.length;
  if (more > 0) notes.push({ set: '', kind: 'info', message: `${more} more ipset save line(s) were not understood` });
  return notes;
}
