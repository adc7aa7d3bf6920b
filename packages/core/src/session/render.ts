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
 */
import { createSpecText, validateCapacity } from '../model/capacity.js';
import { IpsetsError, quote } from '../errors.js';
import { isCanonicalHost, isCanonicalMember, isValidKernelSetName, stripNomatch } from '../model/members.js';
import type { MemberKind } from '../model/members.js';
import { CREATE_SPECS, familyOfSpec, isCreateSpec, kernelTypeOfSpec } from '../model/set-types.js';
import type { KernelSetType, PlanLine, RestorePlan } from '../types.js';

/** The member grammar of a set: its kernel type, plus `family inet6` for an IPv6 hash set. */
type MemberGrammar = KernelSetType | 'hash:net family inet6' | 'hash:ip,port family inet6';

/** Most members per joined run of {@link renderRestore}. */
const RUN_LINES = 1024;

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
  return new IpsetsError(
    'INVALID_SET_NAME',
    `Refusing to render a ${quote(line.op)} line for set ${quote(line.set)}: expected a kernel set name (1-31 printable ASCII characters without whitespace, "#" or quotes, not starting with "-").`,
    { details: { line } },
  );
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

/** Kernel type of every set the plan creates (the spec of its last create line). */
function createdKinds(lines: readonly PlanLine[]): Map<string, MemberGrammar> {
  const kinds = new Map<string, MemberGrammar>();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.op !== 'create' || !isCreateSpec(l.spec)) continue;
    const type = kernelTypeOfSpec(l.spec);
    kinds.set(l.set, familyOfSpec(l.spec) === 'inet6' && type !== 'list:set' ? `${type} family inet6` : type);
  }
  return kinds;
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
  const lines = plan.lines;
  const count = indices === undefined ? lines.length : indices.length;
  const kinds = createdKinds(lines);
  // Consecutive add (or del) lines of one set are written as one join of their
  // members with `\n-A <set> ` between them: joining flat member strings is a copy,
  // whereas a per-line `-A ${set} ${member}` is a rope the join has to flatten,
  // which measured 10-15% slower at a million lines (the ropes were also a hundred
  // megabytes of garbage). Other lines, and lines whose fields are not strings, go
  // through renderLine, so the text and the errors are the same.
  const out: string[] = [];
  const run: string[] = [];
  let runOp = '';
  // null until the first run: every set name of a run is checked when the run's set changes.
  let runSet: string | null = null;
  let runKind: MemberGrammar | undefined;
  let runNet = false;
  const flush = (): void => {
    const prefix = runOp === 'add' ? `-A ${runSet!} ` : `-D ${runSet!} `;
    out.push(prefix, run.join(`\n${prefix}`), '\n');
    run.length = 0;
  };
  for (let k = 0; k < count; k++) {
    let line: PlanLine | undefined;
    if (indices === undefined) {
      line = lines[k];
    } else {
      const index = indices[k]!;
      line = Number.isInteger(index) ? lines[index] : undefined;
      if (line === undefined) {
        throw new IpsetsError(
          'INVALID_ARGUMENT',
          `Line index ${quote(index)} is not a line of the plan; expected an integer 0-${lines.length - 1}.`,
          { details: { index, lines: lines.length } },
        );
      }
    }
    const op = line!.op;
    const member = line!.member;
    const set = line!.set;
    if ((op === 'add' || op === 'del') && typeof member === 'string' && typeof set === 'string') {
      if (run.length > 0 && (op !== runOp || set !== runSet || run.length === RUN_LINES)) flush();
      if (set !== runSet) {
        if (!isValidKernelSetName(set)) throw badSetName(line!);
        runSet = set;
        runKind = kinds.get(set);
        runNet = runKind === 'hash:net';
      }
      runOp = op;
      // Hot path: a canonical host member of a hash:net set (`a.b.c.d[ nomatch]`) is
      // short and safe; anything else takes the full check.
      if (runNet && isCanonicalHost(member)) run.push(op === 'del' ? stripNomatch(member) : member);
      else run.push(checkedMember(line!, runKind));
    } else {
      if (run.length > 0) flush();
      out.push(renderCheckedLine(line!, typeof set === 'string' ? kinds.get(set) : undefined), '\n');
    }
  }
  if (run.length > 0) flush();
  return out.join('');
}
