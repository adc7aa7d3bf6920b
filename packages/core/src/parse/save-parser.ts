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
 * Members are slices of `text`; a snapshot kept for long keeps the text alive. Each
 * set's `members` array is made on first read: until then the set holds only where
 * its members lie in `text`, which `planReconcile` reads directly (a resync of
 * a million-member save then makes no string per unchanged member). Reading or
 * assigning `members` makes a plain array that every later reader sees.
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
  // Not a closure over `text`: a captured `text` lives in a context, which measured
  // twice as slow in the per-line loops below.
  const found = new Problems();
  const problem = (line: number, start: number, end: number, reason: string): void => found.add(line, start, end, reason);
  found.text = text;
  const byName = new Map<string, MemberSpans>();
  const n = text.length;

  // The set of the previous `add` line: consecutive adds name the same set, so
  // comparing in place avoids slicing the name and a map lookup per member.
  let current: MemberSpans | undefined;
  let currentName = '';
  let currentNameLen = 0;
  // `add <current> ` as char codes: comparing them one by one measured 2.5x faster
  // than two startsWith calls per line.
  // 0 when there is no current set or its name is too long for `prefix` (a set name
  // ipset accepts is at most 31 characters).
  const prefix = new Int32Array(64);
  let prefixLen = 0;

  let lineNo = 0;
  let pos = 0;
  while (pos < n) {
    // Hottest path, before even finding the line end: `add <current> <member>\n` with
    // nothing else on the line (what ipset prints), as many such lines as follow.
    if (prefixLen > 0) {
      const before = current!.count;
      pos = readPlainAdds(text, pos, prefix, prefixLen, current!);
      lineNo += current!.count - before;
      if (pos >= n) break;
    }
    lineNo++;

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
      if (!readMember(text, skipBlanks(text, start + 5 + currentNameLen, end), end, current)) {
        problem(lineNo, start, end, 'add line without a member');
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
      if (!readMember(text, skipBlanks(text, nameEnd, end), end, set)) {
        problem(lineNo, start, end, 'add line without a member');
        continue;
      }
      // Only the exact layout `add <name> ` qualifies for the in-place comparison.
      if (nameStart === start + 4 && text.charCodeAt(nameEnd) === SPACE) {
        current = set;
        currentName = name;
        currentNameLen = name.length;
        prefixLen = currentNameLen + 5 <= prefix.length ? currentNameLen + 5 : 0;
        for (let k = 0; k < prefixLen; k++) prefix[k] = text.charCodeAt(start + k);
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
      const spans = new MemberSpans(text);
      sets.push(spans.savedSet(name, text.slice(typeStart, typeEnd), text.slice(skipBlanks(text, typeEnd, end), end)));
      byName.set(name, spans);
      continue;
    }

    problem(lineNo, start, end, 'expected a create or add line');
  }
  const problems = found.kept;
  return found.count > problems.length ? { sets, problems, problemCount: found.count } : { sets, problems };
}

/** The problems of one {@link parseSave}: the first {@link MAX_PARSE_PROBLEMS} kept, all counted. */
class Problems {
  text = '';
  readonly kept: ParseProblem[] = [];
  count = 0;

  add(line: number, start: number, end: number, reason: string): void {
    this.count++;
    if (this.kept.length >= MAX_PARSE_PROBLEMS) return;
    const length = end - start;
    const p: ParseProblem = { line, text: this.text.slice(start, Math.min(end, start + PROBLEM_TEXT_LIMIT)), reason };
    if (length > PROBLEM_TEXT_LIMIT) p.length = length;
    this.kept.push(p);
  }
}

/**
 * Reads the lines from `pos` on that are exactly `prefix` (`add <set> `, as char
 * codes) and a member up to the newline, into `spans`; returns the position of the
 * first other line. A function of its own: alone, the loop measured twice as fast as
 * inside the general parser.
 */
function readPlainAdds(text: string, pos: number, prefix: Int32Array, prefixLen: number, spans: MemberSpans): number {
  const n = text.length;
  while (pos < n) {
    let same = 0;
    while (same < prefixLen && text.charCodeAt(pos + same) === prefix[same]) same++;
    if (same < prefixLen) return pos;
    const memberStart = pos + prefixLen;
    let i = memberStart;
    let c = 0;
    while (i < n) {
      c = text.charCodeAt(i);
      if (c === NL || c === SPACE || c === TAB || c === CR) break;
      i++;
    }
    if (i === memberStart || (i < n && c !== NL)) return pos;
    spans.push(memberStart, i);
    pos = i + 1;
  }
  return pos;
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
 * Adds the member of an add line from `start` to `end` to `set`: the element text,
 * plus ` nomatch` when the flag is among the element options. False when there is no
 * element.
 */
function readMember(text: string, start: number, end: number, set: MemberSpans): boolean {
  if (start >= end) return false;
  const space = tokenEnd(text, start, end);
  // Common cases: the element alone, or exactly ` nomatch` after it.
  if (space === end || (end - space === NOMATCH.length && text.startsWith(NOMATCH, space))) set.push(start, end);
  else if (elementOptionsHaveNomatch(text, space, end)) set.pushString(text.slice(start, space) + NOMATCH);
  else set.push(start, space);
  return true;
}

/** The spans of the sets {@link parseSave} made whose `members` nobody has read yet. */
const unread = new WeakMap<SavedSet, MemberSpans>();

/**
 * Where the members of one saved set lie in the save text: member `i` is
 * `text.slice(starts[i], ends[i])`, or `strings.get(i)` for a member that is not one
 * slice of the text (an element whose options carry `nomatch` elsewhere on the line).
 * Spans always end where the member ends: at a blank, a line end or the end of the text.
 */
export class MemberSpans {
  readonly text: string;
  starts = new Int32Array(16);
  ends = new Int32Array(16);
  count = 0;
  strings: Map<number, string> | undefined;

  constructor(text: string) {
    this.text = text;
  }

  push(start: number, end: number): void {
    if (this.count === this.starts.length) {
      const starts = new Int32Array(this.count * 2);
      const ends = new Int32Array(this.count * 2);
      starts.set(this.starts);
      ends.set(this.ends);
      this.starts = starts;
      this.ends = ends;
    }
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.count++;
  }

  pushString(member: string): void {
    (this.strings ??= new Map()).set(this.count, member);
    this.push(0, 0);
  }

  /** Member `i` as a string. */
  member(i: number): string {
    return this.strings?.get(i) ?? this.text.slice(this.starts[i]!, this.ends[i]!);
  }

  /** A saved set whose `members` array is made from these spans on first read. */
  savedSet(name: string, type: string, options: string): SavedSet {
    const set = { name, type, options } as SavedSet;
    let members: string[] | undefined;
    // An own enumerable accessor: spreads, JSON and deep equality see a plain array.
    Object.defineProperty(set, 'members', {
      enumerable: true,
      configurable: true,
      get: (): string[] => {
        if (members === undefined) {
          members = new Array<string>(this.count);
          for (let i = 0; i < this.count; i++) members[i] = this.member(i);
          unread.delete(set);
        }
        return members;
      },
      set: (value: string[]): void => {
        members = value;
        unread.delete(set);
      },
    });
    unread.set(set, this);
    return set;
  }
}

/**
 * The spans of `set` when it came from {@link parseSave} and its `members` were never
 * read or assigned; otherwise `undefined` (read `members`).
 */
export function unreadMemberSpans(set: SavedSet): MemberSpans | undefined {
  return unread.get(set);
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
