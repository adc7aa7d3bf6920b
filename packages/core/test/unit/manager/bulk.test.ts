import { describe, expect, it, vi } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import type { IpsetsError } from '../../../src/errors.js';
import { buildDesiredState } from '../../../src/manager/bulk.js';
import type { DesiredSetInput } from '../../../src/manager/bulk.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { SetMembers } from '../../../src/manager/set-members.js';
import { kernelName } from '../../../src/model/naming.js';
import { HostSet } from '../../../src/model/host-set.js';

const OWNER = 'bulk-';
const k = (label: string) => kernelName(label, { owner: OWNER });

function thrown(fn: () => unknown): IpsetsError {
  try {
    fn();
  } catch (error) {
    if (isIpsetsError(error)) return error;
    throw error;
  }
  throw new Error('expected an IpsetsError');
}

describe('buildDesiredState', () => {
  it('routes IPv6 members to the inet6 sibling, keeps a single-family set alone, and lists hold the kernel sets', () => {
    const state = buildDesiredState(
      [
        { meta: { type: 'keyLabelOfNamespace', name: 'team' }, memberSets: [{ type: 'namespace', name: 'dual' }, { type: 'namespace', name: 'six' }] },
        { meta: { type: 'namespace', name: 'dual' }, members: ['10.0.0.2', 'FE80::0001', '10.0.0.1/32', '2001:db8::5', '10.0.0.2'] },
        { meta: { type: 'namespace', name: 'six', family: 'inet6' }, members: ['2001:DB8::1'] },
        { meta: { type: 'namedPorts', name: 'http' }, members: ['10.0.0.1,80', '[fe80::1],udp:53'] },
      ],
      { owner: OWNER },
    );
    expect(state.owner).toBe(OWNER);
    expect(state.sets.map((s) => [s.label, s.spec, s.members])).toEqual([
      ['nslabel-team', 'setlist', [k('ns-dual'), k('ns-six inet6'), k('ns-dual inet6')]],
      ['ns-dual', 'nethash', ['10.0.0.2', '10.0.0.1']],
      // The list made its member sets first (the manager's creation order); the inet6 sibling came with the first IPv6 member.
      ['ns-six inet6', 'nethash family inet6', ['2001:db8::1']],
      ['ns-dual inet6', 'nethash family inet6', ['fe80::1', '2001:db8::5']],
      ['namedport:http', 'hash:ip,port', ['10.0.0.1,tcp:80']],
      ['namedport:http inet6', 'hash:ip,port family inet6', ['fe80::1,udp:53']],
    ]);
    expect(state.sets.map((s) => s.name)).toEqual(state.sets.map((s) => k(s.label!)));
  });

  it("puts a set's capacity on its kernel set(s), over the configuration's per-type capacity", () => {
    const state = buildDesiredState(
      [
        { meta: { type: 'namespace', name: 'dual' }, members: ['10.0.0.1', 'fd00::1'], capacity: { maxelem: 131072 } },
        { meta: { type: 'namespace', name: 'plain' }, members: ['10.0.0.3'] },
      ],
      { owner: OWNER, capacity: { namespace: { maxelem: 1000, hashsize: 2048 } } },
    );
    expect(state.sets.map((s) => [s.label, s.maxelem, s.hashsize])).toEqual([
      ['ns-dual', 131072, 2048],
      ['ns-dual inet6', 131072, 2048],
      ['ns-plain', 1000, 2048],
    ]);
  });

  it('in mode on-need holds only referenced sets and their list members', () => {
    const state = buildDesiredState(
      [
        { meta: { type: 'namespace', name: 'a' }, members: ['10.0.0.1'] },
        { meta: { type: 'namespace', name: 'b' }, members: ['10.0.0.2'] },
        { meta: { type: 'keyLabelOfNamespace', name: 'l' }, memberSets: [{ type: 'namespace', name: 'b' }], references: [{ name: 'np', type: 'netpol' }] },
      ],
      { owner: OWNER, mode: 'on-need' },
    );
    expect(state.sets.map((s) => s.label).sort()).toEqual(['ns-b', 'nslabel-l']);
    expect(state.sets.find((s) => s.label === 'ns-b')!.members).toEqual(['10.0.0.2']);
  });

  it('takes checked members as they are, and checks members checked for another family again', () => {
    const checked = SetMembers.check({ type: 'namespace', name: 'x' }, ['10.0.0.9', 'fd00::9']);
    expect([checked.all, checked.inet, checked.inet6]).toEqual([['10.0.0.9', 'fd00::9'], ['10.0.0.9'], ['fd00::9']]);
    const state = buildDesiredState([{ meta: { type: 'namespace', name: 'x' }, members: checked }], { owner: OWNER });
    expect(state.sets.map((s) => s.members)).toEqual([['10.0.0.9'], ['fd00::9']]);
    expect(state.sets[0]!.members).toBe(checked.inet);
    const error = thrown(() => buildDesiredState([{ meta: { type: 'namespace', name: 'x', family: 'inet' }, members: checked }], { owner: OWNER }));
    expect(error.code).toBe('INVALID_MEMBER');
    expect(error.details).toMatchObject({ setIndex: 0, memberIndex: 1 });
  });

  it('makes one addToSets per set and family, however many members', () => {
    const spy = vi.spyOn(IPSetManager.prototype, 'addToSets');
    const members = Array.from({ length: 5000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    const state = buildDesiredState([{ meta: { type: 'namespace', name: 'big' }, members: [...members, 'fd00::1'] }], { owner: OWNER });
    expect(spy.mock.calls.length).toBe(2);
    spy.mockRestore();
    expect(state.sets.map((s) => s.members.length)).toEqual([5000, 1]);
  });

  it('a second spelling of an entry replaces the first in its place, as a second addToSets does', () => {
    const state = buildDesiredState([{ meta: { type: 'cidrBlocks', name: 'c' }, members: ['10.0.0.0/8', '10.1.0.0/16', '10.0.0.0/8 nomatch'] }], { owner: OWNER });
    expect(state.sets[0]!.members).toEqual(['10.0.0.0/8 nomatch', '10.1.0.0/16']);
  });

  it('hands a set of plain IPv4 hosts out as numbers (a HostSet), and any other set as strings, each reading as the manager\'s', () => {
    const ns = (name: string, members: string[]): DesiredSetInput => ({ meta: { type: 'namespace', name }, members, capacity: { maxelem: 4096 } });
    const sets = [
      ns('hosts', ['10.0.0.2', '10.0.0.1', '10.0.0.2', '10.0.0.1/32']),
      ns('flagged', ['10.0.0.1', '10.0.0.2 nomatch']),
      ns('cidr', ['10.0.0.1', '10.0.0.0/24']),
      ns('respelled', ['10.0.0.1', '10.0.0.1 nomatch']),
      ns('mixed', ['10.0.0.1', 'fd00::1']),
    ];
    const state = buildDesiredState(sets, { owner: OWNER });
    const byLabel = new Map(state.sets.map((s) => [s.label, s]));
    const hosts = byLabel.get('ns-hosts')!;
    expect(HostSet.hostsOf(hosts)).toBeDefined();
    // Repeats and a /32 are one member each, in first-seen order, as the manager's calls give.
    expect({ ...hosts }).toEqual({ name: k('ns-hosts'), label: 'ns-hosts', spec: 'nethash', members: ['10.0.0.2', '10.0.0.1'], maxelem: 4096 });
    for (const label of ['ns-flagged', 'ns-cidr', 'ns-respelled', 'ns-mixed']) expect(HostSet.hostsOf(byLabel.get(label))).toBeUndefined();
    expect(byLabel.get('ns-respelled')!.members).toEqual(['10.0.0.1 nomatch']);
    const m = new IPSetManager({ owner: OWNER });
    for (const set of sets) {
      m.createIPSets([set.meta]);
      for (const member of set.members as string[]) m.addToSets([set.meta], member, 'pod');
    }
    const manager = new Map(m.desiredState().sets.map((s) => [s.label, s]));
    for (const [label, set] of byLabel) expect(set.members).toEqual(manager.get(label)!.members);
  });

  it('keeps its own copy of the addresses checked members hand it: changing them afterwards changes no desired set', () => {
    const meta = { type: 'namespace', name: 'hosts' } as const;
    const checked = SetMembers.check(meta, ['10.0.0.1', '10.0.0.2']);
    const state = buildDesiredState([{ meta, members: checked }], { owner: OWNER });
    checked.inetHosts!.fill(0);
    expect(state.sets[0]!.members).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  describe('refuses with the manager’s code and message, saying which input', () => {
    const cases: { title: string; sets: DesiredSetInput[]; code: string; message: RegExp; details: Record<string, unknown> }[] = [
      {
        title: 'a bad member',
        sets: [{ meta: { type: 'namespace', name: 'ok' } }, { meta: { type: 'namespace', name: 'b' }, members: ['10.0.0.1', '10.0.0.256'] }],
        code: 'INVALID_MEMBER',
        message: /^cannot add "10\.0\.0\.256" to ipset "ns-b" \(type namespace, hash:net\): /,
        details: { setIndex: 1, memberIndex: 1, set: 'ns-b' },
      },
      {
        title: 'an IPv6 member of an inet set',
        sets: [{ meta: { type: 'namespace', name: 'v4', family: 'inet' }, members: ['fd00::1'] }],
        code: 'INVALID_MEMBER',
        message: /^cannot add "fd00::1" to ipset "ns-v4"/,
        details: { setIndex: 0, memberIndex: 0 },
      },
      {
        title: 'a member that is not a string',
        sets: [{ meta: { type: 'namespace', name: 'n' }, members: [42 as unknown as string] }],
        code: 'INVALID_MEMBER',
        message: /expected a string/,
        details: { setIndex: 0, memberIndex: 0 },
      },
      {
        title: 'members of a list',
        sets: [{ meta: { type: 'keyLabelOfNamespace', name: 'l' }, members: ['10.0.0.1'] }],
        code: 'INVALID_SET_TYPE',
        message: /^cannot add members to ipset "nslabel-l": it is not a hash set/,
        details: { setIndex: 0 },
      },
      {
        title: 'members of an emptyHashSet',
        sets: [{ meta: { type: 'emptyHashSet', name: 'e' }, members: ['10.0.0.1'] }],
        code: 'INVALID_SET_TYPE',
        message: /an emptyHashSet must stay empty/,
        details: { setIndex: 0 },
      },
      {
        title: 'a list of lists',
        sets: [
          { meta: { type: 'keyLabelOfNamespace', name: 'inner' } },
          { meta: { type: 'nestedLabelOfPod', name: 'outer' }, memberSets: [{ type: 'keyLabelOfNamespace', name: 'inner' }] },
        ],
        code: 'INVALID_SET_TYPE',
        message: /nested list sets are not supported/,
        details: { setIndex: 1 },
      },
      {
        title: 'a bad set name',
        sets: [{ meta: { type: 'namespace', name: '' } }],
        code: 'INVALID_SET_NAME',
        message: /./,
        details: { setIndex: 0 },
      },
      {
        title: 'an unknown set type',
        sets: [{ meta: { type: 'nope' as 'namespace', name: 'x' } }],
        code: 'INVALID_SET_TYPE',
        message: /nope/,
        details: { setIndex: 0 },
      },
      {
        title: 'a set given twice',
        sets: [{ meta: { type: 'namespace', name: 'x' } }, { meta: { type: 'namespace', name: 'x', family: 'inet6' } }],
        code: 'INVALID_ARGUMENT',
        message: /^ipset "ns-x" is given twice; expected each set once$/,
        details: { setIndex: 1 },
      },
      {
        title: 'a bad capacity',
        sets: [{ meta: { type: 'namespace', name: 'x' }, capacity: { hashsize: 3 } }],
        code: 'INVALID_ARGUMENT',
        message: /hashsize/,
        details: { setIndex: 0 },
      },
      {
        title: 'a selector reference on a set that cannot select',
        sets: [{ meta: { type: 'cidrBlocks', name: 'c' }, references: [{ name: 'np', type: 'selector' }] }],
        code: 'INVALID_REFERENCE',
        message: /is not a selector ipset/,
        details: { setIndex: 0 },
      },
    ];
    for (const c of cases) {
      it(c.title, () => {
        const error = thrown(() => buildDesiredState(c.sets, { owner: OWNER }));
        expect(error.code).toBe(c.code);
        expect(error.message).toMatch(c.message);
        expect(error.details).toMatchObject(c.details);
      });
    }

    it('a kernel-name collision (fnv32: podlabel-x:YMaaIZ and ns-msobb-target)', () => {
      const sets: DesiredSetInput[] = [{ meta: { type: 'keyValueLabelOfPod', name: 'x:YMaaIZ' } }, { meta: { type: 'namespace', name: 'msobb-target' } }];
      const error = thrown(() => buildDesiredState(sets, { scheme: 'fnv32' }));
      expect([error.code, error.message, error.details['setIndex']]).toEqual([
        'KERNEL_NAME_COLLISION',
        'ipset "ns-msobb-target" resolves to kernel name "azure-npm-2900316864" already owned by "podlabel-x:YMaaIZ"; the fnv32 scheme collides, use sha256-base36',
        1,
      ]);
    });
  });
});

describe('SetMembers.check with a problem handler', () => {
  it('reports every bad member and second spelling, leaves them out, and stops when told', () => {
    const seen: [number, string, unknown][] = [];
    const members = SetMembers.check({ type: 'cidrBlocks', name: 'c' }, ['10.0.0.0/8', 'bad', 7, '10.0.0.0/8 nomatch', '10.0.0.0/8', 'fd00::/8'], (j, error) => {
      seen.push([j, error.code, error.details['reason']]);
      return true;
    });
    expect(seen).toEqual([
      [1, 'INVALID_MEMBER', expect.anything()],
      [2, 'INVALID_MEMBER', undefined],
      [3, 'INVALID_MEMBER', 'same-entry'],
    ]);
    expect([members.all, members.inet, members.inet6]).toEqual([['10.0.0.0/8', 'fd00::/8'], ['10.0.0.0/8'], ['fd00::/8']]);
    let calls = 0;
    SetMembers.check({ type: 'namespace', name: 'n' }, ['x', 'y', 'z'], () => ++calls < 2);
    expect(calls).toBe(2);
  });
});
