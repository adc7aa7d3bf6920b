/**
 * What the command prints: set diffs, plans (text and JSON), apply and reset
 * reports, durations and sizes. Pure functions from data to text, so tests can
 * pin the output without running a kernel.
 */
import { renderLine } from '@ipsets/core';
import type { ApplyReport, DesiredState, PlanLine, PlanNote, ResetReport, RestorePlan, SaveSnapshot } from '@ipsets/core';
import { createStyle } from './style.js';
import type { Style } from './style.js';

const plain = createStyle(false);

/** What one set's plan lines do, for `ipsets diff`. */
export interface SetDiff {
  /** Kernel name. */
  readonly set: string;
  /** Human name (prefixed) when the set is desired. */
  readonly label?: string;
  /** `create`: new set; `update`: members change; `recreate`: destroyed and created again (type change); `destroy`: goes away. */
  readonly change: 'create' | 'update' | 'recreate' | 'destroy';
  /** Members to add, in plan order. */
  readonly add: readonly string[];
  /** Members to remove, in plan order (for a destroyed set, every member the kernel holds). */
  readonly remove: readonly string[];
}

/**
 * Groups a plan's lines by set into per-set diffs. Members of sets that are
 * flushed come from `snapshot` (a flush has no member lines). Sets appear in the
 * order of their first line.
 */
export function diffFromPlan(plan: RestorePlan, snapshot: SaveSnapshot, desired?: DesiredState): SetDiff[] {
  const labels = new Map<string, string>();
  for (const set of desired?.sets ?? []) if (set.label !== undefined) labels.set(set.name, set.label);
  const kernelMembers = new Map<string, readonly string[]>();
  for (const set of snapshot.sets) kernelMembers.set(set.name, set.members);

  interface Acc {
    create: boolean;
    destroy: boolean;
    flush: boolean;
    add: string[];
    remove: string[];
  }
  const bySet = new Map<string, Acc>();
  for (const line of plan.lines) {
    let acc = bySet.get(line.set);
    if (acc === undefined) {
      acc = { create: false, destroy: false, flush: false, add: [], remove: [] };
      bySet.set(line.set, acc);
    }
    switch (line.op) {
      case 'create':
        acc.create = true;
        break;
      case 'destroy':
        acc.destroy = true;
        break;
      case 'flush':
        acc.flush = true;
        break;
      case 'add':
        if (line.member !== undefined) acc.add.push(line.member);
        break;
      case 'del':
        if (line.member !== undefined) acc.remove.push(line.member);
        break;
    }
  }
  const diffs: SetDiff[] = [];
  for (const [set, acc] of bySet) {
    const inKernel = kernelMembers.get(set);
    let change: SetDiff['change'];
    if (acc.destroy && acc.create) change = 'recreate';
    else if (acc.destroy || (acc.flush && !acc.create)) change = 'destroy';
    else if (acc.create && inKernel === undefined) change = 'create';
    else change = 'update';
    // `-N --exist` of a set that already holds the right members changes nothing.
    if (change === 'update' && acc.add.length === 0 && acc.remove.length === 0 && !acc.flush) continue;
    const remove = change === 'destroy' || change === 'recreate' || acc.flush ? [...(inKernel ?? []), ...acc.remove] : acc.remove;
    const label = labels.get(set);
    diffs.push({ set, ...(label === undefined ? {} : { label }), change, add: acc.add, remove: dedupe(remove) });
  }
  return diffs;
}

function dedupe(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** An owned set that should not exist but stays (the kernel references it), or that cannot be fixed. */
export interface RemainingSet {
  /** Kernel name. */
  readonly set: string;
  /** Human name (prefixed) when the set is desired. */
  readonly label?: string;
  /** `in-use`: undesired but referenced, left as it is; `type-conflict`: desired with another type, referenced, not recreated. */
  readonly kind: 'in-use' | 'type-conflict';
}

/**
 * The sets a plan leaves different from the desired state on purpose, from its notes:
 * undesired owned sets still referenced (in use) and referenced type conflicts.
 */
export function remainingFromPlan(plan: RestorePlan, desired?: DesiredState): RemainingSet[] {
  const labels = desired === undefined ? new Map<string, string>() : labelsOf(desired);
  const out: RemainingSet[] = [];
  const seen = new Set<string>();
  for (const note of plan.notes ?? []) {
    const kind = note.kind === 'referenced-not-destroyed' ? 'in-use' : note.kind === 'type-conflict-referenced' ? 'type-conflict' : undefined;
    if (kind === undefined || seen.has(note.set)) continue;
    seen.add(note.set);
    const label = labels.get(note.set);
    out.push({ set: note.set, ...(label === undefined ? {} : { label }), kind });
  }
  return out;
}

/** Options of {@link formatDiff}. */
export interface FormatDiffOptions {
  /** Sets that stay different (see {@link remainingFromPlan}): listed, and they count as differences. */
  remaining?: readonly RemainingSet[];
  style?: Style;
  /** Members shown per set and direction before `… and N more` (default: all). */
  limit?: number;
  /** Desired sets in total, to report how many are unchanged. */
  desiredSets?: number;
}

/** `ipsets diff` output: one block per changed set, then a summary line. */
export function formatDiff(diffs: readonly SetDiff[], options: FormatDiffOptions = {}): string {
  const s = options.style ?? plain;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const out: string[] = [];
  let adds = 0;
  let removes = 0;
  for (const d of diffs) {
    adds += d.add.length;
    removes += d.remove.length;
    const name = d.label === undefined ? d.set : `${d.label} ${s.dim(`(${d.set})`)}`;
    const counts = `${s.green(`+${d.add.length}`)} ${s.red(`-${d.remove.length}`)}`;
    const head =
      d.change === 'create'
        ? `${s.green('+')} ${s.bold(name)}  new set, ${counts}`
        : d.change === 'destroy'
          ? `${s.red('-')} ${s.bold(name)}  destroy, ${counts}`
          : d.change === 'recreate'
            ? `${s.yellow('!')} ${s.bold(name)}  recreate (type changes), ${counts}`
            : `${s.yellow('~')} ${s.bold(name)}  ${counts}`;
    out.push(head);
    const list = (items: readonly string[], sign: string, color: (t: string) => string) => {
      const shown = items.length > limit ? items.slice(0, limit) : items;
      for (const m of shown) out.push(color(`    ${sign} ${m}`));
      if (items.length > shown.length) out.push(s.dim(`    … and ${items.length - shown.length} more`));
    };
    list(d.remove, '-', s.red);
    list(d.add, '+', s.green);
  }
  const remaining = options.remaining ?? [];
  for (const r of remaining) {
    const name = r.label === undefined ? r.set : `${r.label} ${s.dim(`(${r.set})`)}`;
    out.push(
      r.kind === 'in-use'
        ? `${s.yellow('=')} ${s.bold(name)}  should not exist, but stays: the kernel still references it (in use)`
        : `${s.yellow('=')} ${s.bold(name)}  has another type in the kernel and stays: the kernel still references it`,
    );
  }
  const conflicts = new Set(remaining.filter((r) => r.kind === 'type-conflict').map((r) => r.set));
  const touched = diffs.filter((d) => d.change !== 'destroy' && !conflicts.has(d.set)).length + conflicts.size;
  const unchanged =
    options.desiredSets === undefined ? '' : `, ${Math.max(0, options.desiredSets - touched)} desired set(s) unchanged`;
  const stays =
    remaining.length === 0
      ? ''
      : `${formatCount(remaining.length)} owned set(s) cannot be made to match while the kernel references them`;
  out.push(
    diffs.length === 0 && remaining.length === 0
      ? `no differences: the kernel matches the desired state${unchanged}`
      : diffs.length === 0
        ? `no member differences, but ${stays}${unchanged}`
        : `${diffs.length} set(s) differ: ${s.green(`+${adds}`)} ${s.red(`-${removes}`)} members${remaining.length === 0 ? '' : `; ${stays}`}${unchanged}`,
  );
  return out.join('\n') + '\n';
}

/** A plan line as JSON: the line itself, its rendered text, section and handlers. */
export interface PlanLineJson extends Omit<PlanLine, 'onError'> {
  /** 1-based line number in the restore text. */
  readonly line: number;
  readonly text: string;
  readonly onError: PlanLine['onError'];
}

/** `ipsets plan --json` output: lines with sections and error handlers, notes, the text, counts. */
export function planToJson(plan: RestorePlan): {
  lines: PlanLineJson[];
  sections: { section: string; lines: number[] }[];
  notes: NonNullable<RestorePlan['notes']>;
  counts: Record<PlanLine['op'], number>;
} {
  const sections = new Map<string, number[]>();
  const counts: Record<PlanLine['op'], number> = { create: 0, add: 0, del: 0, flush: 0, destroy: 0, swap: 0 };
  const lines = plan.lines.map((l, i) => {
    counts[l.op]++;
    let list = sections.get(l.section);
    if (list === undefined) sections.set(l.section, (list = []));
    list.push(i + 1);
    return {
      line: i + 1,
      op: l.op,
      set: l.set,
      ...(l.member === undefined ? {} : { member: l.member }),
      ...(l.spec === undefined ? {} : { spec: l.spec }),
      section: l.section,
      text: renderLine(l),
      onError: l.onError,
    };
  });
  return {
    lines,
    sections: [...sections].map(([section, ls]) => ({ section, lines: ls })),
    notes: plan.notes ?? [],
    counts,
  };
}

/** `create 12, add 3400, del 2, flush 1, destroy 1` (zero counts left out). */
export function formatPlanCounts(plan: RestorePlan): string {
  const counts = planToJson({ lines: [] }).counts;
  for (const l of plan.lines) counts[l.op]++;
  const parts = Object.entries(counts)
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

/** Longest part of a value that a message quotes (the full length is stated after it). */
export const QUOTE_LIMIT = 64;

/**
 * Quotes a value for a message, cut to `limit` characters with its full length stated:
 * `"aaaa"… (52,428,800 characters)`. A hostile file's 50 MB set name must not come
 * back whole on stderr.
 */
export function quoteCut(value: unknown, limit = QUOTE_LIMIT): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= limit) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, limit))}… (${formatCount(text.length)} characters)`;
}

/** Cuts a message (text from elsewhere: a parser, the kernel) to `limit` characters, saying so. */
export function cutText(text: string, limit = 1000): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (cut, ${formatCount(text.length)} characters in all)`;
}

/** `1.2 ms`, `340 ms`, `2.41 s`. */
export function formatDuration(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** `1,234,567` (stable across locales). */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `812 B`, `45.3 KiB`, `1.20 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
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

/** Options of {@link formatApplyReport}. */
export interface FormatReportOptions {
  style?: Style;
  /** Kernel name → human name, for sets the report names. */
  labels?: ReadonlyMap<string, string>;
  /** Wall time of the apply. */
  durationMs?: number;
  /** Skipped lines shown before `… and N more` (default 20). */
  limit?: number;
}

/** Labels (kernel name → prefixed name) of a desired state. */
export function labelsOf(desired: DesiredState): Map<string, string> {
  const labels = new Map<string, string>();
  for (const set of desired.sets) if (set.label !== undefined) labels.set(set.name, set.label);
  return labels;
}

/**
 * The apply report as people read it: one line per attempt (what was sent, what
 * failed, what the session did), each skipped line with its reason, the sets in
 * use and the sets that did not converge, and a verdict.
 */
export function formatApplyReport(report: ApplyReport, options: FormatReportOptions = {}): string {
  const s = options.style ?? plain;
  const labels = options.labels ?? new Map<string, string>();
  const name = (set: string) => {
    const label = labels.get(set);
    return label === undefined ? set : `${label} (${set})`;
  };
  const limit = options.limit ?? 20;
  const out: string[] = [];
  const took = options.durationMs === undefined ? '' : ` in ${formatDuration(options.durationMs)}`;
  out.push(
    `applied ${formatCount(report.linesApplied)} of ${formatCount(report.linesTotal)} lines in ${report.attempts.length} attempt(s)${took}`,
  );
  for (const a of report.attempts) {
    const error =
      a.error === undefined
        ? ''
        : `: ${a.error.kind} (${a.error.side})${a.error.line === undefined ? '' : ` at line ${a.error.line}`} ${JSON.stringify(a.error.message)}`;
    out.push(
      `  attempt ${a.attempt}: ${formatCount(a.lineIndices.length)} lines, exit ${a.exitCode}${a.signal === undefined ? '' : ` (${a.signal})`}${error} → ${a.action}`,
    );
  }
  if (report.skipped.length > 0) {
    out.push(`skipped lines (${report.skipped.length}):`);
    for (const k of report.skipped.slice(0, limit)) {
      const why = k.reason === 'failed' ? `${k.kind}: ${k.message}` : `section aborted (${k.kind})`;
      out.push(`  line ${k.index + 1}: ${k.text}  ${s.dim('—')} ${why} ${s.dim(`[${k.outcome}]`)}`);
    }
    if (report.skipped.length > limit) out.push(`  … and ${report.skipped.length - limit} more`);
  }
  for (const note of report.notes) out.push(`${s.yellow('note')}: ${name(note.set)}: ${note.kind}: ${note.message}`);
  if (report.inUseSets.length > 0) {
    out.push(`${s.yellow('in use')} (referenced by a kernel component, so not destroyed):`);
    for (const set of report.inUseSets) out.push(`  ${name(set)}`);
  }
  if (report.failedSets.length > 0) {
    out.push(`${s.red('not converged')}:`);
    for (const set of report.failedSets) out.push(`  ${name(set)}`);
  }
  if (report.fatal !== undefined) out.push(`${s.red('stopped')}: ${report.fatal.code}: ${report.fatal.message}`);
  out.push(
    !report.converged
      ? s.red('NOT converged')
      : report.inUseSets.length > 0
        ? s.yellow(`converged, except ${report.inUseSets.length} set(s) in use: they should not exist, but the kernel still references them (exit 3)`)
        : s.green('converged'),
  );
  return out.join('\n') + '\n';
}

/** What an apply report means for the exit status (0, 1 or 3), and its name in `--json`. */
export function applyOutcome(report: ApplyReport): {
  outcome: 'converged' | 'converged-except-in-use' | 'not-converged';
  exitCode: 0 | 1 | 3;
} {
  if (!report.converged) return { outcome: 'not-converged', exitCode: 1 };
  // Sets that should be gone but are still referenced: the kernel is not what the file says.
  return report.inUseSets.length > 0 ? { outcome: 'converged-except-in-use', exitCode: 3 } : { outcome: 'converged', exitCode: 0 };
}

/** An apply report as JSON for programs: everything but the plan (which can be huge), plus the wall time. */
export function reportToJson(report: ApplyReport, durationMs?: number): Omit<ApplyReport, 'plan'> & { durationMs?: number } {
  const { plan: _plan, ...rest } = report;
  return durationMs === undefined ? rest : { ...rest, durationMs: Math.round(durationMs * 1000) / 1000 };
}

/** Options of {@link formatResetReport}. */
export interface FormatResetOptions {
  style?: Style;
  durationMs?: number;
  owner?: string;
}

/** The reset report: found, destroyed, leaked (still referenced), vanished, failed, problems. */
export function formatResetReport(report: ResetReport, options: FormatResetOptions = {}): string {
  const s = options.style ?? plain;
  const out: string[] = [];
  const took = options.durationMs === undefined ? '' : ` in ${formatDuration(options.durationMs)}`;
  out.push(
    `owned sets (prefix ${JSON.stringify(report.owner)}): ${report.found.length} found, ${report.destroyed.length} destroyed${took}`,
  );
  const section = (title: string, names: readonly string[]) => {
    if (names.length === 0) return;
    out.push(title);
    for (const n of names) out.push(`  ${n}`);
  };
  section(`${s.yellow('leaked')} (flushed, still referenced by a kernel component; not destroyed):`, report.leaked);
  section('vanished (already gone):', report.vanished);
  section(`${s.red('failed')}:`, report.failed);
  for (const p of report.problems) out.push(`${s.yellow('problem')}: ${p}`);
  const sessions = [report.flush, ...(report.destroy === undefined ? [] : [report.destroy])];
  for (const r of sessions) if (r.fatal !== undefined) out.push(`${s.red('stopped')}: ${r.fatal.code}: ${r.fatal.message}`);
  out.push(
    report.converged && report.leaked.length === 0
      ? s.green('reset complete')
      : report.converged
        ? s.yellow(`reset complete except ${report.leaked.length} leaked set(s)`)
        : s.red('reset incomplete'),
  );
  return out.join('\n') + '\n';
}
