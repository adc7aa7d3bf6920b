/**
 * The parser of `ipset save` (docs/ipset-semantics.md §5.1): the walk over its lines,
 * create lines (names, types, create options) and add lines (members, read into
 * {@link MemberSpans} as they are met). `ipset list -n` and `ipset list -t` are read by
 * list-parser.ts.
 *
 * It never throws: a line it cannot use becomes a {@link ParseProblem}, and reading
 * goes on. It scans with `indexOf` and slices only what it keeps, because a
 * million-member save must parse in a fraction of the time `ipset save` took to
 * print it.
 *
 * Why one file: the line walk and its fast paths (plain adds compared in
 * place, whole runs matched by one pattern) share the state of the set being read;
 * the member lists it fills are in saved-members.ts.
 */
import { quote } from '../errors.js';
import { NOMATCH, ipv4Address, scanIPv4 } from '../model/ipv4-host.js';
import { MemberSpans, MemberStore, parseCreateOptions } from './saved-members.js';
import type { ParseProblem, SavedSet, SaveSnapshot } from '../types.js';

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
 * Each set's `members` is a {@link MemberSpans}: where its members lie in `text` and
 * the address of each IPv4 host, read on the way; a member becomes a string only when
 * it is read (`at(i)`, or iterating), so a resync of a million-member save makes no
 * string per unchanged member. A snapshot kept for long keeps alive the text (or, read
 * in pieces, the pieces) holding its members that are not IPv4 hosts. Each
 * set's create options are parsed once, into `createOptions`.
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
  const reader = new SaveReader();
  reader.push(text);
  return reader.end();
}

/**
 * {@link parseSave} of a save read in pieces as they arrive (`ipset save`'s stdout while
 * ipset still prints it): `push` each piece, whatever its bounds, and `end` returns the
 * snapshot `parseSave` would return for the whole text. Only whole lines are read; a
 * line cut by a piece's end waits for the rest. A snapshot keeps alive only the pieces
 * that hold members that are not IPv4 hosts.
 */
export class SaveReader {
  private readonly sets: SavedSet[] = [];
  private readonly found = new Problems();
  private readonly byName = new Map<string, MemberSpans>();
  /** Names holding a blank, which an add line must match whole. */
  private readonly blankNames: string[] = [];
  /** The list:set sets, whose members are names. */
  private readonly listSets = new Set<MemberSpans>();
  private readonly store = new MemberStore();
  // The set of the previous `add` line, its name and `add <name> ` as char codes, and
  // its pattern for whole runs (see `read`): they carry over from one piece to the next.
  private current: MemberSpans | undefined;
  private currentName = '';
  private readonly prefix = new Int32Array(64);
  private prefixLen = 0;
  private run: RegExp | undefined;
  private lineNo = 0;
  /** The pieces of a line not ended yet (joined once its newline comes: a long line costs linear time). */
  private cut: string[] = [];
  private ended = false;

  /** Reads the whole lines of `piece` (with the cut line before it). */
  push(piece: string): void {
    if (this.ended) throw new Error('SaveReader: push after end');
    const last = piece.lastIndexOf('\n');
    if (last === -1) {
      if (piece !== '') this.cut.push(piece);
      return;
    }
    const whole = last === piece.length - 1 ? piece : piece.slice(0, last + 1);
    const text = this.cut.length === 0 ? whole : this.cut.join('') + whole;
    this.cut = last === piece.length - 1 ? [] : [piece.slice(last + 1)];
    this.read(text);
  }

  /** Reads the last line (when the save does not end in a newline) and returns the snapshot. */
  end(): SaveSnapshot {
    if (this.ended) throw new Error('SaveReader: end called twice');
    this.ended = true;
    if (this.cut.length > 0) this.read(this.cut.join(''));
    this.cut = [];
    const found = this.found;
    const problems = found.kept;
    return found.count > problems.length ? { sets: this.sets, problems, problemCount: found.count } : { sets: this.sets, problems };
  }

  /** Reads `text`, whole lines (the last one may lack its newline). */
  private read(text: string): void {
    const { sets, found, byName, blankNames, listSets, store, prefix } = this;
    // Not a closure over `text`: a captured `text` lives in a context, which measured
    // twice as slow in the per-line loops below.
    const problem = (line: number, start: number, end: number, reason: string): void => found.add(line, start, end, reason);
    found.text = text;
    const n = text.length;

    // The set of the previous `add` line: consecutive adds name the same set, so
    // comparing in place avoids slicing the name and a map lookup per member.
    let current = this.current;
    current?.enter(text);
    let currentName = this.currentName;
    let currentNameLen = currentName.length;
    // `add <current> ` as char codes (in `prefix`): comparing them one by one measured
    // 2.5x faster than two startsWith calls per line.
    // 0 when there is no current set or its name is too long for `prefix` (a set name
    // ipset accepts is at most 31 characters).
    let prefixLen = this.prefixLen;
    // The current set's pattern for whole runs of plain adds, made once the set proves long.
    let run = this.run;

    let lineNo = this.lineNo;
    let pos = 0;
    while (pos < n) {
      // Hottest path, before even finding the line end: `add <current> <member>\n` with
      // nothing else on the line (what ipset prints), as many such lines as follow.
      if (prefixLen > 0) {
        const before = current!.count;
        if (before < RUN_AFTER) pos = readPlainAdds(text, pos, prefix, prefixLen, current!, RUN_AFTER - before);
        if (current!.count >= RUN_AFTER) {
          run ??= runPattern(currentName);
          pos = readPlainRuns(text, pos, run, current!);
          // The last line, when the text does not end in a newline.
          pos = readPlainAdds(text, pos, prefix, prefixLen, current!, 1);
        }
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
        // A name with blanks (ipset allows them) is matched whole, the longest first:
        // `add azure-npm-zzz 1 10.0.0.1` is set `azure-npm-zzz 1` when that set exists. (Only
        // a list:set member with blanks can make a line mean two things — `add 1 1 1` with
        // sets `1`, `1 1` — and the longest set name is taken.)
        const spaced = blankNames.length === 0 ? -1 : longestNameAt(text, start + 4, end, blankNames, true);
        const nameStart = spaced === -1 ? skipBlanks(text, start + 4, end) : start + 4;
        const nameEnd = spaced === -1 ? tokenEnd(text, nameStart, end) : start + 4 + spaced;
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
        set.enter(text);
        // A list:set's member is a set name, which may hold blanks too (leading ones included: it starts one blank after the set's name).
        const listMember = blankNames.length === 0 || !listSets.has(set) ? -1 : longestNameAt(text, nameEnd + 1, end, blankNames, false);
        if (listMember !== -1) set.pushSpan(nameEnd + 1, nameEnd + 1 + listMember);
        else if (!readMember(text, skipBlanks(text, nameEnd, end), end, set)) {
          problem(lineNo, start, end, 'add line without a member');
          continue;
        }
        // Only the exact layout `add <name> ` qualifies for the in-place comparison, and
        // only for a set no other name extends (`o` when `o 1` exists) whose members hold no blank.
        if (nameStart === start + 4 && text.charCodeAt(nameEnd) === SPACE && (blankNames.length === 0 || (!extendedByBlankName(name, blankNames) && !listSets.has(set)))) {
          if (current !== set) run = undefined;
          current = set;
          currentName = name;
          currentNameLen = name.length;
          prefixLen = currentNameLen + 5 <= prefix.length ? currentNameLen + 5 : 0;
          for (let k = 0; k < prefixLen; k++) prefix[k] = text.charCodeAt(start + k);
        } else {
          current = undefined;
          prefixLen = 0;
          run = undefined;
        }
        continue;
      }

      if (text.startsWith('create ', start)) {
        // ipset prints `create NAME TYPE OPTIONS` with the name as it is, blanks and all:
        // the type is the last word that is a set type (no option word is), the name all before it.
        const typed = lastTypeWord(text, start + 7, end);
        const nameStart = typed > start + 7 ? start + 7 : skipBlanks(text, start + 7, end);
        const nameEnd = typed > start + 7 ? typed - 1 : tokenEnd(text, nameStart, end);
        const typeStart = typed > start + 7 ? typed : skipBlanks(text, nameEnd, end);
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
        const spans = new MemberSpans(nameEnd - nameStart, store);
        spans.enter(text);
        const type = text.slice(typeStart, typeEnd);
        const options = text.slice(skipBlanks(text, typeEnd, end), end);
        sets.push({ name, type, options, createOptions: parseCreateOptions(options), members: spans });
        byName.set(name, spans);
        if (type.startsWith('list:')) listSets.add(spans);
        if (hasBlank(name)) {
          blankNames.push(name);
          // The set being added to may be one this name extends: compare names again.
          current = undefined;
          prefixLen = 0;
          run = undefined;
        }
        continue;
      }

      problem(lineNo, start, end, 'expected a create or add line');
    }
    this.current = current;
    this.currentName = currentName;
    this.prefixLen = prefixLen;
    this.run = run;
    this.lineNo = lineNo;
  }
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
 * Plain adds of one set read one line at a time before the set's run is matched as a
 * whole ({@link readPlainRuns}): a pattern costs more to make than a short set costs to read.
 */
const RUN_AFTER = 32;

/** Most lines one match of a run pattern covers (the matcher's backtracking state grows with it). */
const RUN_LINES = 256;

/**
 * The pattern of up to {@link RUN_LINES} consecutive lines `add <name> <member>\n` (a
 * member without blanks), sticky: it matches at `lastIndex` or not at all. The name is
 * matched literally, whatever characters it holds.
 */
function runPattern(name: string): RegExp {
  const literal = name.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  return new RegExp(`(?:add ${literal} [^\\n\\r\\t ]+\\n){0,${RUN_LINES}}`, 'y');
}

/**
 * Reads whole runs of lines `add <set> <member>\n` from `pos` on with `run` (see
 * {@link runPattern}) into `spans`, and returns the position of the first other line.
 * The pattern checks every character of each line's prefix in one native pass — a
 * million lines compared one character at a time measured twice as slow; each member
 * is then read once, for its address.
 */
function readPlainRuns(text: string, pos: number, run: RegExp, spans: MemberSpans): number {
  const memberOffset = spans.nameLength + 5;
  for (;;) {
    run.lastIndex = pos;
    if (!run.test(text)) return pos;
    const runEnd = run.lastIndex;
    if (runEnd === pos) return pos;
    // Room for every line of the run, so the loop below writes straight into the array.
    spans.reserve(RUN_LINES);
    const values = spans.values;
    const offset = spans.offset;
    let count = spans.count;
    while (pos < runEnd) {
      const start = pos + memberOffset;
      // The one IPv4 scanner (value mode, read in place): a host ends at the newline.
      const scanned = scanIPv4(text, start, runEnd, undefined, 0);
      let i = -1;
      if (scanned >= 0) {
        const address = ipv4Address(scanned);
        i = start + (scanned - address * 16);
        if (text.charCodeAt(i) === NL) values[offset + count++] = address;
        else i = -1;
      }
      if (i < 0) {
        // The pattern saw the newline: a member that is not an address ends there.
        i = text.indexOf('\n', start);
        spans.setCount(count);
        spans.pushOther(start, i);
        count++;
      }
      pos = i + 1;
    }
    spans.setCount(count);
  }
}

/**
 * Reads the lines from `pos` on that are exactly `prefix` (`add <set> `, as char
 * codes) and a member up to the newline, at most `limit` of them, into `spans`;
 * returns the position of the first line not read. A function of its own: alone, the loop measured twice as fast as
 * inside the general parser.
 */
function readPlainAdds(text: string, pos: number, prefix: Int32Array, prefixLen: number, spans: MemberSpans, limit: number): number {
  const n = text.length;
  for (let read = 0; pos < n && read < limit; read++) {
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
    spans.pushSpan(memberStart, i);
    pos = i + 1;
  }
  return pos;
}

function hasBlank(name: string): boolean {
  for (let i = 0; i < name.length; i++) if (isBlank(name.charCodeAt(i))) return true;
  return false;
}

/**
 * Length of the longest of `names` at `pos` followed by a blank (and so by more: lines
 * are trimmed), or by `end` too unless `memberFollows`; or -1. An add line needs a
 * member after its set's name: `add o 10.0.0.1` is set `o`, even when `o 10.0.0.1` exists.
 */
function longestNameAt(text: string, pos: number, end: number, names: readonly string[], memberFollows: boolean): number {
  let best = -1;
  for (const name of names) {
    const after = pos + name.length;
    if (name.length > best && (after < end ? isBlank(text.charCodeAt(after)) : after === end && !memberFollows) && text.startsWith(name, pos)) best = name.length;
  }
  return best;
}

/** True when one of `names` is `name`, a blank and more (`o 1` extends `o`). */
function extendedByBlankName(name: string, names: readonly string[]): boolean {
  for (const other of names) if (other.length > name.length && isBlank(other.charCodeAt(name.length)) && other.startsWith(name)) return true;
  return false;
}

/** Start of the last word in `pos`–`end` that is a set type (`hash:…`, `bitmap:…`, `list:…`), or -1. */
function lastTypeWord(text: string, pos: number, end: number): number {
  let found = -1;
  while (pos < end) {
    pos = skipBlanks(text, pos, end);
    const wordEnd = tokenEnd(text, pos, end);
    if (wordEnd > pos && (text.startsWith('hash:', pos) || text.startsWith('bitmap:', pos) || text.startsWith('list:', pos))) found = pos;
    pos = wordEnd;
  }
  return found;
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
  if (space === end || (end - space === NOMATCH.length && text.startsWith(NOMATCH, space))) set.pushSpan(start, end);
  else if (elementOptionsHaveNomatch(text, space, end)) set.pushString(text.slice(start, space) + NOMATCH);
  else set.pushSpan(start, space);
  return true;
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
