/**
 * `ipsets diff`: what a plan changes, set by set (members to add and remove, sets
 * created, recreated or destroyed, sets that stay different on purpose), as data and
 * as text. Pure functions: tests pin the output without a kernel.
 */
import { DEFAULT_MAXELEM, lineSubject } from '@ipsets/core';
import type { DesiredState, PlanLine, RestorePlan, SavedMembers, SaveSnapshot } from '@ipsets/core';
import { formatCount } from '../format.js';
import { createStyle } from '../style.js';
import type { Style } from '../style.js';
import { labelsOf } from './labels.js';

const plain = createStyle(false);

/** What one set's plan lines do, for `ipsets diff`. */
export interface SetDiff {
  /** Kernel name. */
  readonly set: string;
  /** Human name (prefixed) when the set is desired. */
  readonly label?: string;
  /**
   * `create`: new set; `update`: members change; `rebuild`: rebuilt through a temporary
   * set and swap (capacity change, unreadable or unknown contents); `recreate`:
   * destroyed and created again (type change); `destroy`: goes away.
   */
  readonly change: 'create' | 'update' | 'rebuild' | 'recreate' | 'destroy';
  /** `rebuild`: what changes, e.g. `maxelem 1024 → 131072` (absent when only the contents are rebuilt). */
  readonly reason?: string;
  /** Members to add, in plan order. */
  readonly add: readonly string[];
  /** Members to remove, in plan order (for a destroyed set, every member the kernel holds). */
  readonly remove: readonly string[];
}

/**
 * Groups a plan's lines by the set they are for (core's `lineSubject`: a rebuild's
 * lines on its temporary set count for the live set) into per-set diffs. Members of
 * sets that are destroyed or rebuilt come from `snapshot`. Sets appear in the order
 * of their first line.
 */
export function diffFromPlan(plan: RestorePlan, snapshot: SaveSnapshot, desired?: DesiredState): SetDiff[] {
  const labels = desired === undefined ? new Map<string, string>() : labelsOf(desired);
  const kernelMembers = new Map<string, SavedMembers>();
  for (const set of snapshot.sets) kernelMembers.set(set.name, set.members);

  interface Acc {
    create: boolean;
    destroy: boolean;
    flush: boolean;
    /** The create line of the rebuild's temporary set. */
    rebuild: PlanLine | undefined;
    add: string[];
    remove: string[];
  }
  const bySet = new Map<string, Acc>();
  for (const line of plan.lines) {
    const set = lineSubject(line);
    let acc = bySet.get(set);
    if (acc === undefined) {
      acc = { create: false, destroy: false, flush: false, rebuild: undefined, add: [], remove: [] };
      bySet.set(set, acc);
    }
    if (set !== line.set) {
      // A rebuild's line on its temporary: its adds are the set's new contents.
      if (line.op === 'create') acc.rebuild = line;
      else if (line.op === 'add' && line.member !== undefined) acc.add.push(line.member);
      continue;
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
    const label = labels.get(set);
    if (acc.rebuild !== undefined) {
      const kernel = new Set(inKernel ?? []);
      const wanted = new Set(acc.add);
      const reason = rebuildReason(acc.rebuild, snapshot.sets.find((s) => s.name === set)?.options);
      diffs.push({
        set,
        ...(label === undefined ? {} : { label }),
        change: 'rebuild',
        ...(reason === undefined ? {} : { reason }),
        add: acc.add.filter((m) => !kernel.has(m)),
        remove: [...(inKernel ?? [])].filter((m) => !wanted.has(m)),
      });
      continue;
    }
    let change: SetDiff['change'];
    if (acc.destroy && acc.create) change = 'recreate';
    else if (acc.destroy || (acc.flush && !acc.create)) change = 'destroy';
    else if (acc.create && inKernel === undefined) change = 'create';
    else change = 'update';
    // `-N --exist` of a set that already holds the right members changes nothing.
    if (change === 'update' && acc.add.length === 0 && acc.remove.length === 0 && !acc.flush) continue;
    const remove = change === 'destroy' || change === 'recreate' || acc.flush ? [...(inKernel ?? []), ...acc.remove] : acc.remove;
    diffs.push({ set, ...(label === undefined ? {} : { label }), change, add: acc.add, remove: dedupe(remove) });
  }
  return diffs;
}

/** `maxelem A → B` / `hashsize A → B` of a rebuild, from its temporary's create line and the saved options. */
function rebuildReason(create: PlanLine, options: string | undefined): string | undefined {
  const option = (text: string | undefined, name: string): number | undefined => {
    const m = new RegExp(`(?:^|\\s)${name} (\\d+)`).exec(text ?? '');
    return m === null ? undefined : Number(m[1]);
  };
  const parts: string[] = [];
  const wantMaxelem = create.maxelem ?? option(create.spec, 'maxelem') ?? DEFAULT_MAXELEM;
  const haveMaxelem = option(options, 'maxelem') ?? DEFAULT_MAXELEM;
  if (options !== undefined && wantMaxelem !== haveMaxelem) parts.push(`maxelem ${haveMaxelem} → ${wantMaxelem}`);
  const haveHashsize = option(options, 'hashsize');
  if (create.hashsize !== undefined && haveHashsize !== undefined && haveHashsize < create.hashsize) parts.push(`hashsize ${haveHashsize} → ${create.hashsize}`);
  return parts.length === 0 ? undefined : parts.join(', ');
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
            : d.change === 'rebuild'
              ? `${s.yellow('~')} ${s.bold(name)}  rebuild${d.reason === undefined ? '' : ` (${d.reason})`}, ${counts}`
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
