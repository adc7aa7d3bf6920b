/**
 * The manager's intern pools: on while lookups find their strings, off (sampled values
 * only) while they do not, and no string kept that no set holds after a rebuild.
 */
import { describe, expect, it } from 'vitest';
import { IPSet } from '../../../src/manager/set-record.js';
import { StringPool, isSampled } from '../../../src/manager/string-pool.js';
import { setTypeInfo } from '../../../src/model/set-types.js';

const ip = (n: number): string => `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
const podKey = (n: number): string => `ns-${n % 50}/pod-${n}`;
/** A member the manager keeps as text (an IPv6 host): IPv4 hosts are kept as numbers, never pooled. */
const member = (n: number): string => `fd00::${n.toString(16)}`;
/** A flat copy of `s` that shares nothing with it (as a parser hands out). */
const fresh = (s: string): string => [...s].join('');

function hashSet(name: string): IPSet {
  return new IPSet(name, name, 'keyValueLabelOfPod', setTypeInfo('keyValueLabelOfPod'), `k-${name}`);
}

/** A pool over one set, and a way to add a member the way the manager does (interned first). */
function fixture() {
  const set = hashSet('podlabel-a');
  const sets = new Map([[set.name, set]]);
  const members = new StringPool(sets, 'member');
  const pods = new StringPool(sets, 'podKey');
  const add = (value: string, pod: string): void => {
    const slot = set.hash!.slotOf(value);
    if (slot >= 0) set.hash!.setPod(slot, pods.intern(pod));
    else set.hash!.add(value, false, pods.intern(pod), (text) => members.intern(text));
  };
  const drop = (value: string): void => {
    const slot = set.hash!.slotOf(value);
    if (slot >= 0) set.hash!.remove(slot);
  };
  return { set, members, pods, add, drop };
}

describe('isSampled', () => {
  it('samples about one value in 64 of IPs and of pod keys, the same for every copy', () => {
    for (const make of [ip, podKey]) {
      let sampled = 0;
      let copiesDiffer = 0;
      for (let n = 0; n < 64_000; n++) {
        const value = make(n);
        const yes = isSampled(value);
        if (isSampled(fresh(value)) !== yes) copiesDiffer++;
        if (yes) sampled++;
      }
      expect(copiesDiffer).toBe(0);
      expect(sampled).toBeGreaterThan(700);
      expect(sampled).toBeLessThan(1300);
    }
  });

  it('takes the share of values it is told (one in 2^bits)', () => {
    let sampled = 0;
    for (let n = 0; n < 10_000; n++) if (isSampled(ip(n), 1)) sampled++;
    expect(sampled).toBeGreaterThan(4500);
    expect(sampled).toBeLessThan(5500);
  });
});

describe('StringPool', () => {
  it('stays on when copies repeat, one entry per value however many copies came', () => {
    const { members, pods, add } = fixture();
    // 3,000 pods, each brought ten times as fresh copies.
    for (let round = 0; round < 10; round++) for (let n = 0; n < 3000; n++) add(fresh(member(n)), fresh(podKey(n)));
    for (const pool of [members, pods]) {
      expect(pool.stats().on).toBe(true);
      expect(pool.stats().size).toBe(3000);
    }
  });

  it('turns itself off when no value repeats, keeping only the sampled values', () => {
    const { members, pods, add } = fixture();
    const count = 100_000;
    for (let n = 0; n < count; n++) add(fresh(member(n)), fresh(podKey(n)));
    for (const [pool, make] of [
      [members, member],
      [pods, podKey],
    ] as const) {
      expect(pool.stats().on).toBe(false);
      let sampled = 0;
      for (let n = 0; n < count; n++) {
        const value = make(n);
        if (isSampled(value)) {
          sampled++;
          expect(pool.holds(value)).toBe(true);
        }
      }
      // Only the sampled values, and none of the others.
      expect(pool.stats().size).toBe(sampled);
      expect(sampled).toBeLessThan(count / 32);
    }
  });

  it('turns on again when values start repeating', () => {
    const { members, add } = fixture();
    for (let n = 0; n < 50_000; n++) add(fresh(member(n)), 'p');
    expect(members.stats().on).toBe(false);
    // The same 2,000 members again and again (an agent re-reading its pods).
    for (let round = 0; round < 40; round++) for (let n = 0; n < 2000; n++) members.intern(fresh(member(n)));
    expect(members.stats().on).toBe(true);
    expect(members.holds(member(1999))).toBe(true);
  });

  it('drops at its rebuild the strings no set holds any more', () => {
    const { members, add, drop } = fixture();
    for (let n = 0; n < 1000; n++) add(fresh(member(n)), 'p');
    for (let n = 0; n < 1000; n++) drop(member(n));
    members.noteDropped(1000);
    const rebuilds = members.stats().rebuilds;
    // Enough new strings to rebuild: the first 1,000 are held by no set by then.
    for (let n = 1000; n < 4000; n++) add(fresh(member(n)), 'p');
    expect(members.stats().rebuilds).toBeGreaterThan(rebuilds);
    for (let n = 0; n < 1000; n++) expect(members.holds(member(n))).toBe(false);
    expect(members.holds(member(3999))).toBe(true);
  });

  it('does not walk the sets while nothing was dropped (a state only growing holds no dead string)', () => {
    const { members, pods, add } = fixture();
    for (let round = 0; round < 5; round++) for (let n = 0; n < 10_000; n++) add(fresh(member(n)), fresh(podKey(n)));
    for (const pool of [members, pods]) expect(pool.stats()).toMatchObject({ on: true, size: 10_000, rebuilds: 0 });
  });

  it('walks the sets once the dropped holders reach a quarter of the pool, and keeps what they hold', () => {
    const { members, add, drop } = fixture();
    for (let n = 0; n < 2000; n++) add(fresh(member(n)), 'p');
    // A few drops: not worth a walk when the pool is next due.
    drop(member(0));
    members.noteDropped();
    for (let n = 2000; n < 4000; n++) add(fresh(member(n)), 'p');
    expect(members.stats().rebuilds).toBe(0);
    expect(members.holds(member(0))).toBe(true);
    for (let n = 1; n < 3000; n++) drop(member(n));
    members.noteDropped(2999);
    for (let n = 4000; n < 9000; n++) add(fresh(member(n)), 'p');
    expect(members.stats().rebuilds).toBe(1);
    for (const n of [0, 1, 2999]) expect(members.holds(member(n))).toBe(false);
    for (const n of [3000, 3999, 8999]) expect(members.holds(member(n))).toBe(true);
  });

  it('starts over on clear', () => {
    const { members, add } = fixture();
    for (let n = 0; n < 50_000; n++) add(fresh(member(n)), 'p');
    members.clear();
    expect(members.stats()).toMatchObject({ on: true, size: 0, rate: 1, sampledLookups: 0 });
  });
});
