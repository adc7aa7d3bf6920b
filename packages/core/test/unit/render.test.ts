import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../src/errors.js';
import { renderLine, renderRestore } from '../../src/render.js';
import type { PlanLine, RestorePlan } from '../../src/types.js';

const base = { section: 's', onError: [] } as const;
const line = (l: Omit<PlanLine, 'section' | 'onError'>): PlanLine => ({ ...base, ...l });

describe('renderLine', () => {
  it.each<[PlanLine, string]>([
    [line({ op: 'create', set: 'azure-npm-1', spec: 'nethash' }), '-N azure-npm-1 --exist nethash'],
    [line({ op: 'create', set: 'azure-npm-2', spec: 'hash:ip,port' }), '-N azure-npm-2 --exist hash:ip,port'],
    [line({ op: 'create', set: 'azure-npm-3', spec: 'setlist' }), '-N azure-npm-3 --exist setlist'],
    [
      line({ op: 'create', set: 'azure-npm-4', spec: 'nethash maxelem 4294967295' }),
      '-N azure-npm-4 --exist nethash maxelem 4294967295',
    ],
    [line({ op: 'add', set: 'azure-npm-1', member: '10.0.0.1' }), '-A azure-npm-1 10.0.0.1'],
    [line({ op: 'add', set: 'azure-npm-1', member: '10.0.0.0/8 nomatch' }), '-A azure-npm-1 10.0.0.0/8 nomatch'],
    [line({ op: 'add', set: 'azure-npm-2', member: '10.0.0.1,tcp:80' }), '-A azure-npm-2 10.0.0.1,tcp:80'],
    [line({ op: 'add', set: 'azure-npm-3', member: 'azure-npm-1' }), '-A azure-npm-3 azure-npm-1'],
    [line({ op: 'del', set: 'azure-npm-1', member: '10.0.0.1' }), '-D azure-npm-1 10.0.0.1'],
    [line({ op: 'flush', set: 'azure-npm-1' }), '-F azure-npm-1'],
    [line({ op: 'destroy', set: 'azure-npm-1' }), '-X azure-npm-1'],
  ])('%j', (planLine, text) => {
    expect(renderLine(planLine)).toBe(text);
  });

  it('fixes issue #2840 (seed commit 2688c5968): del lines drop nomatch', () => {
    expect(renderLine(line({ op: 'del', set: 'azure-npm-1', member: '10.2.0.0/16 nomatch' }))).toBe(
      '-D azure-npm-1 10.2.0.0/16',
    );
    expect(renderLine(line({ op: 'del', set: 'azure-npm-1', member: '1.1.1.1 nomatch' }))).toBe('-D azure-npm-1 1.1.1.1');
  });

  it.each<[PlanLine, RegExp]>([
    [line({ op: 'create', set: 'a' }), /no spec/],
    [line({ op: 'add', set: 'a' }), /no member/],
    [line({ op: 'del', set: 'a' }), /no member/],
    [line({ op: 'swap', set: 'a' }), /no to/],
    [line({ op: 'rename' as PlanLine['op'], set: 'a' }), /Unknown plan op "rename"/],
  ])('refuses an incomplete line %j', (planLine, message) => {
    let error: unknown;
    try {
      renderLine(planLine);
    } catch (e) {
      error = e;
    }
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});

describe('renderRestore', () => {
  const plan: RestorePlan = {
    lines: [
      line({ op: 'create', set: 'a', spec: 'nethash' }),
      line({ op: 'del', set: 'a', member: '10.0.0.0/8 nomatch' }),
      line({ op: 'add', set: 'a', member: '10.0.0.1' }),
      line({ op: 'flush', set: 'b' }),
      line({ op: 'destroy', set: 'b' }),
    ],
  };

  it('renders every line followed by a newline, no COMMIT', () => {
    expect(renderRestore(plan)).toBe('-N a --exist nethash\n-D a 10.0.0.0/8\n-A a 10.0.0.1\n-F b\n-X b\n');
  });

  it('renders an empty plan as the empty string', () => {
    expect(renderRestore({ lines: [] })).toBe('');
    expect(renderRestore(plan, [])).toBe('');
  });

  it('renders selected indices in the given order', () => {
    expect(renderRestore(plan, [4, 2])).toBe('-X b\n-A a 10.0.0.1\n');
    expect(renderRestore(plan, [2, 2])).toBe('-A a 10.0.0.1\n-A a 10.0.0.1\n');
  });

  it.each([[-1], [5], [1.5], [Number.NaN]])('refuses index %s', (index) => {
    expect(() => renderRestore(plan, [0, index])).toThrow(/is not a line of the plan; expected an integer 0-4/);
  });

  it('is identical across chunk boundaries (3000 lines)', () => {
    const lines: PlanLine[] = [];
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const member = `10.0.${i >> 8}.${i & 255}`;
      lines.push(line({ op: 'add', set: 'big', member }));
      expected.push(`-A big ${member}\n`);
    }
    const text = renderRestore({ lines });
    expect(text).toBe(expected.join(''));
    const indices = [2999, 0, ...Array.from({ length: 2047 }, (_, i) => i + 1)];
    expect(renderRestore({ lines }, indices)).toBe(indices.map((i) => expected[i]).join(''));
  });
});
