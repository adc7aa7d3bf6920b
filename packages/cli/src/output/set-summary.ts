/**
 * What an apply did to each set, counted: created, updated, rebuilt, unchanged, destroyed,
 * in use (an owned set the kernel still references, left in place), failed. The
 * last line of `ipsets apply` and the `sets` object of its JSON.
 */
import { lineSubject } from '@ipsets/core';
import type { ApplyReport, DesiredState } from '@ipsets/core';

/** Per-set outcome counts of one apply, with the names of the sets that are not ok. */
export interface SetSummary {
  created: number;
  updated: number;
  /** Rebuilt through a temporary set and swap. */
  rebuilt: number;
  unchanged: number;
  destroyed: number;
  inUse: number;
  failed: number;
  /** Kernel names of the sets left in use. */
  inUseSets: string[];
  /** Kernel names of the sets that did not reach their desired state. */
  failedSets: string[];
}

/** Counts what `report` did to each desired set and to each owned set it removed. */
export function summarizeSets(report: ApplyReport, desired: DesiredState): SetSummary {
  const ops = new Map<string, Set<string>>();
  // A plan is runs of one set's adds (a million lines at node scale): it is read as the
  // planner's pieces when it has them (a run of members is one piece, so no line object
  // is made), and the maps are touched only where the set or the op changes.
  let lastSet: string | undefined;
  let lastOp: string | undefined;
  for (const piece of report.plan.pieces?.of(report.plan) ?? report.plan.lines) {
    if (piece.set === lastSet && piece.op === lastOp) continue;
    lastSet = piece.set;
    lastOp = piece.op;
    // A rebuild's lines on its temporary count for the live set (a run of members is never a rebuild's).
    const set = 'members' in piece ? piece.set : lineSubject(piece);
    let seen = ops.get(set);
    if (seen === undefined) ops.set(set, (seen = new Set()));
    seen.add(piece.op);
  }
  const failed = new Set(report.failedSets);
  const inUse = new Set(report.inUseSets);
  const summary: SetSummary = { created: 0, updated: 0, rebuilt: 0, unchanged: 0, destroyed: 0, inUse: 0, failed: 0, inUseSets: [], failedSets: [] };
  const wanted = new Set<string>();
  for (const set of desired.sets) {
    wanted.add(set.name);
    const seen = ops.get(set.name);
    if (failed.has(set.name)) summary.failed++;
    else if (seen === undefined) summary.unchanged++;
    else if (seen.has('swap')) summary.rebuilt++;
    else if (seen.has('create') && !seen.has('destroy')) summary.created++;
    else summary.updated++;
  }
  for (const name of new Set([...ops.keys(), ...inUse, ...failed])) {
    if (wanted.has(name)) continue;
    if (failed.has(name)) summary.failed++;
    else if (!inUse.has(name) && ops.get(name)?.has('destroy') === true) summary.destroyed++;
  }
  summary.failedSets = report.failedSets.slice();
  summary.inUseSets = report.inUseSets.filter((name) => !failed.has(name));
  summary.inUse = summary.inUseSets.length;
  return summary;
}

/** `sets: 3 created, 1 updated[, 1 rebuilt], 7 unchanged, 0 destroyed, 0 in use, 1 failed (azure-npm-123)` plus the in-use names. */
export function formatSetSummary(summary: SetSummary): string {
  const names = (list: readonly string[]) => (list.length === 0 ? '' : ` (${list.slice(0, 20).join(', ')}${list.length > 20 ? `, … ${list.length - 20} more` : ''})`);
  return (
    `sets: ${summary.created} created, ${summary.updated} updated, ${summary.rebuilt > 0 ? `${summary.rebuilt} rebuilt, ` : ''}${summary.unchanged} unchanged, ${summary.destroyed} destroyed, ` +
    `${summary.inUse} in use${names(summary.inUseSets)}, ${summary.failed} failed${names(summary.failedSets)}\n`
  );
}
