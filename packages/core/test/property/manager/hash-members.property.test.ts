/**
 * The manager's member table (IPv4 hosts as numbers, everything else as strings)
 * against the store it replaced: a `Map` of entry → pod key plus a set of the entries
 * that carry ` nomatch`. Random runs add, re-own, re-flag and remove members drawn from
 * a universe of hosts (many of them probing into each other's slots), CIDRs, ip,port
 * members and IPv6 addresses; after every step the table must hold what the Map holds,
 * in the Map's order (a removed member added again goes to the end, a re-flagged one
 * keeps its place), find exactly the Map's entries, and offer its hosts as numbers
 * exactly when every member is a plain host. Runs remove most members and compact
 * after a few dead slots, so the slots are compacted and the index made again often.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashMembers } from '../../../src/manager/hash-members.js';
import { formatIPv4 } from '../../../src/model/ipv4-host.js';
import { NOMATCH, hostValue } from '../../../src/model/members.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 150;

// Hosts that land close together in a small index (consecutive and strided
// addresses), a few far apart, and entries that are kept as text.
const HOSTS = [
  ...Array.from({ length: 48 }, (_, i) => formatIPv4(0x0a000000 + i)),
  ...Array.from({ length: 16 }, (_, i) => formatIPv4(0x0a000000 + i * 4096)),
  '0.0.0.0',
  '255.255.255.255',
  '192.168.1.1',
];
const TEXTS = ['10.0.0.0/24', '10.1.0.0/16', '10.0.0.1,tcp:80', '10.0.0.2,udp:53', 'fd00::1', '2001:db8::/64', '::ffff:10.0.0.1'];
const ENTRIES = [...HOSTS, ...TEXTS];
const PODS = ['p1', 'p2', 'ns-a/pod-3'];

type Step =
  | { op: 'add'; entry: number; nomatch: boolean; pod: number }
  | { op: 'remove'; entry: number }
  | { op: 'removeMany'; from: number; count: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('add' as const), entry: fc.nat(ENTRIES.length - 1), nomatch: fc.nat(6).map((n) => n === 0), pod: fc.nat(PODS.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('remove' as const), entry: fc.nat(ENTRIES.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('removeMany' as const), from: fc.nat(ENTRIES.length - 1), count: fc.integer({ min: 1, max: ENTRIES.length }) }) },
);

/** The old store: entry → pod key in insertion order, and the flagged entries. */
interface Model {
  readonly pods: Map<string, string>;
  readonly nomatch: Set<string>;
}

function apply(table: HashMembers, model: Model, step: Step, kept: string[]): void {
  const remove = (entry: string): void => {
    const slot = table.slotOf(entry);
    expect(slot >= 0).toBe(model.pods.has(entry));
    if (slot < 0) return;
    const wasText = table.remove(slot);
    expect(wasText).toBe(hostValue(entry) < 0);
    model.pods.delete(entry);
    model.nomatch.delete(entry);
  };
  if (step.op === 'add') {
    const entry = ENTRIES[step.entry]!;
    const pod = PODS[step.pod]!;
    const slot = table.slotOf(entry);
    if (slot < 0) {
      const text = table.add(entry, step.nomatch, pod, (t) => {
        kept.push(t);
        return t;
      });
      expect(text).toBe(hostValue(entry) < 0);
    } else {
      table.setPod(slot, pod);
      table.setNomatch(slot, step.nomatch);
    }
    model.pods.set(entry, pod);
    if (step.nomatch) model.nomatch.add(entry);
    else model.nomatch.delete(entry);
  } else if (step.op === 'remove') {
    remove(ENTRIES[step.entry]!);
  } else {
    for (let k = 0; k < step.count; k++) remove(ENTRIES[(step.from + k) % ENTRIES.length]!);
  }
}

function expectSame(table: HashMembers, model: Model): void {
  const expected = [...model.pods].map(([entry, pod]) => [model.nomatch.has(entry) ? entry + NOMATCH : entry, pod]);
  const held: string[][] = [];
  table.forEach((member, pod) => held.push([member, pod]));
  expect(held).toEqual(expected);
  const members: string[] = [];
  table.forEachMember((m) => members.push(m));
  expect(members).toEqual(expected.map(([m]) => m));
  expect(table.size).toBe(model.pods.size);
  expect(table.textCount).toBe([...model.pods.keys()].filter((e) => hostValue(e) < 0).length);
  for (const entry of ENTRIES) {
    const slot = table.slotOf(entry);
    expect(slot >= 0).toBe(model.pods.has(entry));
    if (slot >= 0) {
      expect(table.podAt(slot)).toBe(model.pods.get(entry));
      expect(table.nomatchAt(slot)).toBe(model.nomatch.has(entry));
      expect(table.memberAt(slot)).toBe(model.nomatch.has(entry) ? entry + NOMATCH : entry);
    }
  }
  const plain = [...model.pods.keys()].every((e) => hostValue(e) >= 0) && model.nomatch.size === 0;
  const hosts = table.plainHosts();
  if (!plain) expect(hosts).toBeUndefined();
  else expect([...hosts!].map(formatIPv4)).toEqual([...model.pods.keys()]);
  const pooledTexts: string[] = [];
  table.forEachPooled('member', (t) => pooledTexts.push(t));
  expect(pooledTexts.sort()).toEqual([...model.pods.keys()].filter((e) => hostValue(e) < 0).sort());
  const pooledPods: string[] = [];
  table.forEachPooled('podKey', (p) => pooledPods.push(p));
  expect(pooledPods).toEqual([...model.pods.values()]);
}

describe('HashMembers against a Map of entries', () => {
  it('holds the Map’s members, pod keys and flags in the Map’s order through adds, re-flags and removals', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 100, maxLength: 400 }), fc.constantFrom(1, 2, 8), (steps, minCompact) => {
        const table = new HashMembers(minCompact);
        const model: Model = { pods: new Map(), nomatch: new Set() };
        const kept: string[] = [];
        for (const step of steps) {
          apply(table, model, step, kept);
          expectSame(table, model);
        }
        // Only text entries were handed to `keep` (a host keeps no string).
        for (const t of kept) expect(hostValue(t)).toBeLessThan(0);
      }),
      { numRuns },
    );
  });

  it('keeps order and finds every host across many compactions of a large set', () => {
    const table = new HashMembers();
    const model: Model = { pods: new Map(), nomatch: new Set() };
    const keep = (t: string): string => t;
    // Waves: add 3,000 hosts, remove all but every tenth, add 3,000 more, … : the dead
    // outnumber the live after each removal, so the next adds compact.
    let next = 0;
    for (let wave = 0; wave < 6; wave++) {
      for (let k = 0; k < 3000; k++) {
        const entry = formatIPv4(0x0a000000 + ((next++ * 2654435761) >>> 8));
        if (table.slotOf(entry) >= 0) continue;
        table.add(entry, false, `p${wave}`, keep);
        model.pods.set(entry, `p${wave}`);
      }
      let i = 0;
      for (const entry of [...model.pods.keys()]) {
        if (i++ % 10 === 0) continue;
        table.remove(table.slotOf(entry));
        model.pods.delete(entry);
      }
    }
    expectSame(table, model);
  });
});
