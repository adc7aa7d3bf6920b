/**
 * A plan as text: the restore text itself (written in pieces, so that no plan is too
 * large to print), its counts, its notes, and the first lines of a restore text.
 */
import { renderRestore } from '@ipsets/core';
import type { PlanNote, RestorePlan } from '@ipsets/core';
import { cutText, formatCount } from '../format.js';
import { planCounts } from './plan-json.js';

/**
 * Lines rendered per piece by {@link restoreTextChunks}. Large, because each piece
 * scans the plan's create lines once (to check members against their set's type).
 */
export const RESTORE_CHUNK_LINES = 131_072;

/**
 * The text of `renderRestore(plan)` in pieces of `chunkLines` lines: the same bytes
 * and the same checks, never the whole text as one string.
 */
export function* restoreTextChunks(plan: RestorePlan, chunkLines = RESTORE_CHUNK_LINES): Generator<string, void, undefined> {
  const total = plan.lines.length;
  if (total <= chunkLines) {
    yield renderRestore(plan);
    return;
  }
  for (let start = 0; start < total; start += chunkLines) {
    const end = Math.min(total, start + chunkLines);
    const indices = new Array<number>(end - start);
    for (let i = start; i < end; i++) indices[i - start] = i;
    yield renderRestore(plan, indices);
  }
}

/** `create 12, add 3400, del 2, flush 1, destroy 1` (zero counts left out). */
export function formatPlanCounts(plan: RestorePlan): string {
  const parts = Object.entries(planCounts(plan.lines))
    .filter(([, n]) => n > 0)
    .map(([op, n]) => `${op} ${formatCount(n)}`);
  return parts.length === 0 ? 'nothing to do' : parts.join(', ');
}

/** Planner notes as stderr lines: the first `limit` in full (each cut), then counts by kind. */
export function formatNotes(notes: readonly PlanNote[], limit = 20): string[] {
  const out = notes.slice(0, limit).map((n) => `ipsets: note: ${n.set === '' ? '' : `${n.set}: `}${n.kind}: ${cutText(n.message, 500)}`);
  if (notes.length > limit) {
    const byKind = new Map<string, number>();
    for (const n of notes.slice(limit)) byKind.set(n.kind, (byKind.get(n.kind) ?? 0) + 1);
    out.push(`ipsets: … and ${formatCount(notes.length - limit)} more notes (${[...byKind].map(([k, c]) => `${k} ${formatCount(c)}`).join(', ')})`);
  }
  return out;
}

/** The first `n` lines of a text, with `… (N more lines)` when cut. */
export function headLines(text: string, n: number): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const shown = lines.slice(0, n);
  if (lines.length > n) shown.push(`… (${formatCount(lines.length - n)} more lines)`);
  return shown.join('\n');
}

/**
 * The first `n` lines of a restore text, with a leading run of create lines folded
 * into one (`-N … ×13`): deltas re-create every dirty set with `--exist`, and the
 * member lines after them are what a reader wants to see.
 */
export function headRestore(text: string, n: number): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let creates = 0;
  while (creates < lines.length && lines[creates]!.startsWith('-N ')) creates++;
  if (creates <= 2) return headLines(text, n);
  const shown = [lines[0]!, `… and ${formatCount(creates - 1)} more -N … --exist lines`, ...lines.slice(creates, creates + Math.max(0, n - 2))];
  const rest = lines.length - creates - Math.max(0, Math.min(n - 2, lines.length - creates));
  if (rest > 0) shown.push(`… (${formatCount(rest)} more lines)`);
  return shown.join('\n');
}
