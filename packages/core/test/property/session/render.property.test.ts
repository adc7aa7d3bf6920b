/**
 * renderRestore against a straightforward reference renderer: the renderer writes
 * bytes in windows and chunks, with a one-pass check-and-copy for host members; the
 * reference renders line by line with the public checks, and the two must give the
 * same text, or refuse the same line with the same error code.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { IpsetsError, isIpsetsError } from '../../../src/errors.js';
import { isCanonicalMember, stripNomatch } from '../../../src/model/members.js';
import { isValidKernelSetName } from '../../../src/model/set-names.js';
import { CREATE_SPECS, familyOfSpec, isCreateSpec, kernelTypeOfSpec } from '../../../src/model/set-types.js';
import { MAX_RESTORE_LINE_BYTES, renderLine, renderRestore } from '../../../src/session/render.js';
import { HostRun, planFromPieces } from '../../../src/plan/line-runs.js';
import { NOMATCH_FLAG, hostValue } from '../../../src/model/members.js';
import type { PlanPiece } from '../../../src/plan/line-runs.js';
import type { PlanLine, RestorePlan } from '../../../src/types.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 300;

const onError = [{ when: 'any', then: 'skip-line', report: 'not-converged' }] as const;

/** Does `member` fit the grammar of a set created with `spec` (any grammar when the plan does not create the set)? */
function fits(spec: string | undefined, member: string): boolean {
  if (spec === undefined) {
    return (['hash:net', 'hash:ip,port', 'list:set'] as const).some((t) => isCanonicalMember(t, member)) ||
      isCanonicalMember('hash:net', member, 'inet6') ||
      isCanonicalMember('hash:ip,port', member, 'inet6');
  }
  const type = kernelTypeOfSpec(spec as never);
  return type === 'list:set' ? isCanonicalMember('list:set', member) : isCanonicalMember(type, member, familyOfSpec(spec as never));
}

/** The reference: one line at a time, every rule spelled out. */
function referenceRender(plan: RestorePlan, indices?: readonly number[]): string {
  const lines = plan.lines;
  const specs = new Map<string, string>();
  for (const l of lines) if (l.op === 'create' && isCreateSpec(l.spec)) specs.set(l.set, l.spec);
  const chosen = indices ?? lines.map((_, i) => i);
  let text = '';
  for (const index of chosen) {
    const line = Number.isInteger(index) ? lines[index] : undefined;
    if (line === undefined) throw new IpsetsError('INVALID_ARGUMENT', `bad index ${index}`, { details: { index } });
    if ((line.op === 'add' || line.op === 'del') && typeof line.member === 'string' && typeof line.set === 'string') {
      if (!isValidKernelSetName(line.set)) throw new IpsetsError('INVALID_SET_NAME', 'bad set', { details: { line } });
      if (!fits(specs.get(line.set), line.member)) throw new IpsetsError('INVALID_MEMBER', 'bad member', { details: { line } });
      const bytes = 5 + line.set.length + line.member.length;
      if (bytes > MAX_RESTORE_LINE_BYTES) throw new IpsetsError('INVALID_ARGUMENT', 'too long', { details: { line } });
      const member = line.op === 'del' ? stripNomatch(line.member) : line.member;
      text += `${line.op === 'add' ? '-A' : '-D'} ${line.set} ${member}\n`;
    } else {
      // Not add/del, or fields that are not strings: the single-line renderer's rules.
      text += `${renderLine(line)}\n`;
    }
  }
  return text;
}

type Outcome = { text: string } | { code: string; line: unknown };

function outcome(render: () => string): Outcome {
  try {
    return { text: render() };
  } catch (error) {
    if (!isIpsetsError(error)) throw error;
    return { code: error.code, line: (error.details as { line?: unknown; index?: unknown }).line ?? (error.details as { index?: unknown }).index };
  }
}

const goodSets = ['azure-npm-123', 'azure-npm-abcdefghij0123456789', 'x', 'a'.repeat(31)];
const badSets = ['', '-x', 'a b', 'a#b', 'a"b', 'é', 'a'.repeat(32), 'a\nb'];
const setArb = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...goodSets) }, { weight: 1, arbitrary: fc.constantFrom(...badSets) });

const hosts = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
const memberArb = fc.oneof(
  { weight: 10, arbitrary: hosts },
  { weight: 3, arbitrary: hosts.map((h) => `${h} nomatch`) },
  { weight: 2, arbitrary: fc.constantFrom('10.0.0.0/8', '10.0.0.0/8 nomatch', '192.168.0.0/16', '10.0.0.5/24', '10.0.0.1/32', '010.0.0.1', '10.0.0.1,tcp:80', '10.0.0.1,80', '10.0.0.1,udp:53') },
  { weight: 2, arbitrary: fc.constantFrom('fe80::1', '2001:db8::/64', '2001:db8::/64 nomatch', 'FE80::1', 'fe80::1,tcp:80', '::1,udp:53') },
  { weight: 2, arbitrary: fc.constantFrom(...goodSets, ...badSets) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '10.0.0.1\n-F',
      '10.0.0.1 ',
      ' 10.0.0.1',
      '10.0.0.1  nomatch',
      '10.0.0.1 nomatchx',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.4 NOMATCH',
      '',
      '١.2.3.4',
      '1.2.3.4#',
      '10.0.0.1'.padEnd(1100, '0'),
      'a'.repeat(1000),
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

const lineArb: fc.Arbitrary<PlanLine> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('create' as const), set: setArb, spec: fc.constantFrom(...CREATE_SPECS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('create' as const), set: setArb, spec: fc.constantFrom('nethash', 'hash:ip,port', 'bogus'), maxelem: fc.constantFrom(1024, 65536, -1, 0.5) }) },
  { weight: 20, arbitrary: fc.record({ op: fc.constantFrom('add' as const, 'del' as const), set: setArb, member: memberArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('add' as const, 'del' as const), set: fc.oneof(setArb, fc.constant(7 as unknown as string)), member: fc.constantFrom(undefined, 42 as unknown as string) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('flush' as const, 'destroy' as const), set: setArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('swap' as const), set: setArb, to: fc.oneof(setArb, fc.constant(undefined)) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('bogus' as unknown as 'add'), set: setArb }) },
).map((l) => {
  const line = { ...l, section: `s-${String(l.set)}`, onError } as PlanLine;
  for (const key of Object.keys(line) as (keyof PlanLine)[]) if (line[key] === undefined) delete line[key];
  return line;
});

/** Plans whose lines come in runs of one set and op, as planners write them, with hostile lines mixed in. */
const planArb = fc
  .array(fc.tuple(lineArb, fc.integer({ min: 1, max: 40 })), { maxLength: 25 })
  .chain((runs) =>
    fc.tuple(
      fc.constant(runs),
      fc.array(memberArb, { minLength: runs.reduce((n, [, k]) => n + k, 0), maxLength: runs.reduce((n, [, k]) => n + k, 0) }),
    ),
  )
  .map(([runs, members]) => {
    const lines: PlanLine[] = [];
    let m = 0;
    for (const [line, k] of runs) {
      for (let i = 0; i < k; i++) {
        const member = members[m++];
        lines.push(i === 0 || (line.op !== 'add' && line.op !== 'del') || typeof line.member !== 'string' ? line : { ...line, member: member! });
      }
    }
    return { lines } as RestorePlan;
  });

/** {@link planArb} without the lines the reference refuses: plans that mostly render. */
const cleanPlanArb = planArb.map((plan) => ({
  lines: plan.lines.filter((_, i) => 'text' in outcome(() => referenceRender(plan, [i]))),
}));

describe('renderRestore is the reference renderer', () => {
  it('gives the same text for plans the reference renders (runs, nomatch, inet6, lists, long names)', () => {
    let rendered = 0;
    fc.assert(
      fc.property(cleanPlanArb, (plan) => {
        const result = outcome(() => renderRestore(plan));
        if ('text' in result) rendered++;
        expect(result).toEqual(outcome(() => referenceRender(plan)));
      }),
      { numRuns },
    );
    // The property is about text: most plans must render.
    expect(rendered).toBeGreaterThan(numRuns / 2);
  });

  it('gives the same text, or refuses the same line with the same code, for random plans with hostile lines', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        expect(outcome(() => renderRestore(plan))).toEqual(outcome(() => referenceRender(plan)));
      }),
      { numRuns },
    );
  });

  it('for retry selections too, including indices that are not plan lines', () => {
    fc.assert(
      fc.property(
        planArb.chain((plan) =>
          fc.tuple(
            fc.constant(plan),
            fc.array(
              fc.oneof(
                { weight: 20, arbitrary: fc.nat(Math.max(0, plan.lines.length - 1)) },
                { weight: 1, arbitrary: fc.constantFrom(-1, 0.5, plan.lines.length, Number.NaN) },
              ),
              { maxLength: 60 },
            ),
          ),
        ),
        ([plan, indices]) => {
          expect(outcome(() => renderRestore(plan, indices))).toEqual(outcome(() => referenceRender(plan, indices)));
        },
      ),
      { numRuns },
    );
  });
});

/** A plain canonical IPv4 host (no ` nomatch`): what a HostRun holds as a number. */
const isPlainHost = (member: string): boolean => {
  const v = hostValue(member);
  return v >= 0 && v < NOMATCH_FLAG;
};

/**
 * The same lines as pieces, as planners hand them out: consecutive add (or del) lines of
 * one set, section and handlers with string members become runs where `cut` says so,
 * and a run of plain hosts becomes a {@link HostRun} (their numbers) where `numeric` says so.
 */
function piecesOf(lines: readonly PlanLine[], cut: readonly boolean[], numeric: readonly boolean[] = [false]): PlanPiece[] {
  return runsOf(lines, cut).map((piece, i) =>
    'members' in piece && numeric[i % numeric.length] === true && piece.members.every(isPlainHost)
      ? new HostRun(piece.op, piece.set, piece.section, piece.onError, Uint32Array.from(piece.members, hostValue))
      : piece,
  );
}

function runsOf(lines: readonly PlanLine[], cut: readonly boolean[]): PlanPiece[] {
  const pieces: PlanPiece[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const last = pieces[pieces.length - 1];
    const member = l.member;
    if ((l.op === 'add' || l.op === 'del') && typeof member === 'string' && Object.keys(l).length === 5) {
      if (last !== undefined && 'members' in last && last.op === l.op && last.set === l.set && last.section === l.section && last.onError === l.onError && !cut[i % cut.length]) {
        (last.members as string[]).push(member);
      } else {
        pieces.push({ op: l.op, set: l.set, section: l.section, onError: l.onError, members: [member] });
      }
      continue;
    }
    pieces.push(l);
  }
  return pieces;
}

describe('renderRestore of a plan held as runs (plan/line-runs.ts) is the reference renderer of its lines', () => {
  it('gives the same text, or refuses the same line with the same code, and the lines read afterwards are the lines', () => {
    let hostRuns = 0;
    fc.assert(
      fc.property(fc.oneof(planArb, cleanPlanArb), fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), (plan, cut, numeric) => {
        const pieces = piecesOf(plan.lines, cut, numeric);
        hostRuns += pieces.filter((p) => p instanceof HostRun).length;
        const pieced = planFromPieces(pieces, undefined, undefined);
        const result = outcome(() => renderRestore(pieced));
        expect(result).toEqual(outcome(() => referenceRender(plan)));
        expect(pieced.lines).toEqual(plan.lines);
      }),
      { numRuns },
    );
    // Runs of hosts held as numbers (written from the numbers) were among them.
    expect(hostRuns).toBeGreaterThan(numRuns / 4);
  });
});

describe('renderRestore at sizes past its windows and chunks', () => {
  const set = 'azure-npm-abcdefghij0123456789';
  const big = (n: number): PlanLine[] => {
    const lines: PlanLine[] = [{ op: 'create', set, spec: 'nethash', section: 's', onError }];
    for (let i = 0; i < n; i++) {
      const member = `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}${i % 97 === 0 ? ' nomatch' : ''}`;
      lines.push({ op: i % 5 === 4 ? 'del' : 'add', set, member, section: 's', onError });
      if (i % 1000 === 999) lines.push({ op: 'add', set, member: `10.${i & 255}.0.0/16`, section: 's', onError });
    }
    return lines;
  };

  it('renders 60,000 lines (several chunks of text) exactly as the reference does', () => {
    const plan: RestorePlan = { lines: big(60_000) };
    const text = renderRestore(plan);
    expect(text.length).toBeGreaterThan(2 * (1 << 20));
    expect(text).toBe(referenceRender(plan));
  });

  it('refuses a bad member deep in a long plan with no text, blaming that line', () => {
    const lines = big(30_000);
    lines[20_000] = { ...lines[20_000]!, member: '10.0.0.1\n-F' };
    lines[25_000] = { ...lines[25_000]!, set: 'bad set' };
    expect(outcome(() => renderRestore({ lines }))).toEqual({ code: 'INVALID_MEMBER', line: lines[20_000] });
  });

  it('checks earlier lines before a bad index later in the same window', () => {
    const lines = big(400);
    lines[100] = { ...lines[100]!, member: '10.0.0.01' };
    const indices = lines.map((_, i) => i);
    indices[300] = lines.length + 5;
    expect(outcome(() => renderRestore({ lines }, indices))).toEqual({ code: 'INVALID_MEMBER', line: lines[100] });
    lines[100] = { ...lines[100]!, member: '10.0.0.1' };
    expect(outcome(() => renderRestore({ lines }, indices))).toEqual({ code: 'INVALID_ARGUMENT', line: lines.length + 5 });
  });

  it('gives the same text where the platform has no TextDecoder (engines with only the ECMAScript globals)', () => {
    const plan: RestorePlan = { lines: big(30_000) };
    const expected = referenceRender(plan);
    vi.stubGlobal('TextDecoder', undefined);
    try {
      expect(renderRestore(plan)).toBe(expected);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
