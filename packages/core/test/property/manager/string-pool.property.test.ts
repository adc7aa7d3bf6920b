/**
 * Model-based test of the intern pool, with a tuning small enough that random runs
 * switch it on and off and rebuild it many times.
 *
 * Random sequences add members to three sets the way the manager does (the pool first,
 * fresh copies each time), remove them, and look values up. The model is plain Maps
 * and Sets of values: what each set holds, and the pool's hit-rate estimate computed
 * from the lookups of sampled values. After every step the pool must have handed back
 * an equal value, hold every sampled value a set holds, hold a value it just interned
 * exactly when it is on or the value is sampled, be on exactly when the model's estimate
 * is at least 1/2, and hold no value but those the sets held when it last dropped
 * strings and those it interned since.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IPSet } from '../../../src/manager/set-record.js';
import { StringPool, isSampled } from '../../../src/manager/string-pool.js';
import type { PoolKind, PoolTuning } from '../../../src/manager/string-pool.js';
import { setTypeInfo } from '../../../src/model/set-types.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 200;

const TUNING: PoolTuning = { sampleBits: 1, minWindow: 4, rebuildSlack: 3 };
// Members the manager keeps as text (IPv6 hosts): IPv4 hosts are kept as numbers and never pooled.
const VALUES = Array.from({ length: 64 }, (_, i) => `fd00::${i.toString(16)}`);
const SET_COUNT = 3;

/** A flat copy of `s` that shares nothing with it. */
const fresh = (s: string): string => [...s].join('');

type Step =
  | { op: 'add'; set: number; member: number; pod: number }
  | { op: 'remove'; set: number; member: number }
  | { op: 'lookup'; value: number }
  | { op: 'new' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('add' as const), set: fc.nat(SET_COUNT - 1), member: fc.nat(VALUES.length - 1), pod: fc.nat(VALUES.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('remove' as const), set: fc.nat(SET_COUNT - 1), member: fc.nat(VALUES.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('lookup' as const), value: fc.nat(7) }) },
);

/**
 * Runs of steps in phases: in a "fresh" phase every lookup is of a value never seen
 * before (misses: the pool turns off), in a "reread" phase every step looks up one of
 * eight values (hits: it turns on again), and "mixed" phases are as generated.
 */
const stepsArb: fc.Arbitrary<Step[]> = fc
  .array(fc.record({ phase: fc.constantFrom('fresh', 'reread', 'mixed'), steps: fc.array(stepArb, { maxLength: 60 }) }), { minLength: 1, maxLength: 8 })
  .map((phases) =>
    phases.flatMap(({ phase, steps }) =>
      steps.map((st, i): Step => {
        if (phase === 'fresh' && st.op === 'lookup') return { op: 'new' };
        if (phase === 'reread') return { op: 'lookup', value: i % 8 };
        return st;
      }),
    ),
  );

/** What the runs went through, over all of them. */
const seen = { off: 0, onAgain: 0, rebuilds: 0 };

function run(kind: PoolKind, steps: readonly Step[]): void {
  const sets = Array.from({ length: SET_COUNT }, (_, i) => new IPSet(`s${i}`, `s${i}`, 'keyValueLabelOfPod', setTypeInfo('keyValueLabelOfPod'), `k${i}`));
  const byName = new Map(sets.map((s) => [s.name, s]));
  const pool = new StringPool(byName, kind, TUNING);
  // The model: members → pod key of each set, the values interned since the last rebuild, the estimate.
  const model = sets.map(() => new Map<string, string>());
  let sinceRebuild = new Set<string>();
  let rebuilds = 0;
  let wasOff = false;
  let rate = 1;
  let lookups = 0;
  let hits = 0;
  const sampled = (v: string): boolean => isSampled(v, TUNING.sampleBits);
  const live = (): Set<string> => new Set(model.flatMap((m) => [...(kind === 'member' ? m.keys() : m.values())]));

  const intern = (value: string): string => {
    const liveBefore = live();
    const before = pool.holds(value);
    // An on pool counts every lookup (in windows 2^bits times as long), an off one the sampled values.
    const on = rate >= 0.5;
    const got = pool.intern(value);
    expect(got).toBe(value);
    if (on || sampled(value)) {
      lookups++;
      if (before) hits++;
      if (lookups >= (on ? TUNING.minWindow << TUNING.sampleBits : TUNING.minWindow)) {
        rate = (rate + hits / lookups) / 2;
        lookups = 0;
        hits = 0;
      }
    }
    const stats = pool.stats();
    if (stats.rebuilds !== rebuilds) {
      // A rebuild keeps at most what the sets held when it ran.
      seen.rebuilds += stats.rebuilds - rebuilds;
      rebuilds = stats.rebuilds;
      sinceRebuild = liveBefore;
    }
    sinceRebuild.add(value);
    if (!stats.on && !wasOff) seen.off++;
    if (stats.on && wasOff) seen.onAgain++;
    wasOff = !stats.on;
    expect(stats.on).toBe(rate >= 0.5);
    expect(pool.holds(value)).toBe(stats.on || sampled(value));
    return got;
  };

  let unseen = 0;
  for (const step of steps) {
    if (step.op === 'new') {
      // Looked up and not kept: a dropped holder, as the pool's contract asks.
      intern(`fd09::${unseen.toString(16)}`);
      pool.noteDropped();
      unseen++;
    } else if (step.op === 'add') {
      const set = sets[step.set]!;
      const member = fresh(VALUES[step.member]!);
      const pod = fresh(VALUES[step.pod]!);
      // As the manager: a pod key for every add, a member only when new to the set.
      const podCopy = kind === 'podKey' ? intern(pod) : pod;
      const slot = set.hash!.slotOf(member);
      if (slot < 0) set.hash!.add(member, false, podCopy, (text) => (kind === 'member' ? intern(text) : text));
      else {
        const old = set.hash!.podAt(slot);
        if (old !== pod && kind === 'podKey') pool.noteDropped();
        if (old !== pod) set.hash!.setPod(slot, podCopy);
      }
      model[step.set]!.set(member, pod);
    } else if (step.op === 'remove') {
      const members = sets[step.set]!.hash!;
      const slot = members.slotOf(VALUES[step.member]!);
      if (slot >= 0) {
        members.remove(slot);
        pool.noteDropped();
      }
      model[step.set]!.delete(VALUES[step.member]!);
    } else {
      intern(fresh(VALUES[step.value]!));
      pool.noteDropped();
    }
    const now = live();
    for (const v of now) if (sampled(v)) expect(pool.holds(v)).toBe(true);
    for (const v of VALUES) if (pool.holds(v)) expect(now.has(v) || sinceRebuild.has(v)).toBe(true);
    expect(pool.stats().size).toBeLessThanOrEqual(new Set([...now, ...sinceRebuild]).size);
    // The sets hold what the model says, in insertion order.
    sets.forEach((s, i) => {
      const held: [string, string][] = [];
      s.hash!.forEach((member, pod) => held.push([member, pod]));
      expect(held).toEqual([...model[i]!]);
    });
  }
}

describe('StringPool against a model', () => {
  for (const kind of ['member', 'podKey'] as const) {
    it(`${kind} pool: equal values back, sampled live values held, on exactly while the estimate is ≥ 1/2, no dead string past a rebuild`, () => {
      fc.assert(
        fc.property(stepsArb, (steps) => run(kind, steps)),
        { numRuns },
      );
    });
  }

  it('the runs above switched pools off, on again, and rebuilt them (the tuning reaches every transition)', () => {
    expect(seen.off).toBeGreaterThan(0);
    expect(seen.onAgain).toBeGreaterThan(0);
    expect(seen.rebuilds).toBeGreaterThan(0);
  });
});
