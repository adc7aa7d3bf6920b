/**
 * The numeric path against the string path on the manager's own plans. The manager
 * keeps IPv4 hosts as numbers and the apply planner hands a set of plain hosts to the
 * renderer as numbers; random histories of adds and removes over hash:net, cidr,
 * ip,port and list sets, with hostile members (non-canonical spellings, nomatch,
 * IPv6 and IPv4-mapped addresses routed to inet6 siblings, members of the wrong
 * grammar), must render exactly the text the same plan's lines give as plain line
 * objects, and each set's add lines must be the members the manager reports for it,
 * in its order. The manager's desired state hands a set of plain hosts out as numbers
 * too (a HostSet): reconciled against random kernels, it must plan exactly what the
 * same state as plain objects plans, prepared or not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply } from '../../../src/plan/plan-apply.js';
import { HostRun, planPieces } from '../../../src/plan/line-runs.js';
import { renderRestore } from '../../../src/session/render.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { PreparedDesiredState } from '../../../src/plan/reconcile-validate.js';
import { parseListHeaders } from '../../../src/parse/list-parser.js';
import { parseSave } from '../../../src/parse/save-parser.js';
import { HostSet } from '../../../src/model/host-set.js';
import type { DesiredSet, DesiredState, RestorePlan, SetMetadata } from '../../../src/types.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 60;

const HASH_SETS: SetMetadata[] = [
  { name: 'app:web', type: 'keyValueLabelOfPod' },
  { name: 'prod', type: 'namespace' },
  { name: 'c1', type: 'cidrBlocks' },
  { name: 'http', type: 'namedPorts' },
];
const LIST: SetMetadata = { name: 'team:a', type: 'keyValueLabelOfNamespace' };

const host = fc.nat(299).map((n) => `10.0.${n >>> 8}.${n & 255}`);
const hostile = fc.constantFrom(
  '10.0.0.1/32',
  '10.0.0.7 nomatch',
  '010.0.0.1',
  '10.0.0.0/24',
  '10.1.0.0/16 nomatch',
  '256.0.0.1',
  '10.0.0.1,tcp:80',
  '10.0.0.2,udp:53',
  'fe80::1',
  '2001:db8::/64',
  '::ffff:10.0.0.1',
  '10.0.0.1\n-F',
  '',
);
const memberArb = fc.oneof({ weight: 12, arbitrary: host }, { weight: 2, arbitrary: hostile });

type Step = { add: boolean; sets: number[]; member: string; pod: number } | { list: number[] };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.record({
      add: fc.nat(3).map((n) => n > 0),
      sets: fc.uniqueArray(fc.nat(HASH_SETS.length - 1), { minLength: 1, maxLength: 3 }),
      member: memberArb,
      pod: fc.nat(2),
    }),
  },
  { weight: 1, arbitrary: fc.record({ list: fc.uniqueArray(fc.nat(HASH_SETS.length - 2), { minLength: 1, maxLength: 2 }) }) },
);

function replay(steps: readonly Step[]): IPSetManager {
  const m = new IPSetManager();
  for (const step of steps) {
    try {
      if ('list' in step) m.addToLists([LIST], step.list.map((i) => HASH_SETS[i]!));
      else if (step.add) m.addToSets(step.sets.map((i) => HASH_SETS[i]!), step.member, `ns/pod-${step.pod}`);
      else m.removeFromSets(step.sets.map((i) => HASH_SETS[i]!), step.member, `ns/pod-${step.pod}`);
    } catch (error) {
      // A refused call changes nothing; the history goes on.
      if (!isIpsetsError(error)) throw error;
    }
  }
  return m;
}

/** The plan as plain line objects: rendered through the string path, line by line. */
const plain = (plan: RestorePlan): RestorePlan => ({ lines: plan.lines.map((l) => ({ ...l })) });

describe('the numeric path is the string path on the manager’s plans', () => {
  it('renders the text of the plan’s lines, and each set’s add lines are its members in order', () => {
    let numeric = 0;
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 80, maxLength: 600 }), (steps) => {
        const m = replay(steps);
        const plan = planApply(m);
        numeric += (planPieces(plan) ?? []).filter((p) => p instanceof HostRun).length;
        const text = renderRestore(plan);
        expect(text).toBe(renderRestore(plain(plan)));
        const added = new Map<string, string[]>();
        for (const line of text.split('\n')) {
          const match = /^-A (\S+) (.*)$/.exec(line);
          if (match !== null) (added.get(match[1]!) ?? added.set(match[1]!, []).get(match[1]!)!).push(match[2]!);
        }
        for (const name of m.dirtySets().map((d) => d.name)) {
          const set = m.getIPSet(name);
          if (set === undefined || set.kind !== 'set' || set.members.length === 0) continue;
          expect(added.get(set.kernelName)).toEqual(set.members);
        }
      }),
      { numRuns },
    );
    // Most histories leave a set of plain hosts: the numbers were rendered.
    expect(numeric).toBeGreaterThan(numRuns / 2);
  });
});

/** `desired` as plain objects: every set's fields copied, members as a plain array (the string path). */
const plainState = (desired: DesiredState): DesiredState => ({
  owner: desired.owner,
  sets: desired.sets.map((set): DesiredSet => ({ ...set, members: [...set.members] })),
});

/**
 * A kernel for `desired`: each set either missing or saved with some of its members,
 * some of another set's, foreign members and nomatch spellings; and a foreign set.
 */
function kernelFor(desired: DesiredState, picks: readonly number[]): string {
  let save = '';
  const pick = (i: number): number => picks[i % picks.length]!;
  desired.sets.forEach((set, s) => {
    if (pick(s) % 5 === 0) return;
    const type = set.spec.startsWith('nethash') ? 'hash:net' : set.spec.startsWith('hash:ip,port') ? 'hash:ip,port' : 'list:set';
    const family = set.spec.includes('inet6') ? 'inet6' : 'inet';
    save += type === 'list:set' ? `create ${set.name} list:set size 8\n` : `create ${set.name} ${type} family ${family} hashsize 1024 maxelem 65536\n`;
    set.members.forEach((m, i) => {
      const p = pick(s + i);
      if (p % 4 === 0) return;
      save += `add ${set.name} ${type === 'hash:net' && p % 7 === 0 && !m.endsWith(' nomatch') ? `${m} nomatch` : m}\n`;
    });
    if (type === 'hash:net' && family === 'inet') for (let k = 0; k < pick(s) % 6; k++) save += `add ${set.name} 10.200.${s}.${k}\n`;
  });
  save += 'create azure-npm-gone hash:net family inet hashsize 1024 maxelem 65536\nadd azure-npm-gone 10.0.0.1\n';
  return save;
}

describe('a manager\u2019s desired sets of hosts as numbers reconcile as their strings do', () => {
  it('plans the same text as the state as plain objects, prepared or not, against random kernels', () => {
    let numeric = 0;
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 80, maxLength: 400 }), fc.array(fc.nat(1000), { minLength: 1, maxLength: 16 }), (steps, picks) => {
        const m = replay(steps);
        const desired = m.desiredState();
        numeric += desired.sets.filter((set) => HostSet.hostsOf(set) !== undefined).length;
        const snapshot = parseSave(kernelFor(desired, picks));
        const headers = parseListHeaders(
          snapshot.sets.map((set) => `Name: ${set.name}\nType: ${set.type}\nReferences: 0\nNumber of entries: ${set.members.length}\n`).join(''),
        );
        const expected = renderRestore(planReconcile(plainState(desired), snapshot, headers));
        expect(renderRestore(planReconcile(desired, snapshot, headers))).toBe(expected);
        const prepared = new PreparedDesiredState(desired);
        expect(renderRestore(planReconcile(prepared, snapshot, headers))).toBe(expected);
        // Prepared again from itself (every set reused) and read as a plain state: the same sets.
        expect(renderRestore(planReconcile(new PreparedDesiredState(m.desiredState(), prepared), snapshot, headers))).toBe(expected);
        expect(JSON.parse(JSON.stringify(desired))).toEqual(JSON.parse(JSON.stringify(plainState(desired))));
      }),
      { numRuns },
    );
    expect(numeric).toBeGreaterThan(numRuns / 2);
  });
});
