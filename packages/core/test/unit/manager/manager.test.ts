import { describe, expect, it } from 'vitest';
import { IpsetsError, isIpsetsError } from '../../../src/errors.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { kernelName } from '../../../src/model/naming.js';
import { planApply } from '../../../src/plan/plan-apply.js';
import type { SetMetadata } from '../../../src/types.js';
import { CIDR, K, KEY_NS, KEY_POD, KV_NS, KV_POD, NAMED_PORT, NESTED, NS, applyAll, lines, manager, report, text } from '../../helpers/manager-fixtures.js';

/** Runs `fn`, expects an IpsetsError with `code`, returns it. */
function failure(fn: () => unknown, code: string): IpsetsError {
  try {
    fn();
  } catch (error) {
    expect(isIpsetsError(error)).toBe(true);
    expect((error as IpsetsError).code).toBe(code);
    return error as IpsetsError;
  }
  throw new Error(`expected an IpsetsError ${code}, nothing was thrown`);
}

/** Everything observable about a manager, to check that a failed call changed nothing. */
function observable(m: IPSetManager): unknown {
  const sets = [...m.getAllIPSets().values()].map((name) => m.getIPSet(name));
  return { sets, dirty: m.dirtySets(), desired: m.desiredState() };
}

describe('IPSetManager: creating sets', () => {
  it('creates sets once; mode all plans their kernel creation', () => {
    const m = manager();
    m.createIPSets([NS, KEY_NS, CIDR]);
    m.createIPSets([NS]);
    expect(text(m)).toBe(
      lines(
        `-N ${K.NS} --exist nethash`,
        `-N ${K.KEY_NS} --exist setlist`,
        `-N ${K.CIDR} --exist nethash maxelem 4294967295`,
      ),
    );
    applyAll(m);
    m.createIPSets([NS, KEY_NS]);
    expect(text(m)).toBe('');
    expect(m.size).toBe(3);
  });

  it('uses the create spec of every type', () => {
    const m = manager();
    m.createIPSets([NAMED_PORT, NESTED, KV_POD]);
    expect(text(m)).toBe(
      lines(
        `-N ${K.NAMED_PORT} --exist hash:ip,port`,
        `-N ${K.NESTED} --exist setlist`,
        `-N ${K.KV_POD} --exist nethash`,
      ),
    );
  });

  it('names kernel sets with the configured owner and scheme', () => {
    const m = manager({ owner: 'kube-', scheme: 'fnv32' });
    m.createIPSets([{ name: 'test', type: 'namespace' }]);
    expect(text(m)).toBe(lines('-N kube-3863441321 --exist nethash'));
    expect(m.getIPSet('ns-test')?.kernelName).toBe('kube-3863441321');
  });

  it('refuses the second owner of an fnv32 kernel name (podlabel-x:YMaaIZ vs ns-msobb-target)', () => {
    const m = manager({ scheme: 'fnv32' });
    m.createIPSets([{ name: 'x:YMaaIZ', type: 'keyValueLabelOfPod' }]);
    const error = failure(() => m.createIPSets([{ name: 'msobb-target', type: 'namespace' }]), 'KERNEL_NAME_COLLISION');
    expect(error.message).toBe(
      'ipset "ns-msobb-target" resolves to kernel name "azure-npm-2900316864" already owned by "podlabel-x:YMaaIZ"; the fnv32 scheme collides, use sha256-base36',
    );
    expect(m.hasIPSet('ns-msobb-target')).toBe(false);
    // Also through every other creating call.
    failure(() => m.addToSets([{ name: 'msobb-target', type: 'namespace' }], '10.0.0.1', 'p'), 'KERNEL_NAME_COLLISION');
    failure(() => m.addReference({ name: 'msobb-target', type: 'namespace' }, 'np', 'selector'), 'KERNEL_NAME_COLLISION');
    // The owner itself may be asked for again.
    expect(() => m.createIPSets([{ name: 'x:YMaaIZ', type: 'keyLabelOfPod' }])).not.toThrow();
  });

  it('refuses colliding sets within one call and creates none of them', () => {
    const m = manager({ scheme: 'fnv32' });
    failure(
      () =>
        m.createIPSets([
          { name: 'a', type: 'namespace' },
          { name: 'x:YMaaIZ', type: 'keyValueLabelOfPod' },
          { name: 'msobb-target', type: 'namespace' },
        ]),
      'KERNEL_NAME_COLLISION',
    );
    expect(m.size).toBe(0);
  });

  it('keeps a deleted set\'s kernel name claimed until its destroy reached the kernel', () => {
    const m = manager({ scheme: 'fnv32' });
    m.createIPSets([{ name: 'x:YMaaIZ', type: 'keyValueLabelOfPod' }]);
    applyAll(m);
    expect(m.deleteIPSet('podlabel-x:YMaaIZ')).toBe(true);
    // The kernel still holds azure-npm-2900316864 until the destroy is applied.
    failure(() => m.createIPSets([{ name: 'msobb-target', type: 'namespace' }]), 'KERNEL_NAME_COLLISION');
    expect(applyAll(m)).toBe(lines('-X azure-npm-2900316864'));
    m.createIPSets([{ name: 'msobb-target', type: 'namespace' }]);
    expect(text(m)).toBe(lines('-N azure-npm-2900316864 --exist nethash'));
  });

  it('keeps the kernel name of a set deleted before it reached the kernel claimed until the next commit: a plan made before the delete may still create it', () => {
    const m = manager({ scheme: 'fnv32' });
    m.createIPSets([{ name: 'x:YMaaIZ', type: 'keyValueLabelOfPod' }]);
    const plan = planApply(m); // in flight: it creates azure-npm-2900316864
    expect(m.deleteIPSet('podlabel-x:YMaaIZ')).toBe(true);
    failure(() => m.createIPSets([{ name: 'msobb-target', type: 'namespace' }]), 'KERNEL_NAME_COLLISION');
    m.commit(report(plan));
    // The plan did create it: now it is a set to destroy, and its name stays claimed until that lands.
    expect(applyAll(m)).toBe(lines('-X azure-npm-2900316864'));
    m.createIPSets([{ name: 'msobb-target', type: 'namespace' }]);
    expect(text(m)).toBe(lines('-N azure-npm-2900316864 --exist nethash'));
  });

  it('refuses an owner prefix that makes kernel names longer than 31 characters', () => {
    const error = failure(() => new IPSetManager({ owner: 'azure-npm-v2-' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('"azure-npm-v2-" is 13 characters long');
    expect(error.message).toContain('use at most 11 characters');
    expect(() => new IPSetManager({ owner: 'a-long-owner-prefixx-', scheme: 'fnv32' })).not.toThrow();
    failure(() => new IPSetManager({ owner: 'a-long-owner-prefixxy-', scheme: 'fnv32' }), 'INVALID_ARGUMENT');
  });

  it.each([
    [{ mode: 'sometimes' }, /invalid ipset mode "sometimes"/],
    [{ scheme: 'md5' }, /unknown naming scheme "md5"/],
    [{ maxConsecutiveFailures: 0 }, /invalid maxConsecutiveFailures "0"/],
  ])('refuses config %j', (config, message) => {
    expect(() => new IPSetManager(config as never)).toThrow(message);
  });

  it.each([
    [{ name: 'ok', type: 'Namespace' }, 'INVALID_SET_TYPE'],
    [{ name: '', type: 'namespace' }, 'INVALID_SET_NAME'],
    [{ name: 'a b', type: 'namespace' }, 'INVALID_SET_NAME'],
    [{ name: 'a\n-X all', type: 'namespace' }, 'INVALID_SET_NAME'],
  ])('refuses metadata %j with %s and creates nothing', (bad, code) => {
    const m = manager();
    failure(() => m.createIPSets([NS, bad as SetMetadata]), code);
    expect(m.size).toBe(0);
    expect(m.hasDirtyChanges).toBe(false);
  });
});

describe('IPSetManager: set kinds and types', () => {
  it('fixes docs/reference-behaviour.md §g.2.8: the shared-prefix pair names one set, which keeps its type and kind', () => {
    const m = manager();
    m.addToSets([{ name: 'app', type: 'keyLabelOfPod' }], '10.0.0.1', 'p');
    m.addToSets([{ name: 'app', type: 'keyValueLabelOfPod' }], '10.0.0.2', 'p');
    const set = m.getIPSet('podlabel-app')!;
    expect(set.type).toBe('keyLabelOfPod');
    expect(set.members).toEqual(['10.0.0.1', '10.0.0.2']);
    m.addToLists([{ name: 'team', type: 'keyLabelOfNamespace' }], [NS]);
    m.addToLists([{ name: 'team', type: 'keyValueLabelOfNamespace' }], [KEY_POD]);
    expect(m.getIPSet('nslabel-team')!.members).toEqual(['ns-test-ns-set', 'podlabel-test-keyPod-set']);
  });

  it('fixes docs/reference-behaviour.md §g.2.8: a set is only ever used as its kind', () => {
    const m = manager();
    m.createIPSets([NS, KEY_NS]);
    const before = observable(m);
    expect(failure(() => m.addToSets([KEY_NS], '10.0.0.1', 'p'), 'INVALID_SET_TYPE').message).toBe(
      'cannot add members to ipset "nslabel-test-keyNS-list": it is not a hash set (type keyLabelOfNamespace is a list)',
    );
    expect(failure(() => m.removeFromSets([KEY_NS], '10.0.0.1', 'p'), 'INVALID_SET_TYPE').message).toContain('cannot remove members from');
    expect(failure(() => m.addToLists([NS], [KEY_POD]), 'INVALID_SET_TYPE').message).toBe(
      'ipset "ns-test-ns-set" is not a list set (type namespace is a hash set)',
    );
    expect(failure(() => m.addToLists([KEY_NS], [KV_NS]), 'INVALID_SET_TYPE').message).toBe(
      'ipset "nslabel-test-kvNS-list" is not a hash set and nested list sets are not supported',
    );
    failure(() => m.removeFromList(NS, [KEY_POD]), 'INVALID_SET_TYPE');
    failure(() => m.removeFromList(KEY_NS, [KV_NS]), 'INVALID_SET_TYPE');
    expect(observable(m)).toEqual(before);
  });

  it('keeps the empty set empty', () => {
    const m = manager();
    const error = failure(() => m.addToSets([{ name: 'emptyhashset', type: 'emptyHashSet' }], '10.0.0.1', 'p'), 'INVALID_SET_TYPE');
    expect(error.message).toContain('must stay empty');
  });
});

describe('IPSetManager: members', () => {
  it('stores canonical members (what ipset save prints)', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.5/24', 'a');
    m.addToSets([NS], '10.0.1.1/32', 'b');
    m.addToSets([CIDR], '172.17.1.0/24 nomatch', '');
    m.addToSets([NAMED_PORT], '10.0.0.1,80', 'a');
    m.addToSets([NAMED_PORT], '10.0.0.2,udp:53', 'b');
    expect(m.getIPSet('ns-test-ns-set')!.members).toEqual(['10.0.0.0/24', '10.0.1.1']);
    expect(m.getIPSet('cidr-test-cidr-set')!.members).toEqual(['172.17.1.0/24 nomatch']);
    expect(m.getIPSet('namedport:test-namedport-set')!.members).toEqual(['10.0.0.1,tcp:80', '10.0.0.2,udp:53']);
    // The same member in another spelling is the same member.
    m.addToSets([NS], '10.0.0.0/24', 'c');
    expect(m.getIPSet('ns-test-ns-set')!.podKeys.get('10.0.0.0/24')).toBe('c');
  });

  // docs/reference-behaviour.md §b.9 lists, with the fixes: member form must fit the set type (docs/reference-behaviour.md §g.2.9), /0 is
  // judged from the parsed prefix (docs/reference-behaviour.md §g.2.10), and nothing that could break a restore line.
  const valid: Array<[SetMetadata, string]> = [
    [NS, '172.17.0.0/16'],
    [CIDR, '172.17.1.0/24 nomatch'],
    [NS, '10.0.0.0'],
    [CIDR, '192.168.0.1 nomatch'],
    [NAMED_PORT, '192.168.0.1,tcp:25227'],
    [NS, '128.0.0.0/1'],
  ];
  it.each(valid)('accepts %j member %j', (meta, member) => {
    const m = manager();
    m.addToSets([meta], member, 'p');
    expect(m.getIPSet(`${meta.type === 'namespace' ? 'ns-' : meta.type === 'cidrBlocks' ? 'cidr-' : 'namedport:'}${meta.name}`)!.members).toHaveLength(1);
  });

  const invalid: Array<[string, SetMetadata, string]> = [
    ['docs/reference-behaviour.md §b.9', NS, '1234'],
    ['docs/reference-behaviour.md §b.9', NS, '256.1.2.3'],
    ['docs/reference-behaviour.md §b.9', NS, ''],
    ['mixed family', { ...NS, family: 'inet' as const }, '2001:db8::1'],
    ['mixed family', { ...NS, family: 'inet' as const }, '2001:db8::/32'],
    ['docs/reference-behaviour.md §b.9', NAMED_PORT, '2001:db8::1,tcp:80'],
    ['mixed family', { ...CIDR, family: 'inet6' as const }, '10.0.0.0/8 nomatch'],
    ['docs/reference-behaviour.md §b.9', NS, '10.0.0.1/33'],
    ['docs/reference-behaviour.md §g.2.10', NS, '1.1.1.1/0'],
    ['docs/reference-behaviour.md §g.2.10', CIDR, '0.0.0.0/0'],
    ['docs/reference-behaviour.md §g.2.10', CIDR, '10.0.0.0/00'],
    ['docs/reference-behaviour.md §b.9', NS, '310.0.0.0/8'],
    ['docs/reference-behaviour.md §b.9', NS, 'x.x.x.x/8'],
    ['docs/reference-behaviour.md §b.9', NS, 'x.x.x.x'],
    ['docs/reference-behaviour.md §b.9', NAMED_PORT, 'x.x.x.x,80'],
    ['docs/reference-behaviour.md §b.9', NAMED_PORT, ',80'],
    ['docs/reference-behaviour.md §g.2.9', NAMED_PORT, '10.10.2.0/28 nomatch'],
    ['docs/reference-behaviour.md §g.2.9', NAMED_PORT, '10.0.0.1'],
    ['docs/reference-behaviour.md §g.2.9', NAMED_PORT, '192.168.0.0/24,tcp:25227'],
    ['docs/reference-behaviour.md §g.2.9', NS, '10.0.0.1,tcp:80'],
    ['docs/reference-behaviour.md §g.2.9', CIDR, '10.0.0.1,80'],
    ['docs/reference-behaviour.md §g.2.9', KEY_POD, '10.0.0.1 nomatch nomatch'],
    ['injection', NS, '10.0.0.1\n-X azure-npm-48454gha3irmkdh1wlh1'],
    ['injection', NS, '10.0.0.1 # comment'],
    ['injection', NS, ' 10.0.0.1'],
    ['injection', NS, '-A'],
    ['injection', NAMED_PORT, '10.0.0.1,tcp:80 -exist'],
    ['leading zeros', NS, '010.0.0.1'],
  ];
  it.each(invalid)('fixes %s: refuses %j member %j before any change', (_defect, meta, member) => {
    const m = manager();
    m.createIPSets([KEY_POD]);
    const before = observable(m);
    const error = failure(() => m.addToSets([KEY_POD, meta], member, 'p'), 'INVALID_MEMBER');
    expect(error.message).toContain(JSON.stringify(member));
    expect(error.message).toMatch(/expected/);
    expect(observable(m)).toEqual(before);
  });

  it('fixes docs/reference-behaviour.md §g.2.15: an invalid member in removeFromSets says "remove", not "add"', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    const error = failure(() => m.removeFromSets([NS], '10.0.0.300', 'p'), 'INVALID_MEMBER');
    expect(error.message).toMatch(/^cannot remove "10\.0\.0\.300" from ipset "ns-test-ns-set"/);
    expect(error.message).not.toMatch(/\badd\b/);
    const addError = failure(() => m.addToSets([NS], '10.0.0.300', 'p'), 'INVALID_MEMBER');
    expect(addError.message).toMatch(/^cannot add "10\.0\.0\.300" to ipset "ns-test-ns-set"/);
  });

  it('ignores stale removes and transfers ownership silently', () => {
    const m = manager();
    m.addToSets([NS, KEY_POD], '10.0.0.1', 'pod-a');
    applyAll(m);
    m.addToSets([NS], '10.0.0.1', 'pod-b'); // ownership transfer: nothing for the kernel
    expect(m.hasDirtyChanges).toBe(false);
    m.removeFromSets([NS, KEY_POD], '10.0.0.1', 'pod-a'); // stale for NS, current for KEY_POD
    expect(m.getIPSet('ns-test-ns-set')!.members).toEqual(['10.0.0.1']);
    expect(m.getIPSet('podlabel-test-keyPod-set')!.members).toEqual([]);
    expect(text(m)).toBe(lines(`-N ${K.KEY_POD} --exist nethash`, `-D ${K.KEY_POD} 10.0.0.1`));
    m.removeFromSets([NS], '10.0.0.1', 'pod-b');
    expect(m.getIPSet('ns-test-ns-set')!.members).toEqual([]);
  });

  it('ignores removes from missing sets and of absent members without creating anything', () => {
    const m = manager();
    m.removeFromSets([NS, KEY_POD], '10.0.0.1', 'p');
    m.addToSets([NS], '10.0.0.2', 'p');
    applyAll(m);
    m.removeFromSets([NS], '10.0.0.1', 'p');
    expect(m.size).toBe(1);
    expect(m.hasDirtyChanges).toBe(false);
    m.addToSets([], '10.0.0.1', 'p');
    m.removeFromSets([], 'not an ip', 'p');
    expect(m.hasDirtyChanges).toBe(false);
  });

  it('holds a CIDR or the same CIDR with nomatch, never both; switching is a delete then an add', () => {
    const m = manager();
    m.addToSets([CIDR], '10.0.0.0/24', 'np');
    applyAll(m);
    m.addToSets([CIDR], '10.0.0.0/24 nomatch', 'np');
    expect(m.getIPSet('cidr-test-cidr-set')!.members).toEqual(['10.0.0.0/24 nomatch']);
    const plan = text(m);
    expect(plan).toBe(
      lines(`-N ${K.CIDR} --exist nethash maxelem 4294967295`, `-D ${K.CIDR} 10.0.0.0/24`, `-A ${K.CIDR} 10.0.0.0/24 nomatch`),
    );
    // Switching back before the apply cancels both.
    m.addToSets([CIDR], '10.0.0.0/24', 'np');
    expect(text(m)).toBe(lines(`-N ${K.CIDR} --exist nethash maxelem 4294967295`));
    // Removing the other spelling removes nothing.
    m.removeFromSets([CIDR], '10.0.0.0/24 nomatch', 'np');
    expect(m.getIPSet('cidr-test-cidr-set')!.members).toEqual(['10.0.0.0/24']);
    m.addToSets([CIDR], '10.0.0.0/24 nomatch', 'np');
    applyAll(m);
    m.removeFromSets([CIDR], '10.0.0.0/24 nomatch', 'np');
    expect(text(m)).toBe(lines(`-N ${K.CIDR} --exist nethash maxelem 4294967295`, `-D ${K.CIDR} 10.0.0.0/24`));
  });

  it('fixes docs/reference-behaviour.md §g.2.7: addToSets is all-or-nothing', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.9', 'p');
    applyAll(m);
    const before = observable(m);
    // A list in the middle, a wrong member form at the end, a bad type: each refused whole.
    failure(() => m.addToSets([NS, KEY_NS, KEY_POD], '10.0.0.1', 'p'), 'INVALID_SET_TYPE');
    failure(() => m.addToSets([NS, KEY_POD, NAMED_PORT], '10.0.0.1', 'p'), 'INVALID_MEMBER');
    failure(() => m.addToSets([NS, KEY_POD, { name: 'x', type: 'bogus' as never }], '10.0.0.1', 'p'), 'INVALID_SET_TYPE');
    failure(() => m.addToSets([NS], '10.0.0.1', 42 as never), 'INVALID_ARGUMENT');
    expect(observable(m)).toEqual(before);
  });

  it('fixes docs/reference-behaviour.md §g.2.7: removeFromSets is all-or-nothing', () => {
    const m = manager();
    m.addToSets([NS, KEY_POD], '10.0.0.1', 'p');
    m.createIPSets([KEY_NS]);
    applyAll(m);
    const before = observable(m);
    failure(() => m.removeFromSets([NS, KEY_NS], '10.0.0.1', 'p'), 'INVALID_SET_TYPE');
    failure(() => m.removeFromSets([NS, NAMED_PORT], '10.0.0.1', 'p'), 'INVALID_MEMBER');
    expect(observable(m)).toEqual(before);
  });
});

describe('IPSetManager: interned strings', () => {
  it('keeps members and pod keys right across pool rebuilds', () => {
    const m = manager();
    // Enough distinct strings to rebuild the pool several times, with churn in between.
    for (let i = 0; i < 3000; i++) m.addToSets([NS, KEY_POD], `10.0.${i >> 8}.${i & 255}`, `ns/pod-${i}`);
    for (let i = 0; i < 3000; i += 2) m.removeFromSets([NS], `10.0.${i >> 8}.${i & 255}`, `ns/pod-${i}`);
    for (let i = 0; i < 3000; i++) m.addToSets([KV_POD], `10.1.${i >> 8}.${i & 255}`, `ns/pod-${i % 7}`);
    const ns = m.getIPSet('ns-test-ns-set')!;
    expect(ns.members).toHaveLength(1500);
    expect(ns.podKeys.get('10.0.0.1')).toBe('ns/pod-1');
    expect(ns.podKeys.has('10.0.0.2')).toBe(false);
    expect(m.getIPSet('podlabel-test-keyPod-set')!.podKeys.get('10.0.11.183')).toBe('ns/pod-2999');
    expect(m.getIPSet('podlabel-test-kvPod-set')!.podKeys.get('10.1.11.183')).toBe(`ns/pod-${2999 % 7}`);
    // A stale remove still compares pod keys by value.
    m.removeFromSets([KEY_POD], '10.0.0.1', 'ns/pod-2');
    m.removeFromSets([KEY_POD], '10.0.0.3', `ns/pod-${'3'}`);
    expect(m.getIPSet('podlabel-test-keyPod-set')!.members).toHaveLength(2999);
  });
});

describe('IPSetManager: the same metadata named again', () => {
  it('checks every call: a metadata object changed between calls names its new set, and a bad name after a good one is refused', () => {
    const m = manager();
    // A caller reusing one mutable object for its sets (the type says read-only; JavaScript callers need not care).
    const meta: { name: string; type: SetMetadata['type'] } = { name: 'app:a', type: 'keyValueLabelOfPod' };
    m.addToSets([meta], '10.0.0.1', 'p');
    meta.name = 'app:b';
    m.addToSets([meta], '10.0.0.2', 'p');
    expect(m.getIPSet('podlabel-app:a')!.members).toEqual(['10.0.0.1']);
    expect(m.getIPSet('podlabel-app:b')!.members).toEqual(['10.0.0.2']);
    failure(() => m.addToSets([{ name: 'app:b x', type: 'keyValueLabelOfPod' }], '10.0.0.3', 'p'), 'INVALID_SET_NAME');
    failure(() => m.addToSets([{ name: 'app:b', type: 'keyValueLabelOfPod', family: 'inet7' as 'inet6' }], '10.0.0.3', 'p'), 'INVALID_ARGUMENT');
    failure(() => m.addToSets([{ name: 'app:b', type: 'keyLabelOfNamespace' }], '10.0.0.3', 'p'), 'INVALID_SET_TYPE');
    // The same name as an explicit inet6 set is another set.
    m.addToSets([{ name: 'app:b', type: 'keyValueLabelOfPod', family: 'inet6' }], 'fd00::1', 'p');
    expect(m.getIPSet('podlabel-app:b inet6')!.members).toEqual(['fd00::1']);
    expect(m.getIPSet('podlabel-app:b')!.members).toEqual(['10.0.0.2']);
  });
});

describe('IPSetManager: lists', () => {
  it('adds members to lists, creating members first, and removes them', () => {
    const m = manager();
    m.addToLists([KEY_NS, KV_NS], [NS, KEY_POD]);
    expect(applyAll(m)).toBe(
      lines(
        `-N ${K.NS} --exist nethash`,
        `-N ${K.KEY_POD} --exist nethash`,
        `-N ${K.KEY_NS} --exist setlist`,
        `-N ${K.KV_NS} --exist setlist`,
        `-A ${K.KEY_NS} ${K.NS}`,
        `-A ${K.KEY_NS} ${K.KEY_POD}`,
        `-A ${K.KV_NS} ${K.NS}`,
        `-A ${K.KV_NS} ${K.KEY_POD}`,
      ),
    );
    expect(m.getIPSet('ns-test-ns-set')!.ipsetReferCount).toBe(2);
    m.addToLists([KEY_NS], [NS]); // already a member
    expect(m.hasDirtyChanges).toBe(false);
    m.removeFromList(KEY_NS, [NS, NAMED_PORT]); // NAMED_PORT: not cached, ignored
    expect(text(m)).toBe(lines(`-N ${K.KEY_NS} --exist setlist`, `-D ${K.KEY_NS} ${K.NS}`));
    expect(m.getIPSet('ns-test-ns-set')!.ipsetReferCount).toBe(1);
    m.removeFromList({ name: 'missing', type: 'nestedLabelOfPod' }, [NS]);
    m.addToLists([], [NS]);
    m.addToLists([KEY_NS], []);
    expect(m.hasIPSet('nestedlabel-missing')).toBe(false);
  });

  it('fixes docs/reference-behaviour.md §g.2.7: addToLists and removeFromList are all-or-nothing', () => {
    const m = manager();
    m.addToLists([KEY_NS], [NS, KEY_POD]);
    applyAll(m);
    const before = observable(m);
    failure(() => m.addToLists([KV_NS, NS], [CIDR]), 'INVALID_SET_TYPE');
    failure(() => m.addToLists([KV_NS], [CIDR, NESTED]), 'INVALID_SET_TYPE');
    failure(() => m.removeFromList(KEY_NS, [NS, NESTED]), 'INVALID_SET_TYPE');
    expect(observable(m)).toEqual(before);
  });

  it('fixes docs/reference-behaviour.md §g.2.6: force-deleting a list releases its members\' reference counts', () => {
    const m = manager();
    m.addToLists([NESTED], [KEY_POD, KV_POD]);
    applyAll(m);
    expect(m.deleteIPSet('podlabel-test-keyPod-set', 'soft')).toBe(false); // in a list
    expect(m.deleteIPSet('nestedlabel-test-nestedlabel-list', 'force')).toBe(true);
    expect(m.getIPSet('podlabel-test-keyPod-set')!.ipsetReferCount).toBe(0);
    expect(m.getIPSet('podlabel-test-keyPod-set')!.kernelReferCount).toBe(0);
    // The reference leaks the counts here, so the former members could never be deleted.
    expect(m.deleteIPSet('podlabel-test-keyPod-set', 'soft')).toBe(true);
    expect(m.reconcile()).toEqual(['podlabel-test-kvPod-set']);
    expect(text(m)).toBe(
      lines(
        `-X ${K.NESTED}`,
        `-X ${K.KEY_POD}`,
        `-X ${K.KV_POD}`,
      ),
    );
  });

  it('fixes docs/reference-behaviour.md §g.2.6: in on-need mode a force-deleted list\'s members can leave the kernel', () => {
    const m = manager({ mode: 'on-need' });
    m.addToLists([NESTED], [KEY_POD]);
    m.addToSets([KEY_POD], '10.0.0.1', 'p');
    m.addReference(NESTED, 'np', 'selector');
    applyAll(m);
    m.deleteReference('nestedlabel-test-nestedlabel-list', 'np', 'selector');
    expect(m.deleteIPSet('nestedlabel-test-nestedlabel-list', 'force')).toBe(true);
    expect(m.getIPSet('podlabel-test-keyPod-set')).toMatchObject({ ipsetReferCount: 0, kernelReferCount: 0, inKernel: false });
    expect(m.deleteIPSet('podlabel-test-keyPod-set', 'force')).toBe(true);
  });

  it('reconcile keeps a list with members and its members; emptied, both go', () => {
    const m = manager();
    m.addToLists([KEY_NS], [NS]);
    applyAll(m);
    expect(m.reconcile()).toEqual([]);
    m.removeFromList(KEY_NS, [NS]);
    expect(m.reconcile()).toEqual(['ns-test-ns-set', 'nslabel-test-keyNS-list']);
    expect(m.size).toBe(0);
  });
});

describe('IPSetManager: deleting sets', () => {
  it.each([
    ['soft', 'an empty unused set', true, (m: IPSetManager) => m.createIPSets([NS])],
    ['soft', 'a set with members', false, (m: IPSetManager) => m.addToSets([NS], '10.0.0.1', 'p')],
    ['force', 'a set with members', true, (m: IPSetManager) => m.addToSets([NS], '10.0.0.1', 'p')],
    ['force', 'a set with a selector reference', false, (m: IPSetManager) => m.addReference(NS, 'np', 'selector')],
    ['force', 'a set with a netpol reference', false, (m: IPSetManager) => m.addReference(NS, 'np', 'netpol')],
    ['force', 'a set in a list', false, (m: IPSetManager) => m.addToLists([KEY_NS], [NS])],
  ] as const)('%s delete of %s → deleted: %s', (option, _what, deleted, setup) => {
    const m = manager();
    setup(m);
    expect(m.deleteIPSet('ns-test-ns-set', option)).toBe(deleted);
    expect(m.hasIPSet('ns-test-ns-set')).toBe(!deleted);
  });

  it('ignores unknown names and refuses bad options', () => {
    const m = manager();
    expect(m.deleteIPSet('ns-nothing')).toBe(false);
    failure(() => m.deleteIPSet('ns-nothing', 'hard' as never), 'INVALID_ARGUMENT');
  });

  it('mode all: a created then deleted set never reaches the kernel; an applied one is destroyed', () => {
    const m = manager();
    m.createIPSets([NS, KEY_POD]);
    m.deleteIPSet('ns-test-ns-set');
    expect(applyAll(m)).toBe(lines(`-N ${K.KEY_POD} --exist nethash`));
    m.deleteIPSet('podlabel-test-keyPod-set');
    expect(text(m)).toBe(lines(`-X ${K.KEY_POD}`));
  });

  it('mode all: an in-kernel set deleted and re-created in one period deletes its old members, no flush/destroy', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'a');
    m.addToSets([NS], '10.0.0.2', 'b');
    applyAll(m);
    m.removeFromSets([NS], '10.0.0.1', 'a');
    m.removeFromSets([NS], '10.0.0.2', 'b');
    m.deleteIPSet('ns-test-ns-set');
    m.addToSets([NS], '10.0.0.2', 'c');
    m.addToSets([NS], '10.0.0.3', 'c');
    expect(text(m)).toBe(lines(`-N ${K.NS} --exist nethash`, `-D ${K.NS} 10.0.0.1`, `-A ${K.NS} 10.0.0.3`));
  });

  it('reconcile soft-deletes every deletable set and returns their names', () => {
    const m = manager();
    m.createIPSets([NS, KEY_POD, CIDR]);
    m.addToSets([KEY_POD], '10.0.0.1', 'p');
    m.addReference(CIDR, 'np', 'netpol');
    expect(m.reconcile()).toEqual(['ns-test-ns-set']);
    expect([...m.getAllIPSets().values()]).toEqual(['podlabel-test-keyPod-set', 'cidr-test-cidr-set']);
  });
});

describe('IPSetManager: references', () => {
  it('refuses a selector reference on a set type that cannot select, creating nothing', () => {
    const m = manager();
    for (const meta of [CIDR, NAMED_PORT, KEY_NS, KV_NS]) {
      const error = failure(() => m.addReference(meta, 'ns/np', 'selector'), 'INVALID_REFERENCE');
      expect(error.message).toContain(`is not a selector ipset: it is of type ${meta.type}`);
    }
    expect(m.size).toBe(0);
    for (const meta of [NS, KEY_POD, KV_POD, NESTED]) m.addReference(meta, 'ns/np', 'selector');
    expect(m.getIPSet('ns-test-ns-set')!.selectorReferences).toEqual(['ns/np']);
  });

  it('lets one netpol own a CIDR set; another is refused until the owner lets go', () => {
    const m = manager();
    m.addReference(CIDR, 'ns/a', 'netpol');
    m.addReference(CIDR, 'ns/a', 'netpol');
    const error = failure(() => m.addReference(CIDR, 'ns/b', 'netpol'), 'INVALID_REFERENCE');
    expect(error.message).toBe('cidr ipset "cidr-test-cidr-set" is already owned by netpol "ns/a"; refusing reference from netpol "ns/b"');
    m.deleteReference('cidr-test-cidr-set', 'ns/a', 'netpol');
    m.addReference(CIDR, 'ns/b', 'netpol');
    expect(m.getIPSet('cidr-test-cidr-set')!.netPolReferences).toEqual(['ns/b']);
    // Other set types may have many netpol references.
    m.addReference(NS, 'ns/a', 'netpol');
    m.addReference(NS, 'ns/b', 'netpol');
    expect(m.getIPSet('ns-test-ns-set')!.netPolReferences).toEqual(['ns/a', 'ns/b']);
  });

  it('deleteReference of a missing set is SET_NOT_FOUND; of a missing reference is fine', () => {
    const m = manager();
    expect(failure(() => m.deleteReference('ns-nothing', 'np', 'selector'), 'SET_NOT_FOUND').message).toBe(
      'cannot delete selector reference "np": ipset "ns-nothing" does not exist',
    );
    m.createIPSets([NS]);
    expect(() => m.deleteReference('ns-test-ns-set', 'np', 'netpol')).not.toThrow();
    failure(() => m.deleteReference('ns-test-ns-set', '', 'netpol'), 'INVALID_ARGUMENT');
    failure(() => m.addReference(NS, 'np', 'rule' as never), 'INVALID_ARGUMENT');
  });

  it('mode all: references never touch the dirty cache', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    applyAll(m);
    m.addReference(NS, 'np', 'selector');
    m.deleteReference('ns-test-ns-set', 'np', 'selector');
    expect(m.hasDirtyChanges).toBe(false);
  });
});

describe('IPSetManager: on-need mode', () => {
  it('keeps unreferenced sets out of the kernel and does not record their member changes', () => {
    const m = manager({ mode: 'on-need' });
    m.addToSets([NS, KEY_POD], '10.0.0.1', 'p');
    m.addToLists([KEY_NS], [NS]);
    expect(m.hasDirtyChanges).toBe(false);
    expect(m.desiredState().sets).toEqual([]);
  });

  it('a reference brings a set (and a list\'s members) into the kernel with all members; losing it destroys them', () => {
    const m = manager({ mode: 'on-need' });
    m.addToSets([KEY_POD], '10.0.0.1', 'p');
    m.addToSets([KEY_POD], '10.0.0.2', 'q');
    m.addToLists([NESTED], [KEY_POD, KV_POD]);
    m.addReference(NESTED, 'ns/np', 'selector');
    expect(applyAll(m)).toBe(
      lines(
        `-N ${K.NESTED} --exist setlist`,
        `-N ${K.KEY_POD} --exist nethash`,
        `-N ${K.KV_POD} --exist nethash`,
        `-A ${K.NESTED} ${K.KEY_POD}`,
        `-A ${K.NESTED} ${K.KV_POD}`,
        `-A ${K.KEY_POD} 10.0.0.1`,
        `-A ${K.KEY_POD} 10.0.0.2`,
      ),
    );
    expect(m.getIPSet('podlabel-test-keyPod-set')).toMatchObject({ kernelReferCount: 1, inKernel: true });
    m.addToSets([KEY_POD], '10.0.0.3', 'r');
    expect(applyAll(m)).toBe(lines(`-N ${K.KEY_POD} --exist nethash`, `-A ${K.KEY_POD} 10.0.0.3`));
    m.deleteReference('nestedlabel-test-nestedlabel-list', 'ns/np', 'selector');
    expect(text(m)).toBe(
      lines(`-X ${K.NESTED}`, `-X ${K.KEY_POD}`, `-X ${K.KV_POD}`),
    );
    expect(m.size).toBe(3); // still cached
  });

  it('fixes docs/reference-behaviour.md §g.2.5: on-need re-create diff uses the current members', () => {
    const m = manager({ mode: 'on-need' });
    m.addToSets([NS], '10.0.0.1', 'a');
    m.addToSets([NS], '10.0.0.2', 'b');
    m.addReference(NS, 'np', 'selector');
    applyAll(m);
    m.deleteReference('ns-test-ns-set', 'np', 'selector'); // → destroy, kernel holds .1 and .2
    m.removeFromSets([NS], '10.0.0.1', 'a'); // not recorded: not in the kernel
    m.addToSets([NS], '10.0.0.3', 'c'); // not recorded
    m.addReference(NS, 'np', 'selector'); // back before the apply
    // The reference emits -D .1 and -D .2 and never adds .3.
    expect(text(m)).toBe(lines(`-N ${K.NS} --exist nethash`, `-D ${K.NS} 10.0.0.1`, `-A ${K.NS} 10.0.0.3`));
  });

  it('removing a set from an in-kernel list destroys it when nothing else needs it', () => {
    const m = manager({ mode: 'on-need' });
    m.addToLists([NESTED], [KEY_POD]);
    m.addReference(NESTED, 'np', 'netpol');
    m.addReference(KV_POD, 'np', 'netpol');
    m.addToLists([NESTED], [KV_POD]);
    applyAll(m);
    m.removeFromList(NESTED, [KEY_POD, KV_POD]);
    expect(text(m)).toBe(
      lines(`-N ${K.NESTED} --exist setlist`, `-D ${K.NESTED} ${K.KEY_POD}`, `-D ${K.NESTED} ${K.KV_POD}`, `-X ${K.KEY_POD}`),
    );
    expect(m.getIPSet('podlabel-test-kvPod-set')).toMatchObject({ kernelReferCount: 0, inKernel: true });
  });
});

describe('IPSetManager: the shared empty set', () => {
  it('gives every namespace-label list the empty set, which is always in the kernel', () => {
    const m = manager({ addEmptySetToLists: true, mode: 'on-need' });
    m.createIPSets([KEY_NS, NESTED]);
    m.addToLists([KV_NS], [NS]);
    expect(m.getIPSet('nslabel-test-keyNS-list')!.members).toEqual(['empty-emptyhashset']);
    expect(m.getIPSet('nslabel-test-kvNS-list')!.members).toEqual(['empty-emptyhashset', 'ns-test-ns-set']);
    expect(m.getIPSet('nestedlabel-test-nestedlabel-list')!.members).toEqual([]);
    expect(text(m)).toBe(lines(`-N ${K.EMPTY} --exist nethash`));
    m.addReference(KEY_NS, 'np', 'netpol');
    expect(text(m)).toBe(
      lines(`-N ${K.EMPTY} --exist nethash`, `-N ${K.KEY_NS} --exist setlist`, `-A ${K.KEY_NS} ${K.EMPTY}`),
    );
  });

  it('mode all: the list, then the empty set, then the membership', () => {
    const m = manager({ addEmptySetToLists: true });
    m.createIPSets([KEY_NS]);
    expect(text(m)).toBe(lines(`-N ${K.KEY_NS} --exist setlist`, `-N ${K.EMPTY} --exist nethash`, `-A ${K.KEY_NS} ${K.EMPTY}`));
  });

  it('never removes or deletes the empty set; a list holding only it can be soft-deleted', () => {
    const warnings: string[] = [];
    const m = new IPSetManager({ addEmptySetToLists: true, onWarning: (w) => warnings.push(w) });
    m.createIPSets([KEY_NS]);
    m.removeFromList(KEY_NS, [{ name: 'emptyhashset', type: 'emptyHashSet' }]);
    expect(m.getIPSet('nslabel-test-keyNS-list')!.members).toEqual(['empty-emptyhashset']);
    expect(warnings).toHaveLength(1);
    expect(m.deleteIPSet('empty-emptyhashset', 'force')).toBe(false);
    expect(m.reconcile()).toEqual(['nslabel-test-keyNS-list']);
    expect(m.hasIPSet('empty-emptyhashset')).toBe(true);
  });

  it('without the option, lists get no empty set', () => {
    const m = manager();
    m.createIPSets([KEY_NS]);
    expect(m.getIPSet('nslabel-test-keyNS-list')!.members).toEqual([]);
    expect(m.hasIPSet('empty-emptyhashset')).toBe(false);
  });
});

describe('IPSetManager: reading', () => {
  it('fixes docs/reference-behaviour.md §g.2.17: getIPSet returns a frozen snapshot, not the live set', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    const snap = m.getIPSet('ns-test-ns-set')!;
    expect(Object.isFrozen(snap)).toBe(true);
    expect(Object.isFrozen(snap.members)).toBe(true);
    expect(() => (snap.members as string[]).push('10.0.0.9')).toThrow(TypeError);
    (snap.podKeys as Map<string, string>).set('10.0.0.9', 'x');
    m.addToSets([NS], '10.0.0.2', 'p');
    expect(snap.members).toEqual(['10.0.0.1']);
    expect(m.getIPSet('ns-test-ns-set')!.members).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(m.getIPSet('ns-test-ns-set')!.podKeys.has('10.0.0.9')).toBe(false);
    expect(m.getIPSet('ns-other')).toBeUndefined();
  });

  it('describes a set completely', () => {
    const m = manager();
    m.addToSets([KEY_POD], '10.0.0.1', 'p');
    m.addReference(KEY_POD, 'np', 'selector');
    m.addToLists([NESTED], [KEY_POD]);
    expect(m.getIPSet('podlabel-test-keyPod-set')).toEqual({
      name: 'podlabel-test-keyPod-set',
      unprefixedName: 'test-keyPod-set',
      kernelName: K.KEY_POD,
      type: 'keyLabelOfPod',
      kind: 'set',
      createSpec: 'nethash',
      members: ['10.0.0.1'],
      podKeys: new Map([['10.0.0.1', 'p']]),
      selectorReferences: ['np'],
      netPolReferences: [],
      ipsetReferCount: 1,
      kernelReferCount: 1,
      inKernel: true,
    });
  });

  it('getAllIPSets maps kernel names to prefixed names', () => {
    const m = manager();
    m.createIPSets([NS, KEY_NS]);
    expect(m.getAllIPSets()).toEqual(
      new Map([
        [K.NS, 'ns-test-ns-set'],
        [K.KEY_NS, 'nslabel-test-keyNS-list'],
      ]),
    );
  });

  it('desiredState lists the sets that should be in the kernel with canonical members', () => {
    const m = manager({ mode: 'on-need' });
    m.addToSets([KEY_POD], '10.0.0.1/32', 'p');
    m.addToSets([CIDR], '10.1.0.0/16 nomatch', '');
    m.addToLists([NESTED], [KEY_POD]);
    m.addReference(NESTED, 'np', 'selector');
    expect(m.desiredState()).toEqual({
      owner: 'azure-npm-',
      sets: [
        { name: K.KEY_POD, label: 'podlabel-test-keyPod-set', spec: 'nethash', members: ['10.0.0.1'] },
        { name: K.NESTED, label: 'nestedlabel-test-nestedlabel-list', spec: 'setlist', members: [K.KEY_POD] },
      ],
    });
    expect(kernelName('podlabel-test-keyPod-set')).toBe(K.KEY_POD);
  });
});

describe('IPSetManager: consecutive apply failures', () => {
  it('throws MAX_CONSECUTIVE_FAILURES at the limit and resets on success', () => {
    const m = manager({ maxConsecutiveFailures: 3 });
    m.recordApplyResult(false);
    m.recordApplyResult(false);
    expect(m.consecutiveApplyFailures).toBe(2);
    m.recordApplyResult(true);
    expect(m.consecutiveApplyFailures).toBe(0);
    m.recordApplyResult(false);
    m.recordApplyResult(false);
    const error = failure(() => m.recordApplyResult(false), 'MAX_CONSECUTIVE_FAILURES');
    expect(error.message).toBe('exceeded max consecutive failures (3) when applying ipsets');
    expect(m.consecutiveApplyFailures).toBe(3);
  });

  it('defaults to the reference\'s limit of 100', () => {
    const m = manager();
    for (let i = 0; i < 99; i++) m.recordApplyResult(false);
    failure(() => m.recordApplyResult(false), 'MAX_CONSECUTIVE_FAILURES');
    m.reset();
    expect(m.consecutiveApplyFailures).toBe(0);
  });
});

describe('IPSetManager: reset', () => {
  it('forgets every set and the dirty delta', () => {
    const m = manager({ addEmptySetToLists: true });
    m.addToLists([KEY_NS], [NS]);
    m.reset();
    expect(m.size).toBe(0);
    expect(m.hasDirtyChanges).toBe(false);
    m.createIPSets([KEY_NS]);
    expect(m.getIPSet('nslabel-test-keyNS-list')!.members).toEqual(['empty-emptyhashset']);
  });
});
