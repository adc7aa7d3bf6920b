/**
 * Core's canonical member forms against the real kernel: thousands of random members
 * of hash:net and hash:ip,port sets of both families, written in many spellings
 * (IPv6: either case, leading zeros in groups, any zero run compressed or none, a
 * dotted IPv4 tail, brackets, host bits, `/128`; IPv4: host bits, `/32`, default
 * protocol), are added as spelled with `ipset restore` inside a throwaway namespace.
 * What `ipset save` prints must be exactly the set of `canonicalMember` results:
 * this is what lets a resync compare desired and kernel members as strings.
 *
 * IPSETS_CANONICAL_MEMBERS sets the number of members per set (default 2000).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalMember, entryKey } from '@ipsets/core';
import type { AddressFamily, MemberKind } from '@ipsets/core';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';

const COUNT = Number(process.env['IPSETS_CANONICAL_MEMBERS']) || 2000;
const seed = Number(process.env['FC_SEED']) || Math.floor(Math.random() * 2 ** 31);
console.log(`member-canonical: FC_SEED=${seed} members per set=${COUNT}`);

/** Groups biased towards zeros and zero runs, where the printing rules differ. */
const group = fc.oneof(
  { weight: 5, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 15 }) },
  { weight: 1, arbitrary: fc.constant(0xffff) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
);

/** Eight groups; sometimes shaped as the IPv4-compatible or IPv4-mapped addresses glibc prints dotted. */
const groups6 = fc.oneof(
  { weight: 6, arbitrary: fc.array(group, { minLength: 8, maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(0, 0xffff, 1), group, group)
      .map(([g5, g6, g7]) => [0, 0, 0, 0, 0, g5, g6, g7]),
  },
);

function spellGroup(value: number, padTo: number, upper: boolean): string {
  const hex = value.toString(16).padStart(padTo, '0');
  return upper ? hex.toUpperCase() : hex;
}

/** Any inet_pton spelling of `g`: optional compression of one zero run, padding, case, dotted tail. */
const spelled6 = groups6.chain((g) =>
  fc
    .record({
      pad: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 8, maxLength: 8 }),
      upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      compress: fc.nat(),
      dotted: fc.boolean(),
      bracket: fc.integer({ min: 0, max: 9 }),
    })
    .map(({ pad, upper, compress, dotted, bracket }) => {
      const parts = g.map((v, i) => spellGroup(v, pad[i]!, upper[i]!));
      const words = dotted ? parts.slice(0, 6) : parts;
      if (dotted) words.push(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
      // The zero runs of the spelled words (the dotted tail is one word here, never compressed).
      const runs: [number, number][] = [];
      for (let i = 0; i < words.length; ) {
        if (/^0+$/.test(words[i]!) && !(dotted && i === 6)) {
          let j = i;
          while (j < words.length && /^0+$/.test(words[j]!) && !(dotted && j === 6)) j++;
          for (let a = i; a < j; a++) for (let b = a + 1; b <= j; b++) runs.push([a, b]);
          i = j;
        } else i++;
      }
      let text: string;
      const pick = compress % (runs.length + 2);
      if (pick >= runs.length) text = words.join(':');
      else {
        const [a, b] = runs[pick]!;
        text = `${words.slice(0, a).join(':')}::${words.slice(b).join(':')}`;
      }
      return bracket === 0 ? `[${text}]` : text;
    }),
);

const octet = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 255 }), fc.constant(255));
const spelled4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));

const suffix = (max: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constant(`/${max}`) },
    { weight: 4, arbitrary: fc.integer({ min: 1, max }).map((n) => `/${n}`) },
  );

function netMember(family: AddressFamily): fc.Arbitrary<string> {
  return fc
    .tuple(family === 'inet6' ? spelled6 : spelled4, suffix(family === 'inet6' ? 128 : 32), fc.integer({ min: 0, max: 4 }))
    .map(([address, prefix, flag]) => `${address}${prefix}${flag === 0 ? ' nomatch' : ''}`);
}

function portMember(family: AddressFamily): fc.Arbitrary<string> {
  return fc
    .tuple(
      family === 'inet6' ? spelled6 : spelled4,
      fc.constantFrom('tcp:', 'udp:', 'sctp:', ''),
      fc.oneof(fc.integer({ min: 0, max: 65535 }), fc.constantFrom(0, 1, 80, 65535)),
    )
    .map(([address, proto, port]) => `${address},${proto}${port}`);
}

interface Case {
  set: string;
  create: string;
  kind: MemberKind;
  family: AddressFamily;
  arb: fc.Arbitrary<string>;
}

const CASES: readonly Case[] = [
  { set: 'net4', create: 'hash:net family inet', kind: 'hash:net', family: 'inet', arb: netMember('inet') },
  { set: 'net6', create: 'hash:net family inet6', kind: 'hash:net', family: 'inet6', arb: netMember('inet6') },
  { set: 'port4', create: 'hash:ip,port family inet', kind: 'hash:ip,port', family: 'inet', arb: portMember('inet') },
  { set: 'port6', create: 'hash:ip,port family inet6', kind: 'hash:ip,port', family: 'inet6', arb: portMember('inet6') },
];

describeKernel('canonical members equal what ipset save prints (real kernel)', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await createTestNamespace('h7-canonical');
  });
  afterAll(async () => {
    await ns?.dispose();
  });

  it.each(CASES)('$create: $kind members in random spellings', async ({ set, create, kind, family, arb }) => {
    const spellings = fc.sample(arb, { numRuns: COUNT, seed: seed + set.length });
    const byEntry = new Map<string, { spelled: string; canonical: string }>();
    let refused = 0;
    for (const spelled of spellings) {
      let canonical: string;
      try {
        canonical = canonicalMember(kind, spelled, family);
      } catch {
        refused += 1;
        continue;
      }
      // One spelling per kernel entry: a second add of the same entry with another
      // nomatch flag would make the outcome depend on -exist's replace rule.
      if (!byEntry.has(entryKey(canonical))) byEntry.set(entryKey(canonical), { spelled, canonical });
    }
    // Only the zero address (hash:ip,port) is generated that core refuses.
    expect(refused).toBeLessThan(COUNT / 10);
    const members = [...byEntry.values()];
    const text = [`create ${set} ${create} maxelem ${members.length + 16}`, ...members.map((m) => `add ${set} ${m.spelled}`)].join('\n');
    const restored = await ns.run(['ipset', '-exist', 'restore'], `${text}\n`);
    expect(restored.stderr).toBe('');
    expect(restored.exitCode).toBe(0);
    const saved = await ns.run(['ipset', 'save', set]);
    expect(saved.exitCode).toBe(0);
    const printed = saved.stdout
      .split('\n')
      .filter((l) => l.startsWith(`add ${set} `))
      .map((l) => l.slice(`add ${set} `.length))
      .sort();
    const expected = members.map((m) => m.canonical).sort();
    if (printed.join('\n') !== expected.join('\n')) {
      const printedSet = new Set(printed);
      const wrong = members.filter((m) => !printedSet.has(m.canonical)).slice(0, 10);
      throw new Error(
        `canonical forms differ from ipset save for ${create} (FC_SEED=${seed}):\n` +
          wrong.map((m) => `  spelled ${JSON.stringify(m.spelled)} → core ${JSON.stringify(m.canonical)}`).join('\n') +
          `\n  save printed (first unmatched): ${printed.filter((p) => !expected.includes(p)).slice(0, 10).join(' | ')}`,
      );
    }
    expect(printed.length).toBe(members.length);
  }, 120_000);
});
