/**
 * Rendering plans as `ipset restore` input, in the seed's exact line syntax
 * (spec/azure-npm.md §d.1): `-N <set> --exist <spec>`, `-A <set> <member>`,
 * `-D <set> <member>` (without ` nomatch`), `-F <set>`, `-X <set>`; each line ends
 * with `\n` and there is no trailing `COMMIT`.
 */
import { createSpecText, validateCapacity } from './capacity.js';
import { IpsetsError, quote } from './errors.js';
import { stripNomatch } from './members.js';
import type { PlanLine, RestorePlan } from './types.js';

/** Most members per joined run of {@link renderRestore}. */
const RUN_LINES = 1024;

function missing(line: PlanLine, field: 'member' | 'spec' | 'to'): IpsetsError {
  return new IpsetsError(
    'INVALID_ARGUMENT',
    `Plan line ${quote(line.op)} for set ${quote(line.set)} has no ${field}; expected a ${field} on every ${line.op} line.`,
    { details: { line } },
  );
}

/**
 * One plan line as restore text, without the trailing newline.
 *
 * Members and names are written as they are: they were validated when they
 * entered the manager or planner ({@link canonicalMember}), which is what makes the
 * text safe. `del` lines drop ` nomatch` because ipset rejects the flag on `del`
 * (``Unknown argument: `nomatch'``, the seed's issue #2840).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` when an add/del line has no member, a
 *   create line no spec, or the op is unknown.
 */
export function renderLine(line: PlanLine): string {
  switch (line.op) {
    case 'create':
      if (line.spec === undefined) throw missing(line, 'spec');
      if (line.maxelem === undefined && line.hashsize === undefined) return `-N ${line.set} --exist ${line.spec}`;
      // Capacity is checked again here: a hand-built plan line must not smuggle text into the create line.
      return `-N ${line.set} --exist ${createSpecText(
        line.spec,
        validateCapacity({ maxelem: line.maxelem, hashsize: line.hashsize }, line.spec, `the create line of set ${quote(line.set)}`, 'INVALID_ARGUMENT'),
      )}`;
    case 'add':
      if (line.member === undefined) throw missing(line, 'member');
      return `-A ${line.set} ${line.member}`;
    case 'del':
      if (line.member === undefined) throw missing(line, 'member');
      return `-D ${line.set} ${stripNomatch(line.member)}`;
    case 'flush':
      return `-F ${line.set}`;
    case 'destroy':
      return `-X ${line.set}`;
    case 'swap':
      if (line.to === undefined) throw missing(line, 'to');
      return `-W ${line.set} ${line.to}`;
    default:
      throw new IpsetsError(
        'INVALID_ARGUMENT',
        `Unknown plan op ${quote((line as { op: unknown }).op)}; expected create, add, del, flush, destroy or swap.`,
        { details: { line } },
      );
  }
}

/**
 * The restore text of a plan: every line (or the lines at `indices`, in the order
 * given, for a retry attempt) followed by `\n`. An empty selection gives `''`.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an index that is not a plan line, or a
 *   line {@link renderLine} refuses.
 */
export function renderRestore(plan: RestorePlan, indices?: readonly number[]): string {
  const lines = plan.lines;
  const count = indices === undefined ? lines.length : indices.length;
  // Consecutive add (or del) lines of one set are written as one join of their
  // members with `\n-A <set> ` between them: joining flat member strings is a copy,
  // whereas a per-line `-A ${set} ${member}` is a rope the join has to flatten,
  // which measured 10-15% slower at a million lines (the ropes were also a hundred
  // megabytes of garbage). Other lines, and lines whose fields are not strings, go
  // through renderLine, so the text and the errors are the same.
  const out: string[] = [];
  const run: string[] = [];
  let runOp = '';
  let runSet = '';
  const flush = (): void => {
    const prefix = runOp === 'add' ? `-A ${runSet} ` : `-D ${runSet} `;
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
      runOp = op;
      runSet = set;
      run.push(op === 'del' ? stripNomatch(member) : member);
    } else {
      if (run.length > 0) flush();
      out.push(renderLine(line!), '\n');
    }
  }
  if (run.length > 0) flush();
  return out.join('');
}
