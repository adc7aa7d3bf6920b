/**
 * Problems of a desired-state file and the one error that carries them: every
 * problem names the path of the bad value (and its line when the text is at hand),
 * quotes it and says what was expected. Shared by the validator and both parsers.
 */
import { IpsetsError } from '@ipsets/core';
import { cutText, formatCount, quoteCut as quote } from '../format.js';

/** One problem of a desired-state file. */
export interface FileProblem {
  /** Where the bad value is, e.g. `sets[3].members[0]` (`(root)` for the whole document). */
  readonly path: string;
  /** 1-based line and column in the text, when known. */
  readonly line?: number;
  readonly column?: number;
  /** Quotes the bad value and says what was expected. */
  readonly message: string;
}

/** Renders a zod path as `sets[3].members[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}


/** How a value reads in a message: `"text"`, `a list`, `a mapping`, `number 7`, `null`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return quote(value);
  return `${typeof value} ${quote(value)}`;
}


/** What a whole desired file must be, for messages about the document itself. */
export const ROOT_EXPECTED = 'a mapping with a "sets" list (see ipsets plan --help)';

/** Problems kept in full; past this they are only counted (a file of 3,000,000 bad members must not cost 3,000,000 messages). */
export const MAX_KEPT_PROBLEMS = 1000;

/** Validation stops after this many problems: a file of millions of bad members is refused in seconds. */
export const MAX_COUNTED_PROBLEMS = 10_000;

/** Gathers problems: keeps the first {@link MAX_KEPT_PROBLEMS} in full and counts the rest. */
export interface Collector {
  problems: FileProblem[];
  /** Problems found, kept or not. */
  total: number;
  add(path: readonly PropertyKey[], message: string | (() => string)): void;
}

/** A fresh {@link Collector}. */
export function collector(): Collector {
  const c: Collector = {
    problems: [],
    total: 0,
    add: (path, message) => {
      c.total++;
      if (c.problems.length < MAX_KEPT_PROBLEMS) c.problems.push({ path: formatPath(path), message: typeof message === 'string' ? message : message() });
    },
  };
  return c;
}


/** The message of a thrown value, without a final period, cut to a readable length. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return cutText(error.message.replace(/\.$/, ''));
  return cutText(String(error));
}


/** Problems that get a line number (locating is a scan of the text; the rest are counted, not located). */
export const LOCATED_PROBLEMS = 1000;

/** Problems shown in full in the error message; the rest are counted. */
export const SHOWN_PROBLEMS = 50;

/** The keys of a printed path: `sets[3].members` → `["sets", 3, "members"]`. */
export function pathKeys(path: string): (string | number)[] {
  const keys: (string | number)[] = [];
  for (const part of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (part[2] !== undefined) keys.push(Number(part[2]));
    else if (part[1] !== undefined) keys.push(part[1]);
  }
  return keys;
}

/** Adds the line/column of each problem's value, walking up to the parent for a missing key. */
export type Locator = (problems: FileProblem[]) => FileProblem[];

/** The one error of a bad desired-state file: `INVALID_INPUT`, with `details.problems`. */
export function desiredFileError(source: string, problems: readonly FileProblem[], total = problems.length, more = false): IpsetsError {
  const name = cutText(source, 300);
  // One problem: one line that says what is wrong. More: a header, then the first ones in full, then a count.
  const text =
    total === 1 && problems.length === 1
      ? `${name}: 1 problem; nothing was applied: ${formatProblem(problems[0]!)}`
      : `${name}: ${more ? 'at least ' : ''}${formatCount(total)} problems; nothing was applied:\n${[
          ...problems.slice(0, SHOWN_PROBLEMS).map((p) => `  ${formatProblem(p)}`),
          ...(total > SHOWN_PROBLEMS ? [`  … and ${more ? 'at least ' : ''}${formatCount(total - Math.min(SHOWN_PROBLEMS, problems.length))} more${more ? ' (checking stopped there)' : ''}`] : []),
        ].join('\n')}`;
  return new IpsetsError('INVALID_INPUT', text, { details: { source, problems, total } });
}

/** `line 12:7, sets[3].members[0]: …` (the message cut to a readable length). */
export function formatProblem(problem: FileProblem): string {
  const where = problem.line === undefined ? '' : `line ${problem.line}:${problem.column ?? 1}, `;
  return `${where}${cutText(problem.path, 200)}: ${cutText(problem.message)}`;
}

