/**
 * Rendering plans as `ipset restore` input, in the reference's exact line syntax
 * (docs/reference-behaviour.md §d.1): `-N <set> --exist <spec>`, `-A <set> <member>`,
 * `-D <set> <member>` (without ` nomatch`), `-F <set>`, `-X <set>`; each line ends
 * with `\n` and there is no trailing `COMMIT`.
 *
 * This is the render boundary: nothing reaches the text unchecked. Every set name
 * must be a kernel set name, every create spec one the library knows, every member
 * canonical for its set's kind (the kind of the set's create line in the plan; for a
 * set the plan does not create, any of the library's member grammars), and no line
 * may reach ipset's line reader limit. ipset reads a restore file 1,023 bytes at a
 * time: a longer line is read as two, and whatever lies past byte 1,023 runs as a
 * command of its own (a `-F` there flushes every set); a line of exactly 1,024 bytes
 * still runs as one command but shifts the line numbers of every later error, which
 * would make the recovery session blame the wrong line. A line that breaks a rule is
 * an {@link IpsetsError} and no text is returned.
 *
 * Why one file: the boundary's checks and its byte writer stay together because the
 * writer's fast path for host members (`writeMembers`, `copyCanonicalHost`) and the
 * checked path every other line takes (`renderCheckedLine`) must give the same text
 * and the same errors; the only part that is not about this boundary, the ASCII byte
 * buffer, lives in ascii-text.ts.
 */
import { createSpecText, validateCapacity } from '../model/capacity.js';
import { IpsetsError, quote } from '../errors.js';
import { copyCanonicalHost, isCanonicalHost, isCanonicalMember, stripNomatch } from '../model/members.js';
import { isValidKernelSetName, setNameMessage, setNameProblem } from '../model/set-names.js';
import { AsciiChunks, asciiBytes, writeAscii } from './ascii-text.js';
import type { MemberKind } from '../model/members.js';
import { CREATE_SPECS, isCreateSpec, specInfoOf } from '../model/set-types.js';
import type { MemberGrammar } from '../model/set-types.js';
import { HostRun, isMemberRun, planLineCount, planPieces } from '../plan/line-runs.js';
import { writeIPv4 } from '../model/ipv4-host.js';
import type { PlanPiece } from '../plan/line-runs.js';
import type { PlanLine, RestorePlan } from '../types.js';

const NEWLINE = 10;

/** Bytes per line for sizing the first chunk: lines of a million-line plan of hosts average 45. */
const BYTES_PER_LINE_GUESS = 48;

/**
 * Longest restore line, newline included, that ipset reads in one piece and counts as
 * one line (its reader takes 1,023 bytes at a time; measured on ipset 7.17 by the
 * real-kernel tests of @ipsets/exec-linux).
 */
export const MAX_RESTORE_LINE_BYTES = 1023;

function missing(line: PlanLine, field: 'member' | 'spec' | 'to'): IpsetsError {
  return new IpsetsError(
    'INVALID_ARGUMENT',
    `Plan line ${quote(line.op)} for set ${quote(line.set)} has no ${field}; expected a ${field} on every ${line.op} line.`,
    { details: { line } },
  );
}

function badSetName(line: PlanLine): IpsetsError {
  const problem = setNameProblem(line.set, 'kernel') ?? 'it is not a kernel set name';
  return new IpsetsError('INVALID_SET_NAME', `Refusing to render a ${quote(line.op)} line: ${setNameMessage(line.set, problem, 'kernel')}`, {
    details: { line, reason: problem },
  });
}

function badMember(line: PlanLine, kind: MemberGrammar | undefined): IpsetsError {
  const expected =
    kind === undefined
      ? 'a canonical hash:net or hash:ip,port member or a set name'
      : kind === 'list:set'
        ? 'a set name (list:set member)'
        : `the canonical ${kind} member form (as ipset save prints it)`;
  return new IpsetsError(
    'INVALID_MEMBER',
    `Refusing to render ${quote(line.op)} of member ${quote(line.member)} to set ${quote(line.set)}: expected ${expected}.`,
    { details: { line, kind } },
  );
}

function tooLong(line: PlanLine, bytes: number): IpsetsError {
  return new IpsetsError(
    'INVALID_ARGUMENT',
    `Refusing to render a ${quote(line.op)} line for set ${quote(line.set)} of ${bytes} bytes: ipset reads at most ${MAX_RESTORE_LINE_BYTES} bytes (newline included) as one line.`,
    { details: { line, bytes } },
  );
}

/** True when `member` fits the grammar of `kind`, or of any member kind when the kind is unknown. */
function memberFits(kind: MemberGrammar | undefined, member: string): boolean {
  if (kind === 'hash:net' && isCanonicalHost(member)) return true;
  if (kind === 'hash:net family inet6') return isCanonicalMember('hash:net', member, 'inet6');
  if (kind === 'hash:ip,port family inet6') return isCanonicalMember('hash:ip,port', member, 'inet6');
  if (kind !== undefined) return isCanonicalMember(kind, member);
  return (
    isCanonicalHost(member) ||
    isCanonicalMember('hash:net', member) ||
    isCanonicalMember('hash:ip,port', member) ||
    isCanonicalMember('list:set', member) ||
    isCanonicalMember('hash:net', member, 'inet6') ||
    isCanonicalMember('hash:ip,port', member, 'inet6')
  );
}

/**
 * Checks one add/del line (set name checked by the caller); returns the member as
 * written (del lines without ` nomatch`). Names, specs and members are ASCII once
 * checked, so string length is byte length.
 */
function checkedMember(line: PlanLine, kind: MemberGrammar | undefined): string {
  const member = line.member;
  if (typeof member !== 'string' || !memberFits(kind, member)) {
    if (member === undefined) throw missing(line, 'member');
    throw badMember(line, kind);
  }
  const bytes = 5 + line.set.length + member.length;
  if (bytes > MAX_RESTORE_LINE_BYTES) throw tooLong(line, bytes);
  return line.op === 'del' ? stripNomatch(member) : member;
}

/**
 * One plan line as restore text, without the trailing newline.
 *
 * Checked as described in the module documentation; a line alone does not say its
 * set's kind, so a member must fit one of the library's member grammars
 * ({@link renderRestore} checks it against the kind of its set's create line). `del`
 * lines drop ` nomatch` because ipset rejects the flag on `del`
 * (``Unknown argument: `nomatch'``, the reference's issue #2840).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` when an add/del line has no member, a create
 *   line no spec or an unknown spec, the op is unknown, or the line would exceed
 *   {@link MAX_RESTORE_LINE_BYTES}; `INVALID_SET_NAME` for a set name that is not a
 *   kernel set name; `INVALID_MEMBER` for a member that is not canonical for the set.
 */
export function renderLine(line: PlanLine): string {
  return renderCheckedLine(line, undefined);
}

/** {@link renderLine} with the kernel type of the line's set, when known. */
function renderCheckedLine(line: PlanLine, kind: MemberGrammar | undefined): string {
  const op = line.op;
  if (op !== 'create' && op !== 'add' && op !== 'del' && op !== 'flush' && op !== 'destroy' && op !== 'swap') {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `Unknown plan op ${quote((line as { op: unknown }).op)}; expected create, add, del, flush, destroy or swap.`,
      { details: { line } },
    );
  }
  if (typeof line.set !== 'string' || !isValidKernelSetName(line.set)) throw badSetName(line);
  switch (op) {
    case 'create':
      if (line.spec === undefined) throw missing(line, 'spec');
      if (!isCreateSpec(line.spec)) {
        throw new IpsetsError(
          'INVALID_ARGUMENT',
          `Refusing to render a create line for set ${quote(line.set)} with spec ${quote(line.spec)}: expected one of ${CREATE_SPECS.join(', ')}.`,
          { details: { line } },
        );
      }
      if (line.maxelem === undefined && line.hashsize === undefined) return `-N ${line.set} --exist ${line.spec}`;
      // Capacity is checked again here: a hand-built plan line must not smuggle text into the create line.
      return `-N ${line.set} --exist ${createSpecText(
        line.spec,
        validateCapacity({ maxelem: line.maxelem, hashsize: line.hashsize }, line.spec, `the create line of set ${quote(line.set)}`, 'INVALID_ARGUMENT'),
      )}`;
    case 'add':
      return `-A ${line.set} ${checkedMember(line, kind)}`;
    case 'del':
      return `-D ${line.set} ${checkedMember(line, kind)}`;
    case 'flush':
      return `-F ${line.set}`;
    case 'destroy':
      return `-X ${line.set}`;
    case 'swap':
      if (line.to === undefined) throw missing(line, 'to');
      if (typeof line.to !== 'string' || !isValidKernelSetName(line.to)) throw badSetName({ ...line, set: line.to });
      return `-W ${line.set} ${line.to}`;
  }
}

/** Member grammar of every set the plan creates (from the spec of its last create line). */
function createdKinds(lines: readonly PlanPiece[]): Map<string, MemberGrammar> {
  const kinds = new Map<string, MemberGrammar>();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.op !== 'create' || isMemberRun(l)) continue;
    const spec = specInfoOf(l.spec);
    if (spec !== undefined) kinds.set(l.set, spec.grammar);
  }
  return kinds;
}

/** Lines per window of {@link renderRestore}: their member strings are measured, then written. */
const WINDOW_LINES = 256;

/** Bytes per line besides the member, for a window's room: `-D `, a 31-character set name, a space, the newline. */
const LINE_OVERHEAD = 36;

/**
 * What the renderer knows while it writes: the text so far, each created set's member
 * grammar, and the run of add (or del) lines of one set it is in — whose set name was
 * checked when the run began and whose `-A <set> ` prefix is encoded once.
 */
class RenderState {
  readonly out: AsciiChunks;
  readonly kinds: Map<string, MemberGrammar>;
  runOp = '';
  // null until the first add/del line: a set name is checked whenever the set changes.
  runSet: string | null = null;
  runKind: MemberGrammar | undefined = undefined;
  runNet = false;
  prefix: Uint8Array = new Uint8Array(0);

  constructor(kinds: Map<string, MemberGrammar>, lines: number) {
    this.kinds = kinds;
    this.out = new AsciiChunks(lines * BYTES_PER_LINE_GUESS);
  }

  /** Enters the run of `op` lines of `set` (`line` is one of them, for the error of a bad set name). */
  enter(op: 'add' | 'del', set: string, line: () => PlanLine): void {
    if (set !== this.runSet) {
      if (!isValidKernelSetName(set)) throw badSetName(line());
      this.runSet = set;
      this.runKind = this.kinds.get(set);
      this.runNet = this.runKind === 'hash:net';
    }
    this.runOp = op;
    this.prefix = asciiBytes(op === 'add' ? `-A ${set} ` : `-D ${set} `);
  }

  /** Writes a line that is not part of a run (checked by renderCheckedLine). */
  single(line: PlanLine): void {
    const text = renderCheckedLine(line, typeof line.set === 'string' ? this.kinds.get(line.set) : undefined);
    const buf = this.out.room(text.length + 1);
    const end = writeAscii(buf, this.out.pos, text);
    buf[end] = NEWLINE;
    this.out.pos = end + 1;
  }
}

/**
 * Writes the member lines `members[from, to)` of the current run (the caller entered
 * it, measured the members and made room); `line(k)` is the plan line of member k, made
 * only for a member that leaves the host fast path. Returns the new write position.
 */
function writeMembers(st: RenderState, buf: Uint8Array, pos: number, members: readonly string[], from: number, to: number, line: (k: number) => PlanLine): number {
  const prefix = st.prefix;
  const keepNomatch = st.runOp === 'add';
  for (let k = from; k < to; k++) {
    const member = members[k]!;
    // A long member (never a valid one) may not fit what the window made room for.
    if (pos + prefix.length + member.length + 1 > buf.length) {
      st.out.pos = pos;
      buf = st.out.room(prefix.length + member.length + 1);
      pos = st.out.pos;
    }
    buf.set(prefix, pos);
    const at = pos + prefix.length;
    let end = st.runNet ? copyCanonicalHost(member, buf, at, keepNomatch) : -1;
    if (end < 0) end = writeAscii(buf, at, checkedMember(line(k), st.runKind));
    buf[end] = NEWLINE;
    pos = end + 1;
  }
  return pos;
}

/** Longest host line besides its prefix: `255.255.255.255` and the newline. */
const HOST_LINE_BYTES = 16;

/** Writes one line of the current run per address of `hosts` (canonical by construction: no check is needed). */
function writeHosts(st: RenderState, hosts: Uint32Array): void {
  const prefix = st.prefix;
  const line = prefix.length + HOST_LINE_BYTES;
  for (let from = 0; from < hosts.length; from += WINDOW_LINES) {
    const to = Math.min(hosts.length, from + WINDOW_LINES);
    const buf = st.out.room((to - from) * line);
    let pos = st.out.pos;
    for (let k = from; k < to; k++) {
      buf.set(prefix, pos);
      pos = writeIPv4(buf, pos + prefix.length, hosts[k]!);
      buf[pos++] = NEWLINE;
    }
    st.out.pos = pos;
  }
}

/** The room a window of members needs; reading every length first lets the CPU overlap their cache misses. */
function roomFor(members: readonly string[], from: number, to: number): number {
  let room = 0;
  for (let k = from; k < to; k++) room += members[k]!.length + LINE_OVERHEAD;
  return room;
}

/**
 * The text of a plan still held as pieces (plan/line-runs.ts): runs are written
 * member by member with the same checks, and a line object is made only for a member
 * that fails the host fast path (for its check, and its error).
 */
function renderPieces(pieces: readonly PlanPiece[], lines: number): string {
  const st = new RenderState(createdKinds(pieces), lines);
  const one: string[] = [''];
  for (const piece of pieces) {
    if (!isMemberRun(piece)) {
      const op = piece.op;
      if ((op === 'add' || op === 'del') && typeof piece.member === 'string' && typeof piece.set === 'string') {
        if (piece.set !== st.runSet || op !== st.runOp) st.enter(op, piece.set, () => piece);
        one[0] = piece.member;
        const buf = st.out.room(roomFor(one, 0, 1));
        st.out.pos = writeMembers(st, buf, st.out.pos, one, 0, 1, () => piece);
      } else {
        st.single(piece);
      }
      continue;
    }
    const { op, set, section, onError } = piece;
    const hosts = HostRun.hostsOf(piece);
    if (hosts !== undefined) {
      if (set !== st.runSet || op !== st.runOp) st.enter(op, set, () => ({ op, set, member: piece.members[0]!, section, onError }));
      // Hosts are written from their numbers where a host is a member of the set's kind
      // (a hash:net set, or a set the plan does not create); elsewhere the strings are checked.
      if (st.runKind === undefined || st.runNet) {
        writeHosts(st, hosts);
        continue;
      }
    }
    const members = piece.members;
    const lineOf = (k: number): PlanLine => ({ op, set, member: members[k]!, section, onError });
    if (set !== st.runSet || op !== st.runOp) st.enter(op, set, () => lineOf(0));
    for (let from = 0; from < members.length; from += WINDOW_LINES) {
      const to = Math.min(members.length, from + WINDOW_LINES);
      const buf = st.out.room(roomFor(members, from, to));
      st.out.pos = writeMembers(st, buf, st.out.pos, members, from, to, lineOf);
    }
  }
  return st.out.text();
}

/**
 * Selections of at most this many lines are rendered line by line: the byte writer's
 * buffers cost more than they save for a handful of lines (a one-pod change, a retry
 * of one line).
 */
const SMALL_TEXT_LINES = 32;

/** {@link renderRestore} of a few lines: each checked and rendered as renderLine does, with its set's kind. */
function renderFew(lines: readonly PlanLine[], indices: readonly number[] | undefined, count: number): string {
  const kinds = createdKinds(lines);
  let text = '';
  for (let k = 0; k < count; k++) {
    const index = indices === undefined ? k : indices[k]!;
    const line = Number.isInteger(index) ? lines[index] : undefined;
    if (line === undefined) throw badIndex(index, lines.length);
    text += `${renderCheckedLine(line, typeof line.set === 'string' ? kinds.get(line.set) : undefined)}\n`;
  }
  return text;
}

function badIndex(index: number, lines: number): IpsetsError {
  return new IpsetsError('INVALID_ARGUMENT', `Line index ${quote(index)} is not a line of the plan; expected an integer 0-${lines - 1}.`, {
    details: { index, lines },
  });
}

/**
 * The restore text of a plan: every line (or the lines at `indices`, in the order
 * given, for a retry attempt) followed by `\n`. An empty selection gives `''`.
 * Every line is checked first (see the module documentation); members are checked
 * against the kind of their set's create line anywhere in the plan, so a retry
 * attempt is checked exactly as the whole plan was.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an index that is not a plan line, or any
 *   error of {@link renderLine}; then no text is produced.
 */
export function renderRestore(plan: RestorePlan, indices?: readonly number[]): string {
  // The text is written as bytes into a reused chunk (ascii-text.ts), in windows of
  // lines: a first pass over a window reads only each member's length — loads that do
  // not depend on each other, so the CPU overlaps the cache misses of a million
  // scattered member strings, which one pass would pay one after another — and makes
  // room; the second checks and copies from cache. A canonical host member of a
  // hash:net set is checked and copied in one pass over its string
  // (copyCanonicalHost); every other line, and every line whose fields are not
  // strings, goes through the same checks as renderLine, so text and errors match.
  if (indices === undefined) {
    const pieces = planPieces(plan);
    if (pieces !== undefined) return renderPieces(pieces, planLineCount(plan));
  }
  const lines = plan.lines;
  const count = indices === undefined ? lines.length : indices.length;
  if (count <= SMALL_TEXT_LINES) return renderFew(lines, indices, count);
  const st = new RenderState(createdKinds(lines), count);
  const window: PlanLine[] = new Array<PlanLine>(Math.min(count, WINDOW_LINES));
  const members: string[] = new Array<string>(Math.min(count, WINDOW_LINES));
  for (let from = 0; from < count; ) {
    let to = Math.min(count, from + WINDOW_LINES);
    let room = 0;
    for (let k = from; k < to; k++) {
      let line: PlanLine | undefined;
      if (indices === undefined) {
        line = lines[k];
      } else {
        const index = indices[k]!;
        line = Number.isInteger(index) ? lines[index] : undefined;
      }
      if (line === undefined) {
        // Rendered (and refused) in order: earlier lines are checked first.
        if (k > from) {
          to = k;
          break;
        }
        throw badIndex(indices === undefined ? k : indices[k]!, lines.length);
      }
      window[k - from] = line;
      const member = line.member;
      room += (typeof member === 'string' ? member.length : 0) + LINE_OVERHEAD;
    }
    st.out.room(room);
    for (let k = from; k < to; k++) {
      const line = window[k - from]!;
      const op = line.op;
      const member = line.member;
      const set = line.set;
      if ((op === 'add' || op === 'del') && typeof member === 'string' && typeof set === 'string') {
        if (set !== st.runSet || op !== st.runOp) st.enter(op, set, () => line);
        // Consecutive member lines of the run go in one call.
        let end = k + 1;
        members[0] = member;
        while (end < to) {
          const next = window[end - from]!;
          if (next.op !== op || next.set !== set || typeof next.member !== 'string') break;
          members[end - k] = next.member;
          end++;
        }
        const buf = st.out.room(0);
        st.out.pos = writeMembers(st, buf, st.out.pos, members, 0, end - k, (j) => window[k + j - from]!);
        k = end - 1;
      } else {
        st.single(line);
      }
    }
    from = to;
  }
  return st.out.text();
}
