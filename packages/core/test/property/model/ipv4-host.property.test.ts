import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOMATCH_FLAG, canonicalMember, copyCanonicalHost, hostValue, isCanonicalHost, stripNomatch } from '../../../src/model/members.js';
import { parseSave } from '../../../src/parse/save-parser.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 1000;

// The one IPv4 scanner (model/ipv4-host.ts) in each of its callers, against the public
// canonicaliser: a host member is exactly a string canonicalMember keeps as it is and
// that has no prefix length.

/** canonicalMember's verdict: `m` is a canonical hash:net host member, `a.b.c.d[ nomatch]`. */
function isHostByCanonicalMember(m: string): boolean {
  try {
    return canonicalMember('hash:net', m) === m && !m.includes('/');
  } catch {
    return false;
  }
}

/** The value of a member canonicalMember accepted as a host: its four octets, plus the flag. */
function valueOfCanonicalHost(m: string): number {
  const [address, flag] = m.split(' ');
  return address!.split('.').reduce((a, o) => a * 256 + Number(o), 0) + (flag === undefined ? 0 : NOMATCH_FLAG);
}

const octet = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 300 }).map(String) },
  fc.constantFrom('00', '01', '010', '0255', '', '256', '999', '1a', ' 1', '1 ', '+1', '-1', '0x1'),
  // Very long digit runs (the scanner must refuse them at the fourth digit).
  fc.tuple(fc.constantFrom('0', '1', '9'), fc.integer({ min: 4, max: 40 })).map(([d, k]) => d.repeat(k)),
  // Digits that are not ASCII: Arabic-Indic, fullwidth, mathematical bold, Devanagari.
  fc.constantFrom('\u0661', '\uff11', '\u{1d7cf}', '\u0967', '1\u0660', '\uff10'),
);
const tail = fc.constantFrom(
  '', '', '', ' nomatch', ' nomatch ', 'nomatch', '  nomatch', ' NOMATCH', ' nomatcH', '\u00a0nomatch', ' nomatch nomatch',
  '/24', '/32', '/0', ' x', '\n-F', '.', '.1', ',tcp:80', ' ', '\t', '\u0661',
);
const hostile = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(octet, octet, octet, octet, tail).map(([a, b, c, d, t]) => `${a}.${b}.${c}.${d}${t}`) },
  fc.tuple(fc.array(octet, { minLength: 1, maxLength: 6 }), tail).map(([os, t]) => os.join('.') + t),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: fc.constantFrom(...'0123456789. nomatch'.split('')), maxLength: 30 }),
);

describe('the IPv4 host scanner against canonicalMember', () => {
  it('hostValue: the address of exactly the host members canonicalMember keeps, plus NOMATCH_FLAG with nomatch; -1 for the rest', () => {
    fc.assert(
      fc.property(hostile, (m) => {
        expect(hostValue(m)).toBe(isHostByCanonicalMember(m) ? valueOfCanonicalHost(m) : -1);
      }),
      { numRuns: Math.max(numRuns, 5000) },
    );
  });

  it('copyCanonicalHost and isCanonicalHost: accept exactly those members and copy them as written (nomatch only when asked)', () => {
    fc.assert(
      fc.property(hostile, fc.nat(8), fc.boolean(), (m, at, keep) => {
        const out = new Uint8Array(at + 23).fill(35);
        const end = copyCanonicalHost(m, out, at, keep);
        const host = isHostByCanonicalMember(m);
        expect(end >= 0).toBe(host);
        expect(isCanonicalHost(m)).toBe(host);
        if (!host) return;
        expect(String.fromCharCode(...out.subarray(at, end))).toBe(keep ? m : stripNomatch(m));
        expect([...out.subarray(0, at)].every((b) => b === 35)).toBe(true);
      }),
      { numRuns: Math.max(numRuns, 5000) },
    );
  });

  it('the save parser reads the same values from add lines, in its plain-run walk and line by line', () => {
    // No blank or control character inside a member: the save grammar would split it.
    const member = hostile.filter((m) => m.length > 0 && !/[\s#]/.test(m.replace(/ nomatch$/, '')));
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 120 }), (members) => {
        // More than 32 plain adds in a row take the run walk; the first ones go line by line.
        const text = `create a hash:net family inet\n${members.map((m) => `add a ${m}`).join('\n')}\n`;
        const set = parseSave(text).sets[0]!;
        const spans = set.members;
        expect(spans.length).toBe(members.length);
        for (let i = 0; i < members.length; i++) {
          const m = members[i]!;
          expect([spans.at(i), spans.hostValue(i)]).toEqual([m, isHostByCanonicalMember(m) ? valueOfCanonicalHost(m) : -1]);
        }
      }),
      { numRuns: Math.max(50, Math.floor(numRuns / 5)) },
    );
  });
});
