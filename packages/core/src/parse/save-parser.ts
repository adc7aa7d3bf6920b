/**
 * Parsers for what the kernel says it holds: `ipset save` (docs/ipset-semantics.md
 * docs/ipset-semantics.md §5.1), `ipset list -n` and `ipset list -t` (docs/ipset-semantics.md §5.2).
 *
 * They never throw: a line they cannot use becomes a {@link ParseProblem} (save) or is
 * skipped (list), and reading goes on. `parseSave` scans with `indexOf` and slices
 * only what it keeps, because a million-member save must parse in a fraction of the
 * time `ipset save` took to print it.
 */
import { quote } from '../errors.js';
import type { ParseProblem, SavedSet, SaveSnapshot, SetHeader } from '../types.js';

/**
 * Problems {@link parseSave} keeps in full; past them it only counts
 * (`SaveSnapshot.problemCount`), so a 100 MB garbage save costs bounded memory.
 */
export const MAX_PARSE_PROBLEMS = 100;

/** Longest line text a {@link ParseProblem} keeps (the full length is in `length`). */
export const PROBLEM_TEXT_LIMIT = 200;

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const NOMATCH = ' nomatch';

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === CR;
}

/**
 * Parses `ipset save` output into sets in dump order, each with its type, create
 * options and members (as printed, which is canonical; a ` nomatch` flag is kept as
 * the member suffix, other element options such as `timeout`, `packets`, `bytes`,
 * `comment` are dropped).
 *
 * Never throws. Problems (line number, text, reason) are collected and parsing goes
 * on: an unknown command, a `create` without a type or for a name already created
 * (its later `add` lines go to the first set), an `add` without a member or for a set
 * whose `create` line has not been seen. Blank lines and `#` comments are skipped;
 * CRLF line ends and a missing final newline are accepted.
 *
 * Unlike the reference (docs/reference-behaviour.md §d.2, §g.2.11) a `create` on the last line is
 * parsed, and a `nomatch` entry does not end the reading of its set.
 *
 * Members are slices of `text`; a snapshot kept for long keeps the text alive.
 *
 * Bounded on hostile input: the first {@link MAX_PARSE_PROBLEMS} problems are kept,
 * each with at most {@link PROBLEM_TEXT_LIMIT} characters of its line; the rest are
 * only counted in `problemCount` (the total, kept ones included). Time is linear in
 * the length of `text`.
 *
 * Members are kept as printed and not checked against their set's type here (foreign
 * sets may be of any type); planners echo a saved member into a plan only when it is
 * canonical for the set ({@link isCanonicalMember}).
 */
export function parseSave(text: string): SaveSnapshot {
  const sets: SavedSet[] = [];
  const problems: ParseProblem[] = [];
  let problemCount = 0;
  const problem = (line: number, start: number, end: number, reason: string): void => {
    problemCount++;
    if (problems.length >= MAX_PARSE_PROBLEMS) return;
    const length = end - start;
    const p: ParseProblem = { line, text: text.slice(start, Math.min(end, start + PROBLEM_TEXT_LIMIT)), reason };
    if (length > PROBLEM_TEXT_LIMIT) p.length = length;
    problems.push(p);
  };
  const byName = new Map<string, SavedSet>();
  const n = text.length;

  // The set of the previous `add` line: consecutive adds name the same set, so
  // comparing in place avoids slicing the name and a map lookup per member.
  let current: SavedSet | undefined;
  let currentName = '';
  let currentNameLen = 0;

  let lineNo = 0;
  let pos = 0;
  while (pos < n) {
    lineNo++;

    // Hottest path, before even finding the line end: `add <current> <member>\n` with
    // nothing else on the line (what ipset prints). The member is scanned up to the
    // newline in one pass; anything else on the line goes the general way below.
    if (
      current !== undefined &&
      text.charCodeAt(pos) === 97 /* a */ &&
      text.charCodeAt(pos + 4 + currentNameLen) === SPACE &&
      text.startsWith('add ', pos) &&
      text.startsWith(currentName, pos + 4)
    ) {
      const memberStart = pos + 5 + currentNameLen;
      let i = memberStart;
      let c = 0;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c === NL || isBlank(c)) break;
        i++;
      }
      if (i > memberStart && (i === n || c === NL)) {
        current.members.push(text.slice(memberStart, i));
        pos = i + 1;
        continue;
      }
    }

    let end = text.indexOf('\n', pos);
    const next = end === -1 ? n : end + 1;
    if (end === -1) end = n;
    let start = pos;
    pos = next;

    // Trim CR and blanks at both ends (ipset prints none; CRLF files and hand edits do).
    while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
    while (start < end && isBlank(text.charCodeAt(start))) start++;
    if (start === end) continue;
    const c0 = text.charCodeAt(start);
    if (c0 === HASH) continue;

    // Hot path: `add <current> <member>`.
    if (
      c0 === 97 /* a */ &&
      current !== undefined &&
      text.startsWith('add ', start) &&
      text.charCodeAt(start + 4 + currentNameLen) === SPACE &&
      text.startsWith(currentName, start + 4)
    ) {
      const member = readMember(text, skipBlanks(text, start + 5 + currentNameLen, end), end);
      if (member === undefined) {
        problem(lineNo, start, end, 'add line without a member');
      } else {
        current.members.push(member);
      }
      continue;
    }

    if (text.startsWith('add ', start)) {
      const nameStart = skipBlanks(text, start + 4, end);
      const nameEnd = tokenEnd(text, nameStart, end);
      const name = text.slice(nameStart, nameEnd);
      if (name === '') {
        problem(lineNo, start, end, 'add line without a set name');
        continue;
      }
      const set = byName.get(name);
      if (set === undefined) {
        problem(lineNo, start, end, `add line for set ${quote(name)} before its create line`);
        continue;
      }
      const member = readMember(text, skipBlanks(text, nameEnd, end), end);
      if (member === undefined) {
        problem(lineNo, start, end, 'add line without a member');
        continue;
      }
      set.members.push(member);
      // Only the exact layout `add <name> ` qualifies for the in-place comparison.
      if (nameStart === start + 4 && text.charCodeAt(nameEnd) === SPACE) {
        current = set;
        currentName = name;
        currentNameLen = name.length;
      }
      continue;
    }

    if (text.startsWith('create ', start)) {
      const nameStart = skipBlanks(text, start + 7, end);
      const nameEnd = tokenEnd(text, nameStart, end);
      const typeStart = skipBlanks(text, nameEnd, end);
      const typeEnd = tokenEnd(text, typeStart, end);
      const name = text.slice(nameStart, nameEnd);
      if (name === '' || typeStart === typeEnd) {
        problem(lineNo, start, end, name === '' ? 'create line without a set name' : 'create line without a set type');
        continue;
      }
      if (byName.has(name)) {
        problem(lineNo, start, end, `second create line for set ${quote(name)}`);
        continue;
      }
      const set: SavedSet = {
        name,
        type: text.slice(typeStart, typeEnd),
        options: text.slice(skipBlanks(text, typeEnd, end), end),
        members: [],
      };
      sets.push(set);
      byName.set(name, set);
      continue;
    }

    problem(lineNo, start, end, 'expected a create or add line');
  }
  return problemCount > problems.length ? { sets, problems, problemCount } : { sets, problems };
}

function skipBlanks(text: string, pos: number, end: number): number {
  while (pos < end && isBlank(text.charCodeAt(pos))) pos++;
  return pos;
}

function tokenEnd(text: string, pos: number, end: number): number {
  while (pos < end && !isBlank(text.charCodeAt(pos))) pos++;
  return pos;
}

/**
 * The member of an add line from `start` to `end`: the element text, plus ` nomatch`
 * when the flag is among the element options; `undefined` when there is no element.
 */
function readMember(text: string, start: number, end: number): string | undefined {
  if (start >= end) return undefined;
  const space = tokenEnd(text, start, end);
  if (space === end) return text.slice(start, end);
  // Common case: exactly ` nomatch` after the element.
  if (end - space === NOMATCH.length && text.startsWith(NOMATCH, space)) return text.slice(start, end);
  const element = text.slice(start, space);
  return elementOptionsHaveNomatch(text, space, end) ? element + NOMATCH : element;
}

/** True when the option words from `pos` to `end` include `nomatch` (outside quotes: comments may say anything). */
function elementOptionsHaveNomatch(text: string, pos: number, end: number): boolean {
  let quoted = false;
  let wordStart = -1;
  for (let i = pos; i <= end; i++) {
    const c = i < end ? text.charCodeAt(i) : SPACE;
    if (c === 34 /* " */) {
      quoted = !quoted;
      wordStart = -1;
      continue;
    }
    if (quoted) continue;
    if (isBlank(c)) {
      if (wordStart !== -1 && i - wordStart === 7 && text.startsWith('nomatch', wordStart)) return true;
      wordStart = -1;
    } else if (wordStart === -1) {
      wordStart = i;
    }
  }
  return false;
}

/** Splits text into lines without their `\n` / `\r\n`. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length > 0 && line.charCodeAt(line.length - 1) === CR) lines[i] = line.slice(0, -1);
  }
  return lines;
}

/**
 * Parses `ipset list -n`: one set name per line, in kernel order. Surrounding
 * whitespace is trimmed; blank lines are skipped. Never throws.
 */
export function parseListNames(text: string): string[] {
  const names: string[] = [];
  for (const line of splitLines(text)) {
    const name = line.trim();
    if (name !== '') names.push(name);
  }
  return names;
}

/**
 * Parses `ipset list -t` (or plain `ipset list`, whose member lines are skipped):
 * blocks of `Field: value` lines separated by blank lines. `Name:` also starts a new
 * block. Unknown fields are ignored; a block without `Name:` is dropped; a missing
 * `Type:` or `Header:` reads as `''`, and a missing or non-numeric `References:` or
 * `Number of entries:` as `0`. Never throws.
 */
export function parseListHeaders(text: string): SetHeader[] {
  const headers: SetHeader[] = [];
  let block: SetHeader | undefined;
  let named = false;
  let inMembers = false;
  const finish = (): void => {
    if (block !== undefined && named) headers.push(block);
    block = undefined;
    named = false;
    inMembers = false;
  };
  for (const raw of splitLines(text)) {
    const line = raw.trim();
    if (line === '') {
      finish();
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? '' : line.slice(0, colon);
    if (field === 'Name') {
      finish();
    } else if (inMembers) {
      continue;
    }
    if (colon === -1) continue;
    const value = line.slice(colon + 1).trim();
    block ??= { name: '', type: '', header: '', references: 0, entries: 0 };
    switch (field) {
      case 'Name':
        block.name = value;
        named = value !== '';
        break;
      case 'Type':
        block.type = value;
        break;
      case 'Header':
        block.header = value;
        break;
      case 'References':
        block.references = toCount(value);
        break;
      case 'Number of entries':
        block.entries = toCount(value);
        break;
      case 'Members':
        inMembers = true;
        break;
      default:
        break;
    }
  }
  finish();
  return headers;
}

function toCount(value: string): number {
  if (!/^\d+$/.test(value)) return 0;
  return Number(value);
}
