import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { MAX_RESTORE_LINE_BYTES, renderLine, renderRestore } from '../../../src/session/render.js';
import type { PlanLine, RestorePlan } from '../../../src/types.js';

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

describe('the render boundary: a plan line can never be read by ipset as two (the 1,023-byte -F injection)', () => {
  const S = 'azure-npm-aaaaaaaaaaaaaaaaaaaa';
  // The member that flushed every set in the namespace: a valid-looking hash:net member
  // padded with leading zeros so that its -D line is 1,023 bytes, followed by -F.
  const injected = (chunk: number, tail: string): string => {
    const head = `-D ${S} 10.0.0.0/`;
    return `10.0.0.0/${'0'.repeat(chunk - head.length - 2)}24${tail}`;
  };

  it.each([1022, 1023, 1024, 1025])('refuses a save member padded to a %d-byte line, as a del of a created set and of an unknown one', (chunk) => {
    for (const tail of ['-F', '-X', 'flush', 'destroy', '-', '']) {
      const member = injected(chunk, tail);
      const withCreate: RestorePlan = {
        lines: [line({ op: 'create', set: S, spec: 'nethash' }), line({ op: 'del', set: S, member })],
      };
      const alone: RestorePlan = { lines: [line({ op: 'del', set: S, member })] };
      for (const p of [withCreate, alone]) {
        let error: unknown;
        try {
          renderRestore(p);
        } catch (e) {
          error = e;
        }
        expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
        expect((error as Error).message.length).toBeLessThan(600);
      }
      expect(() => renderLine(line({ op: 'del', set: S, member }))).toThrow(/Refusing to render "del"/);
    }
  });

  it('checks members against the kind of their set: a valid member of another kind, a non-canonical form, whitespace and options are refused', () => {
    const plan = (spec: 'nethash' | 'hash:ip,port' | 'setlist', member: string): RestorePlan => ({
      lines: [line({ op: 'create', set: S, spec }), line({ op: 'add', set: S, member })],
    });
    for (const [spec, member] of [
      ['nethash', '10.0.0.1,tcp:80'],
      ['nethash', '10.0.0.5/24'],
      ['nethash', '10.0.0.1/32'],
      ['nethash', '010.0.0.1'],
      ['nethash', '10.0.0.1 -F'],
      ['nethash', '10.0.0.1\n-F'],
      ['nethash', '10.0.0.1 timeout 5'],
      ['nethash', 'azure-npm-x'],
      ['hash:ip,port', '10.0.0.1,80'],
      ['hash:ip,port', '10.0.0.1'],
      ['setlist', '10.0.0.1 nomatch'],
      ['setlist', '-F'],
      ['setlist', 'a#b'],
    ] as const) {
      expect(() => renderRestore(plan(spec, member)), `${spec} ${member}`).toThrow(/Refusing to render/);
    }
    expect(renderRestore(plan('nethash', '10.0.0.0/24 nomatch'))).toBe(`-N ${S} --exist nethash\n-A ${S} 10.0.0.0/24 nomatch\n`);
    expect(renderRestore(plan('hash:ip,port', '10.0.0.1,udp:53'))).toBe(`-N ${S} --exist hash:ip,port\n-A ${S} 10.0.0.1,udp:53\n`);
    expect(renderRestore(plan('setlist', 'azure-npm-x'))).toBe(`-N ${S} --exist setlist\n-A ${S} azure-npm-x\n`);
  });

  it('a retry attempt (indices) is checked against the kinds of the whole plan', () => {
    const p: RestorePlan = { lines: [line({ op: 'create', set: S, spec: 'hash:ip,port' }), line({ op: 'add', set: S, member: '10.0.0.1' })] };
    expect(() => renderRestore(p, [1])).toThrow(/canonical hash:ip,port member/);
  });

  it('refuses set names outside the kernel grammar and unknown create specs on every op', () => {
    for (const set of ['', '-F', 'a b', 'a\nb', 'x'.repeat(32), 'a#b', 'é']) {
      for (const op of ['create', 'add', 'del', 'flush', 'destroy'] as const) {
        const l = line({ op, set, member: '10.0.0.1', spec: 'nethash' });
        expect(() => renderLine(l), `${op} ${JSON.stringify(set)}`).toThrow(/Refusing to render/);
        expect(() => renderRestore({ lines: [l] })).toThrow(/Refusing to render/);
      }
    }
    const spec = 'nethash\n-F' as PlanLine['spec'];
    expect(() => renderRestore({ lines: [line({ op: 'create', set: S, spec })] })).toThrow(/with spec "nethash\\n-F"/);
  });

  it('every line the boundary lets through fits ipset line reader (at most MAX_RESTORE_LINE_BYTES with its newline)', () => {
    expect(MAX_RESTORE_LINE_BYTES).toBe(1023);
    const longest = renderLine(line({ op: 'add', set: 'a'.repeat(31), member: 'b'.repeat(31) }));
    expect(longest.length + 1).toBeLessThanOrEqual(MAX_RESTORE_LINE_BYTES);
  });
});
