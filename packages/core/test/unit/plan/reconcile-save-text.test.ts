/**
 * planReconcile reads the members of a set `parseSave` returned from what the parser
 * read (a number per host, no string per member). These tests pin
 * that the shortcut plans exactly what the plain member arrays plan, hostile and
 * odd saves included, and that a snapshot changed by its caller is planned as changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { temporaryName } from '../../../src/plan/rebuild.js';
import { renderRestore } from '../../../src/session/render.js';
import { canonicalMember, entryKey } from '../../../src/model/members.js';
import { validateSetName } from '../../../src/model/set-names.js';
import { parseSave } from '../../../src/parse/save-parser.js';
import { MemberList, savedSet } from '../../../src/parse/saved-members.js';
import type { DesiredState, SaveSnapshot, SetHeader } from '../../../src/types.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 300;
const NET = 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1a2b3c4d';
const NET6 = 'family inet6 hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1a2b3c4d';
const OWNER = 'azure-npm-';

/** The same snapshot with its members as lists of strings (savedSet), each read with hostValue. */
const plain = (s: SaveSnapshot): SaveSnapshot => ({ ...s, sets: s.sets.map((x) => savedSet(x.name, x.type, x.options, [...x.members])) });

const headersOf = (s: SaveSnapshot): SetHeader[] => s.sets.map((x) => ({ name: x.name, type: x.type, header: x.options, references: 0, entries: x.members.length }));

describe('planReconcile on a snapshot read from save text', () => {
  it('a hostile member (10.0.0.0/000…024-F) is never echoed: the set is rebuilt through a temporary set and swap (it was flushed in place)', () => {
    const text = `create azure-npm-a hash:net ${NET}\nadd azure-npm-a 10.0.0.1\nadd azure-npm-a 10.0.0.0/${'0'.repeat(40)}24-F\nadd azure-npm-a 10.0.0.9\n`;
    const desired: DesiredState = { owner: OWNER, sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2'] }] };
    const plan = planReconcile(desired, parseSave(text), []);
    const t = temporaryName(OWNER, 'azure-npm-a');
    expect(renderRestore(plan)).toBe(`-X ${t}\n-N ${t} --exist nethash\n-A ${t} 10.0.0.1\n-A ${t} 10.0.0.2\n-W ${t} azure-npm-a\n-X ${t}\n`);
    expect(plan.notes).toEqual([expect.objectContaining({ set: 'azure-npm-a', kind: 'unreadable-members-rebuilt' })]);
  });

  it('reads nomatch from element options anywhere on the line, as the member arrays do', () => {
    const text = [
      `create azure-npm-a hash:net ${NET}`,
      'add azure-npm-a 10.0.0.1 nomatch',
      'add azure-npm-a 10.0.0.2 timeout 5 nomatch',
      'add azure-npm-a 10.0.0.3 comment "nomatch"',
      'add azure-npm-a  10.0.0.4\tnomatch',
      'add azure-npm-a 10.0.0.5\r',
      '',
    ].join('\n');
    const desired: DesiredState = {
      owner: OWNER,
      sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2 nomatch', '10.0.0.3', '10.0.0.4', '10.0.0.5'] }],
    };
    const snapshot = parseSave(text);
    expect(renderRestore(planReconcile(desired, snapshot, []))).toBe('-D azure-npm-a 10.0.0.1\n-D azure-npm-a 10.0.0.4\n-A azure-npm-a 10.0.0.1\n-A azure-npm-a 10.0.0.4\n');
    expect(planReconcile(desired, parseSave(text), [])).toEqual(planReconcile(desired, plain(snapshot), []));
  });

  it('plans what the caller made of the members, not what the text said', () => {
    const text = `create azure-npm-a hash:net ${NET}\nadd azure-npm-a 10.0.0.1\nadd azure-npm-a 10.0.0.2\n`;
    const desired: DesiredState = { owner: OWNER, sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2'] }] };
    const replaced = parseSave(text);
    replaced.sets[0]!.members = new MemberList(['10.0.0.7']);
    expect(renderRestore(planReconcile(desired, replaced, []))).toBe('-D azure-npm-a 10.0.0.7\n-A azure-npm-a 10.0.0.1\n-A azure-npm-a 10.0.0.2\n');
  });

  it('members read from the text serialise as plain arrays, and read like a list of the same strings', () => {
    const text = `create azure-npm-a hash:net ${NET}\nadd azure-npm-a 10.0.0.1\nadd azure-npm-a 10.0.0.0/24 nomatch\n`;
    const snapshot = parseSave(text);
    const createOptions = { family: 'inet', hashsize: '1024', maxelem: '65536', bucketsize: '12', initval: '0x1a2b3c4d' };
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual({ sets: [{ name: 'azure-npm-a', type: 'hash:net', options: NET, createOptions, members: ['10.0.0.1', '10.0.0.0/24 nomatch'] }], problems: [] });
    const members = snapshot.sets[0]!.members;
    const list = plain(snapshot).sets[0]!.members;
    expect([...members]).toEqual([...list]);
    expect([0, 1].map((i) => [members.at(i), members.hostValue(i)])).toEqual([0, 1].map((i) => [list.at(i), list.hostValue(i)]));
    expect([...members.hostValues()].map((v) => Math.max(v, -1))).toEqual([...list.hostValues()]);
  });

  it('property: the plan from the text equals the plan from plain member arrays', () => {
    const octet = fc.constantFrom('0', '1', '2', '9', '10', '255', '256', '01');
    const host = fc.tuple(fc.constantFrom('10', '192'), octet, octet, octet).map((p) => p.join('.'));
    const member = fc.oneof(
      host,
      host.map((h) => `${h} nomatch`),
      host.map((h) => `${h}/24`),
      host.map((h) => `${h}/32 nomatch`),
      host.map((h) => `${h} timeout 5`),
      host.map((h) => `${h} comment "x y" nomatch`),
      host.map((h) => `${h},tcp:80`),
      fc.constantFrom('fe80::1', '2001:db8::/64', '::1 nomatch', 'azure-npm-b', '-F', '10.0.0.0/0000024'),
    );
    const set = fc.record({
      name: fc.constantFrom('azure-npm-a', 'azure-npm-b', 'azure-npm-c', 'kube-f'),
      type: fc.constantFrom('hash:net', 'hash:ip,port', 'list:set'),
      family: fc.constantFrom(NET, NET6),
      members: fc.array(member, { maxLength: 12 }),
    });
    fc.assert(
      fc.property(fc.array(set, { maxLength: 4 }), fc.array(member, { maxLength: 12 }), fc.constantFrom('nethash', 'hash:net family inet6', 'hash:ip,port'), (kernelSets, wanted, spec) => {
        const text = kernelSets
          .map((s) => [`create ${s.name} ${s.type} ${s.type === 'list:set' ? 'size 8' : s.family}`, ...s.members.map((m) => `add ${s.name} ${m}`)].join('\n'))
          .join('\n');
        const snapshot = parseSave(text);
        const desiredMembers = [...new Set(wanted.map((m) => m.split(' ')[0]!))];
        const desired: DesiredState = { owner: OWNER, sets: [{ name: 'azure-npm-a', spec: spec as 'nethash', members: desiredMembers }] };
        const run = (s: SaveSnapshot): unknown => {
          try {
            return planReconcile(desired, s, headersOf(plain(s)));
          } catch (e) {
            return (e as Error).message;
          }
        };
        expect(run(snapshot)).toEqual(run(plain(snapshot)));
      }),
      { numRuns },
    );
  });

  // The plain path: every saved member a string in an array, every desired member
  // canonicalised and deduplicated before planning. The numeric path (hosts read as
  // numbers from the save text, desired members used as given while they are
  // canonical) must plan exactly the same lines, sections, handlers and notes, or fail
  // with the same message.
  const OWNED = ['azure-npm-a', 'azure-npm-b', 'azure-npm-c', 'azure-npm-d'];
  const canonicalDesired = (d: DesiredState): DesiredState => ({
    owner: d.owner,
    sets: d.sets.map((set) => {
      const kind = set.spec === 'setlist' ? undefined : set.spec.startsWith('hash:ip,port') ? 'hash:ip,port' : 'hash:net';
      const family = set.spec.includes('inet6') ? 'inet6' : 'inet';
      const seen = new Map<string, string>();
      for (const raw of set.members) {
        const m = kind === undefined ? validateSetName(raw) : canonicalMember(kind, raw, family);
        const key = kind === undefined ? m : entryKey(m);
        const before = seen.get(key);
        if (before !== undefined && before !== m) throw new Error(`holds both ${before} and ${m}`);
        if (before === undefined) seen.set(key, m);
      }
      return { ...set, members: [...seen.values()] };
    }),
  });

  it('property: hosts read as numbers and desired members used as given plan what the plain path plans', () => {
    const octet = fc.constantFrom('0', '1', '2', '7', '10', '255', '256', '01');
    const host = fc.tuple(fc.constantFrom('10', '192', '255'), octet, octet, octet).map((p) => p.join('.'));
    const hostile = fc.constantFrom('-F', '10.0.0.0/0000024', '10.0.0.1#x', '10.0.0.01', 'azure-npm-b', 'fe80::0001', '10.0.0.1,tcp:080');
    const savedMember = fc.oneof(
      { weight: 12, arbitrary: host },
      host.map((h) => `${h} nomatch`),
      host.map((h) => `${h}/24`),
      host.map((h) => `${h}/8 nomatch`),
      host.map((h) => `${h},tcp:80`),
      host.map((h) => `${h} timeout 5 nomatch`),
      fc.constantFrom('fe80::1', '2001:db8::/64', '::1 nomatch', '2001:db8::1,udp:53'),
      fc.constantFrom(...OWNED, 'kube-f'),
      hostile,
    );
    const desiredMember = fc.oneof(
      { weight: 12, arbitrary: host.filter((h) => !h.includes('256') && !/(^|\.)0\d/.test(h)) },
      fc.constantFrom('10.0.0.1 nomatch', '10.0.0.7/32', '10.0.0.5/24', '10.0.0.0/24 nomatch', '10.1.2.3,80', '10.1.2.3,tcp:80', 'FE80::1', 'fe80::1', '2001:db8::/64'),
      fc.constantFrom(...OWNED),
    );
    const kernelSet = fc.record({
      name: fc.constantFrom(...OWNED, 'kube-f', 'azure-npm-'),
      type: fc.constantFrom('hash:net', 'hash:net', 'hash:ip,port', 'list:set'),
      family: fc.constantFrom(NET, NET, NET6),
      members: fc.array(savedMember, { maxLength: 120, size: 'max' }),
    });
    const desiredSet = fc.record({
      name: fc.constantFrom(...OWNED),
      spec: fc.constantFrom('nethash', 'nethash', 'nethash maxelem 4294967295', 'nethash family inet6', 'hash:ip,port', 'hash:ip,port family inet6', 'setlist'),
      members: fc.array(desiredMember, { maxLength: 120, size: 'max' }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(kernelSet, { maxLength: 4, selector: (k) => k.name }),
        fc.uniqueArray(desiredSet, { maxLength: 3, selector: (d) => d.name }),
        fc.boolean(),
        fc.array(fc.nat(2), { minLength: 6, maxLength: 6 }),
        (kernelSets, desiredSets, interleave, references) => {
          const creates = kernelSets.map((k) => `create ${k.name} ${k.type} ${k.type === 'list:set' ? 'size 8' : k.family}`);
          const adds = kernelSets.map((k) => k.members.map((m) => `add ${k.name} ${m}`));
          // Interleaved adds (every set's first add, then every set's second, …) take the parser's slow path.
          const lines = interleave
            ? [...creates, ...Array.from({ length: Math.max(0, ...adds.map((a) => a.length)) }, (_, i) => adds.flatMap((a) => (i < a.length ? [a[i]!] : [])))].flat()
            : kernelSets.flatMap((k, i) => [creates[i]!, ...adds[i]!]);
          const snapshot = parseSave(lines.join('\n') + '\n');
          const headers = snapshot.sets.map((x, i) => ({ name: x.name, type: x.type, header: x.options, references: references[i % references.length]!, entries: 0 }));
          const desired = { owner: OWNER, sets: desiredSets } as DesiredState;
          const run = (d: () => DesiredState, s: SaveSnapshot): unknown => {
            try {
              return planReconcile(d(), s, headers);
            } catch (e) {
              return (e as Error).message.includes('holds both') ? 'holds both' : (e as Error).message;
            }
          };
          expect(run(() => desired, snapshot)).toEqual(run(() => canonicalDesired(desired), plain(snapshot)));
        },
      ),
      { numRuns },
    );
  });
});
