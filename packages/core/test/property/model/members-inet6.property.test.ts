import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalMember } from '../../../src/model/members.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 1000;

// A reference written without the reader under test: the address as a BigInt, masked
// with BigInt arithmetic, printed by the WHATWG URL serialiser (RFC 5952 compression,
// lower case) with glibc's dotted forms on top (see members-inet6.ts).
function reference(groups: readonly number[], prefix: number): string {
  let v = groups.reduce((a, g) => (a << 16n) | BigInt(g), 0n);
  v &= ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n);
  const g = Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(16 * (7 - i))) & 0xffffn));
  const dotted = `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  let text: string;
  if (g.slice(0, 6).every((x) => x === 0) && g[6] !== 0) text = `::${dotted}`;
  else if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) text = `::ffff:${dotted}`;
  else text = new URL(`http://[${g.map((x) => x.toString(16)).join(':')}]/`).hostname.slice(1, -1);
  return prefix === 128 ? text : `${text}/${prefix}`;
}

const group = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.constant(0xffff), fc.integer({ min: 0, max: 0xffff }));

/** Some spelling of `groups` inet_pton accepts: mixed case, leading zeros, one `::` over zero groups, a dotted tail. */
const spelled = fc
  .tuple(fc.array(group, { minLength: 8, maxLength: 8 }), fc.array(fc.tuple(fc.boolean(), fc.nat(3)), { minLength: 8, maxLength: 8 }), fc.nat(), fc.boolean())
  .map(([groups, styles, runPick, dottedTail]) => {
    const words = groups.map((g, i) => {
      const [upper, pad] = styles[i]!;
      const hex = g.toString(16).padStart(Math.min(4, g.toString(16).length + pad), '0');
      return upper ? hex.toUpperCase() : hex;
    });
    if (dottedTail) {
      words[6] = `${groups[6]! >> 8}.${groups[6]! & 255}`;
      words[7] = `${groups[7]! >> 8}.${groups[7]! & 255}`;
    }
    // Zero runs [start, end) to compress, one of them picked (or none).
    const runs: [number, number][] = [];
    for (let s = 0; s < 8; s++) for (let e = s + 1; e <= 8 && groups[e - 1] === 0; e++) if (!dottedTail || e <= 6) runs.push([s, e]);
    const pick = runPick % (runs.length + 1);
    let text: string;
    if (pick === runs.length) text = words.join(':');
    else {
      const [s, e] = runs[pick]!;
      text = `${words.slice(0, s).join(':')}::${words.slice(e).join(':')}`;
    }
    // A dotted tail joins its two halves with a dot, not a colon.
    if (dottedTail) text = text.replace(/(\d+)\.(\d+):(\d+)\.(\d+)$/, (_m, a, b, c, d) => `${a}.${b}.${c}.${d}`);
    return { groups, text };
  });

describe('canonicalMember family inet6 against a BigInt and URL reference', () => {
  it('hash:net: any inet_pton spelling with any prefix prints as ipset save prints it', () => {
    fc.assert(
      fc.property(spelled, fc.integer({ min: 1, max: 128 }), fc.boolean(), fc.boolean(), ({ groups, text }, prefix, withPrefix, bracketed) => {
        const p = withPrefix ? prefix : 128;
        const address = bracketed ? `[${text}]` : text;
        const input = withPrefix ? `${address}/${prefix}` : address;
        expect(canonicalMember('hash:net', input, 'inet6')).toBe(reference(groups, p));
      }),
      { numRuns: Math.max(numRuns, 3000) },
    );
  });

  it('hash:ip,port: the address as save prints it; the zero address refused', () => {
    fc.assert(
      fc.property(spelled, fc.integer({ min: 0, max: 65535 }), ({ groups, text }, port) => {
        const input = `${text},udp:${port}`;
        if (groups.every((g) => g === 0)) {
          expect(() => canonicalMember('hash:ip,port', input, 'inet6')).toThrow(/zero address/);
          return;
        }
        expect(canonicalMember('hash:ip,port', input, 'inet6')).toBe(`${reference(groups, 128)},udp:${port}`);
      }),
      { numRuns: Math.max(numRuns, 3000) },
    );
  });
});
