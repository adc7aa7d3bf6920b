/**
 * Plans held as pieces: single lines and runs of member lines.
 *
 * A million-line apply plan is a million line objects, and allocating them (and the
 * collector copying them) was most of planning's time, although the usual reader, the
 * renderer, needs only each set's members in order. A planner therefore hands out a
 * large plan with {@link RestorePlan.pieces}: single lines, and {@link MemberRun}s,
 * runs of add or del lines of one set that differ only in their member. The pieces are
 * the plan; `plan.lines` is their expansion ({@link expandPieces}: exactly the
 * {@link PlanLine}s the planner would have made, same fields, order and indices), made
 * on first read and frozen, so it never disagrees with the pieces.
 *
 * Readers inside core read {@link planPieces} (a plan written by hand has no pieces:
 * its lines are its pieces) and {@link planLineCount}; everything else reads
 * `plan.lines` as before.
 */
import type { MemberRun, PlanLine, PlanNote, PlanPiece, RestorePlan } from './plan-types.js';

export type { MemberRun, PlanPiece } from './plan-types.js';

/** True when `piece` is a run of member lines. */
export function isMemberRun(piece: PlanPiece): piece is MemberRun {
  return (piece as Partial<MemberRun>).members !== undefined;
}

/**
 * Plans of at most this many lines get their line objects at once and no pieces:
 * deferring costs a few microseconds per plan, which a one-pod change (a handful of
 * lines) would feel.
 */
export const SMALL_PLAN_LINES = 64;

/** The line objects of `pieces`, as the planner would have made them. */
export function expandPieces(pieces: readonly PlanPiece[]): PlanLine[] {
  const lines: PlanLine[] = [];
  for (const piece of pieces) {
    if (!isMemberRun(piece)) {
      lines.push(piece);
      continue;
    }
    const { op, set, section, onError } = piece;
    for (const member of piece.members) lines.push({ op, set, member, section, onError });
  }
  return lines;
}

/**
 * The plan of `pieces`: for at most {@link SMALL_PLAN_LINES} lines a plain plan of
 * their lines; else a plan with these `pieces` and a `lines` getter that expands them
 * once (an own enumerable property of the object literal: spreads and JSON see the
 * lines). Fields are in the order `lines`, `pieces`, `notes` (when given), `basis`
 * (when given: a reconcile plan has none).
 */
export function planFromPieces(pieces: readonly PlanPiece[], notes: PlanNote[] | undefined, basis: unknown): RestorePlan {
  if (countLines(pieces) <= SMALL_PLAN_LINES) {
    const lines = expandPieces(pieces);
    const small: { lines: PlanLine[]; notes?: PlanNote[]; basis?: unknown } = notes === undefined ? { lines } : { lines, notes };
    if (basis !== undefined) small.basis = basis;
    return small;
  }
  let lines: PlanLine[] | undefined;
  const plan: { readonly lines: PlanLine[]; readonly pieces: readonly PlanPiece[]; notes?: PlanNote[]; basis?: unknown } = {
    get lines(): PlanLine[] {
      return (lines ??= Object.freeze(expandPieces(pieces)) as PlanLine[]);
    },
    pieces,
  };
  if (notes !== undefined) plan.notes = notes;
  if (basis !== undefined) plan.basis = basis;
  return plan;
}

/** The pieces of `plan`: its {@link RestorePlan.pieces}, or its lines when it has none. */
export function planPieces(plan: RestorePlan): readonly PlanPiece[] {
  return plan.pieces ?? plan.lines;
}

/** The number of lines of `plan`, without making its line objects. */
export function planLineCount(plan: RestorePlan): number {
  return plan.pieces === undefined ? plan.lines.length : countLines(plan.pieces);
}

function countLines(pieces: readonly PlanPiece[]): number {
  let n = 0;
  for (const piece of pieces) n += isMemberRun(piece) ? piece.members.length : 1;
  return n;
}
