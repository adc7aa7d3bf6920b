/**
 * Plans kept as runs of member lines until someone reads their lines.
 *
 * A million-line apply plan is a million line objects, and allocating them (and the
 * collector copying them) was most of planning's time, although the usual reader, the
 * renderer, needs only each set's members in order. A planner may therefore hand out a
 * plan whose `lines` are made on first read: the plan holds pieces — single lines, and
 * {@link MemberRun}s, runs of add or del lines of one set that differ only in their
 * member — and `plan.lines` expands them into exactly the {@link PlanLine}s the planner
 * would have made (same fields, same order, same indices). From then on the plan is an
 * ordinary plan: `lines` is a data property, its array and its objects may be read and
 * changed like any other plan's, and the pieces are forgotten, so a change to the lines
 * is never shadowed by them.
 *
 * Readers inside core that can use the pieces ({@link planPieces}) do so while the
 * lines have not been read; everything else reads `plan.lines` as before.
 */
import type { ErrorHandler, PlanLine, PlanNote, RestorePlan } from './plan-types.js';

/** A run of add (or del) lines of one set that differ only in their member. */
export interface MemberRun {
  readonly op: 'add' | 'del';
  readonly set: string;
  readonly section: string;
  readonly onError: readonly ErrorHandler[];
  /** One line per member, in order. */
  readonly members: readonly string[];
}

/** A piece of a plan: one line, or a run of member lines. */
export type PlanPiece = PlanLine | MemberRun;

/** True when `piece` is a run of member lines. */
export function isMemberRun(piece: PlanPiece): piece is MemberRun {
  return (piece as Partial<MemberRun>).members !== undefined;
}

/** The pieces of plans whose lines have not been read yet. */
const PIECES = new WeakMap<RestorePlan, readonly PlanPiece[]>();

/**
 * Plans of at most this many lines get their line objects at once: deferring costs a
 * few microseconds per plan, which a one-pod change (a handful of lines) would feel.
 */
export const SMALL_PLAN_LINES = 64;

/** The line objects of `pieces`, as the planner would have made them. */
function expand(pieces: readonly PlanPiece[]): PlanLine[] {
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
 * A plan whose lines are `pieces` expanded, made when `lines` is first read (see the
 * module documentation; a plan of at most {@link SMALL_PLAN_LINES} lines is a plain
 * plan at once). Fields are in the order of a plain plan: `lines`, `notes` (when
 * given), `basis`.
 */
export function planFromPieces(pieces: readonly PlanPiece[], notes: PlanNote[] | undefined, basis: unknown): RestorePlan {
  if (countLines(pieces) <= SMALL_PLAN_LINES) {
    const lines = expand(pieces);
    const small: RestorePlan = notes === undefined ? { lines } : { lines, notes };
    if (basis !== undefined) small.basis = basis;
    return small;
  }
  const plan = {} as RestorePlan;
  let lines: PlanLine[] | undefined;
  const settle = (value: PlanLine[]): void => {
    lines = value;
    PIECES.delete(plan);
    // A frozen plan keeps the accessor, which goes on returning the same array.
    if (Object.isExtensible(plan)) Object.defineProperty(plan, 'lines', { value, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(plan, 'lines', {
    get(): PlanLine[] {
      if (lines === undefined) settle(expand(pieces));
      return lines!;
    },
    set(value: PlanLine[]): void {
      if (Object.isFrozen(plan)) throw new TypeError("Cannot assign to read only property 'lines' of a frozen plan");
      settle(value);
    },
    enumerable: true,
    configurable: true,
  });
  if (notes !== undefined) plan.notes = notes;
  // A reconcile plan has no basis (and no `basis` key, as before runs).
  if (basis !== undefined) plan.basis = basis;
  PIECES.set(plan, pieces);
  return plan;
}

/** The pieces of `plan` while its lines have not been read, else `undefined` (read `plan.lines`). */
export function planPieces(plan: RestorePlan): readonly PlanPiece[] | undefined {
  return PIECES.get(plan);
}

/** The number of lines of `plan`, without making its line objects. */
export function planLineCount(plan: RestorePlan): number {
  const pieces = PIECES.get(plan);
  return pieces === undefined ? plan.lines.length : countLines(pieces);
}

function countLines(pieces: readonly PlanPiece[]): number {
  let n = 0;
  for (const piece of pieces) n += isMemberRun(piece) ? piece.members.length : 1;
  return n;
}
