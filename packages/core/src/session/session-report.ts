/**
 * The report of a restore session, built from what the session knows when it is asked:
 * the lines applied and skipped, the attempts, the fatal end (if any), and the plan's
 * notes. Sets that did not converge and sets left in use are named here.
 */
import { leavesTemporary } from '../plan/rebuild.js';
import type { ApplyReport, AttemptRecord, RestorePlan, SkippedLine } from '../types.js';

/** Why a session ended early (`ApplyReport.fatal`). */
export type Fatal = NonNullable<ApplyReport['fatal']>;

/** The report of a session over `plan` (`total` lines) that applied the lines marked in `applied`. */
export function buildReport(
  plan: RestorePlan,
  total: number,
  applied: Uint8Array,
  skipped: readonly SkippedLine[],
  attempts: readonly AttemptRecord[],
  fatal: Fatal | undefined,
): ApplyReport {
  const notes = plan.notes ?? [];
  const failed = new Set<string>();
  const inUse = new Set<string>();
  const skippedAt = new Set<number>();
  // Line objects are read only for lines that were skipped or not applied: a plan whose
  // every line was applied, still held as runs, makes none.
  for (const s of skipped) {
    skippedAt.add(s.index);
    if (s.outcome === 'not-converged') failed.add(s.set);
    if (s.outcome === 'not-converged' && leavesTemporary(plan.lines[s.index]!)) failed.add(plan.lines[s.index]!.set);
    else if (s.outcome === 'in-use') inUse.add(s.set);
  }
  let linesApplied = 0;
  for (let i = 0; i < total; i++) {
    if (applied[i]) linesApplied++;
    // A line neither applied nor skipped was cut off by a fatal end (or never run).
    else if (!skippedAt.has(i)) {
      const line = plan.lines[i]!;
      failed.add(line.subject ?? line.set);
      if (leavesTemporary(line)) failed.add(line.set);
    }
  }
  for (const note of notes) {
    if (note.kind === 'type-conflict-referenced') failed.add(note.set);
    else if (note.kind === 'referenced-not-destroyed') inUse.add(note.set);
  }
  const report: ApplyReport = {
    converged: fatal === undefined && failed.size === 0,
    plan,
    attempts: [...attempts],
    linesTotal: total,
    linesApplied,
    skipped: [...skipped].sort((a, b) => a.index - b.index),
    failedSets: sortedByFirstLine(plan, failed),
    inUseSets: sortedByFirstLine(plan, inUse),
    notes: [...notes],
  };
  if (fatal !== undefined) report.fatal = fatal;
  return report;
}

/** `sets` in a deterministic order: by the first plan line of the set, then by notes order. */
function sortedByFirstLine(plan: RestorePlan, sets: ReadonlySet<string>): string[] {
  if (sets.size === 0) return [];
  const notes = plan.notes ?? [];
  const order = new Map<string, number>();
  plan.lines.forEach((l, i) => {
    const set = l.subject ?? l.set;
    if (!order.has(set)) order.set(set, i);
  });
  notes.forEach((n, i) => {
    if (!order.has(n.set)) order.set(n.set, plan.lines.length + i);
  });
  return [...sets].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}
