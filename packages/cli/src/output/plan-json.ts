/**
 * `ipsets plan --json`: the plan's lines (each with its rendered text, section and
 * error handlers), its sections, notes and counts. {@link planToJson} builds it as
 * data; {@link planJsonChunks} writes the same document as text in pieces, one line
 * object at a time, so that a plan of millions of lines is never one string (a
 * 3.4M-line plan's document is larger than the longest string V8 can hold).
 */
import { renderLine } from '@ipsets/core';
import type { PlanLine, RestorePlan } from '@ipsets/core';
import { LazyJsonArray, jsonChunks } from './json-chunks.js';

/** A plan line as JSON: the line itself, its rendered text, section and handlers. */
export interface PlanLineJson extends Omit<PlanLine, 'onError'> {
  /** 1-based line number in the restore text. */
  readonly line: number;
  readonly text: string;
  readonly onError: PlanLine['onError'];
}

/** Lines per operation, every operation present (zero when unused). */
export type PlanCounts = Record<PlanLine['op'], number>;

/** The document of `ipsets plan --json`, without `schemaVersion`. */
export interface PlanJson {
  lines: PlanLineJson[];
  sections: { section: string; lines: number[] }[];
  notes: NonNullable<RestorePlan['notes']>;
  counts: PlanCounts;
}

/** Counts of each operation in `lines`. */
export function planCounts(lines: readonly PlanLine[]): PlanCounts {
  const counts: PlanCounts = { create: 0, add: 0, del: 0, flush: 0, destroy: 0, swap: 0 };
  for (const l of lines) counts[l.op]++;
  return counts;
}

/** Line `index` (0-based) of a plan as JSON. */
function planLineJson(l: PlanLine, index: number): PlanLineJson {
  return {
    line: index + 1,
    op: l.op,
    set: l.set,
    ...(l.member === undefined ? {} : { member: l.member }),
    ...(l.spec === undefined ? {} : { spec: l.spec }),
    section: l.section,
    text: renderLine(l),
    onError: l.onError,
  };
}

/** Each section with its 1-based line numbers, in the order of their first line. */
function planSections(lines: readonly PlanLine[]): PlanJson['sections'] {
  const sections = new Map<string, number[]>();
  lines.forEach((l, i) => {
    let list = sections.get(l.section);
    if (list === undefined) sections.set(l.section, (list = []));
    list.push(i + 1);
  });
  return [...sections].map(([section, ls]) => ({ section, lines: ls }));
}

/** `ipsets plan --json` output as data: lines with sections and error handlers, notes, counts. */
export function planToJson(plan: RestorePlan): PlanJson {
  return {
    lines: plan.lines.map(planLineJson),
    sections: planSections(plan.lines),
    notes: plan.notes ?? [],
    counts: planCounts(plan.lines),
  };
}

/**
 * The text of `ipsets plan --json` in pieces: the bytes of
 * `JSON.stringify({ schemaVersion: 1, ...planToJson(plan) }, null, 2) + '\n'`, made
 * one line object at a time (the line objects are never all held at once).
 */
export function* planJsonChunks(plan: RestorePlan): Generator<string, void, undefined> {
  const document = {
    schemaVersion: 1,
    lines: new LazyJsonArray(function* () {
      for (let i = 0; i < plan.lines.length; i++) yield planLineJson(plan.lines[i]!, i);
    }, true),
    sections: planSections(plan.lines),
    notes: plan.notes ?? [],
    counts: planCounts(plan.lines),
  };
  yield* jsonChunks(document, 2);
  yield '\n';
}
