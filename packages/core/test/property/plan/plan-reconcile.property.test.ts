/**
 * planReconcile against a small model of ipset 7.17 (with -exist, references from
 * lists and from "iptables"): for random kernel states and desired states, the plan
 * runs through a restore session and
 * - foreign sets are untouched,
 * - every desired set ends with the desired type and members, unless the planner
 *   reported it (or a list member of it) as a referenced type conflict,
 * - every owned set that is not desired is gone unless the planner reported it as
 *   referenced,
 * - no line fails except lines that involve a reported type conflict.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryKey } from '../../../src/model/members.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { PreparedDesiredState } from '../../../src/plan/reconcile-validate.js';
import { runRestoreSession } from '../../../src/session/session.js';
import type { CommandResult, CreateSpec, DesiredSet, DesiredState, IpsetPort, SavedSet, SetHeader } from '../../../src/types.js';
import { MSG, lineError, ok } from '../../helpers/scripted-port.js';
import { savedSet } from '../../../src/parse/saved-members.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 300;
const params = { numRuns };

const OWNER = 'azure-npm-';
const OWNED = ['azure-npm-o1', 'azure-npm-o2', 'azure-npm-o3', 'azure-npm-o4', 'azure-npm-o5', 'azure-npm-o6'];
const FOREIGN = ['kube-f1', 'x-azure-npm-f2', 'cali-f3'];

// ---------------------------------------------------------------------------
// Model

interface KSet {
  type: 'hash:net' | 'hash:ip,port' | 'list:set';
  /** Create options as `ipset save` prints them after the type. */
  options: string;
  /** Hash sets: entry key → canonical member (with nomatch); lists: name → name, in order. */
  members: Map<string, string>;
}
interface Kernel {
  sets: Map<string, KSet>;
  /** iptables-style references. */
  external: Map<string, number>;
}

const NET = 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1';
const CIDR = 'family inet hashsize 1024 maxelem 4294967295 bucketsize 12 initval 0x1';

function clone(k: Kernel): Kernel {
  const sets = new Map<string, KSet>();
  for (const [n, s] of k.sets) sets.set(n, { ...s, members: new Map(s.members) });
  return { sets, external: new Map(k.external) };
}

function refs(k: Kernel, name: string): number {
  let n = k.external.get(name) ?? 0;
  for (const s of k.sets.values()) if (s.type === 'list:set' && s.members.has(name)) n++;
  return n;
}

function specOf(spec: string): { type: KSet['type']; options: string } {
  if (spec === 'setlist') return { type: 'list:set', options: 'size 8' };
  if (spec === 'hash:ip,port') return { type: 'hash:ip,port', options: NET };
  const maxelem = / maxelem (\d+)/.exec(spec)?.[1];
  return { type: 'hash:net', options: maxelem === undefined ? NET : NET.replace('maxelem 65536', `maxelem ${maxelem}`) };
}

type Outcome = { ok: true } | { ok: false; side: 'kernel' | 'userspace'; message: string };

/** One restore line against `k` (ipset -exist semantics), or the error it raises. */
function run(k: Kernel, text: string): Outcome {
  const [flag, name = '', ...rest] = text.split(' ');
  const set = k.sets.get(name);
  switch (flag) {
    case '-N': {
      const want = specOf(rest.slice(1).join(' '));
      if (set === undefined) {
        k.sets.set(name, { ...want, members: new Map() });
        return { ok: true };
      }
      // hashsize is not compared; everything else of these fixtures is.
      const norm = (o: string): string => o.replace(/hashsize \d+ /, '');
      if (set.type !== want.type || norm(set.options) !== norm(want.options)) {
        return { ok: false, side: 'kernel', message: MSG.setExists };
      }
      return { ok: true };
    }
    case '-A':
    case '-D': {
      const member = rest.join(' ');
      if (set === undefined) return { ok: false, side: 'userspace', message: MSG.setMissing };
      if (set.type === 'list:set') {
        const m = k.sets.get(member);
        if (m === undefined) return { ok: false, side: 'kernel', message: MSG.memberMissing };
        if (flag === '-A' && m.type === 'list:set') return { ok: false, side: 'kernel', message: 'Sets with list:set type cannot be added to the set.' };
        if (flag === '-A') set.members.set(member, member);
        else set.members.delete(member);
        return { ok: true };
      }
      const isPort = member.includes(',');
      if (isPort !== (set.type === 'hash:ip,port')) {
        return { ok: false, side: 'userspace', message: `Syntax error: cannot parse ${member}: resolving to IPv4 address failed` };
      }
      if (flag === '-A') set.members.set(entryKey(member), member);
      else set.members.delete(entryKey(member));
      return { ok: true };
    }
    case '-F':
      if (set === undefined) return { ok: false, side: 'kernel', message: MSG.setMissing };
      set.members.clear();
      return { ok: true };
    case '-W': {
      // Contents swap; names and references stay (ipset 7.17, measured).
      const other = k.sets.get(rest[0] ?? '');
      if (set === undefined) return { ok: false, side: 'kernel', message: MSG.setMissing };
      if (other === undefined) return { ok: false, side: 'kernel', message: 'Sets cannot be swapped: the second set does not exist' };
      if ((set.type === 'list:set') !== (other.type === 'list:set') || set.type !== other.type) {
        return { ok: false, side: 'kernel', message: 'The sets cannot be swapped: their type does not match' };
      }
      k.sets.set(name, other);
      k.sets.set(rest[0]!, set);
      return { ok: true };
    }
    case '-X':
      if (set === undefined) return { ok: true };
      if (refs(k, name) > 0) return { ok: false, side: 'kernel', message: MSG.inUse };
      k.sets.delete(name);
      return { ok: true };
    default:
      throw new Error(`model: unexpected line ${JSON.stringify(text)}`);
  }
}

/** `ipset -exist restore` over the model, with the batch loss of userspace errors. */
function restore(k: Kernel, text: string): CommandResult {
  const lines = text.split('\n').filter((l) => l !== '');
  const probe = clone(k);
  for (let p = 0; p < lines.length; p++) {
    const r = run(probe, lines[p]!);
    if (r.ok) continue;
    let stop = p;
    if (r.side === 'userspace' && p > 0) {
      const key = (l: string): string => l.split(' ').slice(0, 2).join(' ');
      const last = lines[p - 1]!;
      if (last.startsWith('-A ') || last.startsWith('-D ')) {
        stop = p - 1;
        while (stop > 0 && key(lines[stop - 1]!) === key(last)) stop--;
      }
    }
    for (let i = 0; i < stop; i++) run(k, lines[i]!);
    return lineError(p + 1, r.message);
  }
  for (const l of lines) run(k, l);
  return ok();
}

function save(k: Kernel): SavedSet[] {
  // Save order: non-list sets first, then lists (docs/ipset-semantics.md §5.3); insertion order otherwise.
  const all = [...k.sets.entries()];
  const ordered = [...all.filter(([, s]) => s.type !== 'list:set'), ...all.filter(([, s]) => s.type === 'list:set')];
  return ordered.map(([name, s]) => savedSet(name, s.type, s.options, [...s.members.values()]));
}

function headers(k: Kernel): SetHeader[] {
  return save(k).map((s) => ({ name: s.name, type: s.type, header: s.options, entries: s.members.length, references: refs(k, s.name) }));
}

function modelPort(k: Kernel): IpsetPort {
  return {
    restore: async (text) => restore(k, text),
    save: async () => ok(),
    listNames: async () => ok(),
    listHeaders: async () => ok(),
  };
}

// ---------------------------------------------------------------------------
// Arbitraries

const NET_KEYS: [canonical: string, variant: string][] = [
  ['10.0.0.1', '10.0.0.1/32'],
  ['10.0.0.0/8', '10.1.2.3/8'],
  ['10.2.0.0/16', '10.2.0.0/16'],
  ['192.168.1.0/24', '192.168.1.77/24'],
];
const PORT_KEYS: [string, string][] = [
  ['10.0.0.1,tcp:80', '10.0.0.1,80'],
  ['10.0.0.2,udp:53', '10.0.0.2,udp:53'],
];

type Kind = 'net' | 'cidr' | 'port' | 'list';

const hashMembers = (kind: 'net' | 'cidr' | 'port', canonicalOnly: boolean): fc.Arbitrary<string[]> =>
  fc
    .subarray(kind === 'port' ? PORT_KEYS : NET_KEYS)
    .chain((keys) =>
      fc.tuple(...keys.map(([c, v]) => fc.tuple(fc.boolean(), fc.boolean()).map(([variant, nomatch]) => {
        const text = canonicalOnly || !variant ? c : v;
        return kind !== 'port' && nomatch ? `${text} nomatch` : text;
      }))),
    );

interface World {
  kernel: Kernel;
  desired: DesiredState;
}

const kernelSetArb = fc.record({
  exists: fc.boolean(),
  kind: fc.constantFrom<Kind>('net', 'cidr', 'port', 'list'),
  odd: fc.constantFrom('none', 'none', 'none', 'inet6', 'timeout', 'size16'),
  external: fc.constantFrom(0, 0, 0, 1),
  seed: fc.nat(1000),
});

const worldArb: fc.Arbitrary<World> = fc
  .record({
    kernel: fc.array(kernelSetArb, { minLength: OWNED.length + FOREIGN.length, maxLength: OWNED.length + FOREIGN.length }),
    desired: fc.array(
      fc.record({ wanted: fc.boolean(), kind: fc.constantFrom<Kind>('net', 'cidr', 'port', 'list'), pick: fc.nat(1000) }),
      { minLength: OWNED.length, maxLength: OWNED.length },
    ),
    hashMembers: fc.array(hashMembers('net', true), { minLength: 12, maxLength: 12 }),
    portMembers: fc.array(hashMembers('port', true), { minLength: 12, maxLength: 12 }),
    desiredNet: fc.array(hashMembers('net', false), { minLength: 6, maxLength: 6 }),
    desiredPort: fc.array(hashMembers('port', false), { minLength: 6, maxLength: 6 }),
  })
  .map(({ kernel: ks, desired: ds, hashMembers: hm, portMembers: pm, desiredNet, desiredPort }) => {
    const names = [...OWNED, ...FOREIGN];
    const k: Kernel = { sets: new Map(), external: new Map() };
    // Hash sets first so that lists can hold them.
    const order = names.map((n, i) => ({ n, s: ks[i]! })).sort((a, b) => Number(a.s.kind === 'list') - Number(b.s.kind === 'list'));
    for (const [i, { n, s }] of order.entries()) {
      if (!s.exists) continue;
      const type = s.kind === 'list' ? 'list:set' : s.kind === 'port' ? 'hash:ip,port' : 'hash:net';
      let options = s.kind === 'list' ? 'size 8' : s.kind === 'cidr' ? CIDR : NET;
      if (s.odd === 'inet6' && type !== 'list:set') options = options.replace('family inet', 'family inet6');
      if (s.odd === 'timeout' && type !== 'list:set') options += ' timeout 0';
      if (s.odd === 'size16' && type === 'list:set') options = 'size 16';
      const members = new Map<string, string>();
      if (type === 'list:set') {
        const candidates = [...k.sets.entries()].filter(([, x]) => x.type !== 'list:set').map(([m]) => m);
        for (const [j, m] of candidates.entries()) if ((s.seed >> j) & 1) members.set(m, m);
      } else {
        for (const m of (type === 'hash:ip,port' ? pm : hm)[i % 12]!) members.set(entryKey(m), m);
      }
      k.sets.set(n, { type, options, members });
      if (s.external > 0) k.external.set(n, s.external);
    }
    const sets: DesiredSet[] = [];
    const hashNames: string[] = [];
    OWNED.forEach((name, i) => {
      const d = ds[i]!;
      if (d.wanted && d.kind !== 'list') hashNames.push(name);
    });
    OWNED.forEach((name, i) => {
      const d = ds[i]!;
      if (!d.wanted) return;
      const spec: CreateSpec = d.kind === 'list' ? 'setlist' : d.kind === 'port' ? 'hash:ip,port' : d.kind === 'cidr' ? 'nethash maxelem 4294967295' : 'nethash';
      const members =
        d.kind === 'list'
          ? hashNames.filter((_, j) => (d.pick >> j) & 1)
          : d.kind === 'port'
            ? desiredPort[i]!
            : desiredNet[i]!;
      sets.push({ name, spec, members });
    });
    return { kernel: k, desired: { owner: OWNER, sets } };
  });

// ---------------------------------------------------------------------------

describe('planReconcile properties (model kernel)', () => {
  it('converges every unreported owned set, never touches foreign sets, fails only on reported conflicts', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, async ({ kernel, desired }) => {
        const before = save(kernel);
        const plan = planReconcile(desired, { sets: before, problems: [] }, headers(kernel));
        const report = await runRestoreSession(plan, modelPort(kernel), { maxAttempts: plan.lines.length + 1 });
        const after = new Map(save(kernel).map((s) => [s.name, s]));
        const notes = plan.notes ?? [];
        const conflicted = new Set(notes.filter((n) => n.kind === 'type-conflict-referenced').map((n) => n.set));
        const kept = new Set(notes.filter((n) => n.kind === 'referenced-not-destroyed').map((n) => n.set));

        // Foreign sets: byte-identical.
        for (const s of before) if (!s.name.startsWith(OWNER)) expect(after.get(s.name)).toEqual(s);
        for (const line of plan.lines) expect(line.set.startsWith(OWNER)).toBe(true);

        // Desired sets reach their state, unless they (or a member of a list) are a reported conflict.
        for (const d of desired.sets) {
          if (conflicted.has(d.name)) continue;
          if (d.spec === 'setlist' && d.members.some((m) => conflicted.has(m))) continue;
          const got = after.get(d.name);
          expect(got, `desired set ${d.name}`).toBeDefined();
          const want = specOf(d.spec);
          expect(got!.type).toBe(want.type);
          expect(got!.options).toBe(want.options);
          const canonical = (m: string): string => {
            const entry = [...NET_KEYS, ...PORT_KEYS].find(([c, v]) => entryKey(m) === c || entryKey(m) === v);
            return entry === undefined ? m : entry[0] + (m.endsWith(' nomatch') ? ' nomatch' : '');
          };
          const wantMembers = d.spec === 'setlist' ? [...d.members] : d.members.map(canonical);
          expect([...got!.members].sort()).toEqual(wantMembers.sort());
        }

        // Undesired owned sets are gone unless reported.
        const wanted = new Set(desired.sets.map((s) => s.name));
        for (const s of before) {
          if (!s.name.startsWith(OWNER) || wanted.has(s.name)) continue;
          if (kept.has(s.name)) {
            // Left exactly as it was: not flushed.
            expect(after.get(s.name)).toEqual(s);
          } else {
            expect(after.has(s.name), `undesired set ${s.name}`).toBe(false);
          }
        }

        // The only lines that may fail involve a reported conflict (a list adding a conflicting set).
        for (const sk of report.skipped) {
          const line = plan.lines[sk.index]!;
          expect(conflicted.has(line.set) || (line.member !== undefined && conflicted.has(line.member)), sk.text).toBe(true);
        }
        expect(report.fatal).toBeUndefined();
        if (conflicted.size === 0) expect(report.converged).toBe(true);
        // A reported conflict is a failed set in the report.
        for (const c of conflicted) expect(report.failedSets).toContain(c);
        for (const kk of kept) expect(report.inUseSets).toContain(kk);
      }),
      params,
    );
  });

  it('a prepared desired state plans what the plain state plans, before and after the kernel changes', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, async ({ kernel, desired }) => {
        const prepared = new PreparedDesiredState(desired);
        for (let round = 0; round < 2; round++) {
          const plain = planReconcile(desired, { sets: save(kernel), problems: [] }, headers(kernel));
          const reused = planReconcile(prepared, { sets: save(kernel), problems: [] }, headers(kernel));
          expect(reused.lines).toEqual(plain.lines);
          expect(reused.notes).toEqual(plain.notes);
          await runRestoreSession(plain, modelPort(kernel), { maxAttempts: plain.lines.length + 1 });
        }
      }),
      params,
    );
  });

  it('a second reconcile of the result plans nothing but the reported leftovers', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, async ({ kernel, desired }) => {
        const first = planReconcile(desired, { sets: save(kernel), problems: [] }, headers(kernel));
        await runRestoreSession(first, modelPort(kernel), { maxAttempts: first.lines.length + 1 });
        const second = planReconcile(desired, { sets: save(kernel), problems: [] }, headers(kernel));
        const conflicted = new Set((second.notes ?? []).filter((n) => n.kind === 'type-conflict-referenced').map((n) => n.set));
        for (const line of second.lines) {
          expect(conflicted.has(line.set) || (line.member !== undefined && conflicted.has(line.member)), JSON.stringify(line)).toBe(true);
        }
      }),
      params,
    );
  });
});
