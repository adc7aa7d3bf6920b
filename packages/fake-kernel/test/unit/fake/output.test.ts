/**
 * save / list / list -t / list -n formats (docs/ipset-semantics.md §5), slot order,
 * references, and the JSON state round trip.
 */
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '../../../src/fake-kernel.js';
import { kernelWith, P, run } from '../../helpers/fake.js';

const STATE = [
  'create n hash:net',
  'add n 10.0.0.1/32',
  'add n 10.0.0.5/24',
  'add n 192.168.1.0/24',
  'add n 172.16.0.0/12',
  'add n 10.2.0.0/16 nomatch',
  'create ip hash:ip',
  'add ip 10.0.0.3',
  'add ip 10.0.0.1',
  'add ip 10.0.0.2',
  'create ipp hash:ip,port',
  'add ipp 10.0.0.1,80',
  'add ipp 10.0.0.2,tcp:443',
  'add ipp 10.0.0.3,udp:53',
  'add ipp 10.0.0.4,http',
  'add ipp 10.0.0.5,udp:domain',
  'add ipp 10.0.0.6,sctp:80',
  'add ipp 10.0.0.7,icmp:ping',
  'add ipp 10.0.0.8,icmp:3/1',
  'add ipp 10.0.0.9,gre:0',
  'add ipp 10.0.0.10,47:0',
  'add ipp 10.0.0.11,udplite:5',
  'add ipp 10.0.0.12,80-82',
  'add ipp 10.0.0.13,6:22',
  'add ipp 10.0.0.14,17:22',
  'add ipp 10.0.0.15,esp:0',
  'create l list:set',
  'add l ip',
  'add l n',
  'create n6 hash:net family inet6',
  'add n6 2001:DB8::/32',
  'add n6 2001:db8:1::1/128',
  'add n6 2001:db8:2::5/48',
  'create ip6 hash:ip family inet6',
  'add ip6 2001:db8::1',
  'add ip6 ::ffff:1.2.3.4',
  'add ip6 ::1',
  'create ipp6 hash:ip,port family inet6',
  'add ipp6 2001:db8::1,tcp:80',
  'add ipp6 2001:db8::1,icmpv6:ping',
];

function loaded(): FakeKernel {
  const { r, k } = run(STATE);
  expect(r.exitCode).toBe(0);
  return k;
}

const maskInitval = (s: string): string => s.replace(/initval 0x[0-9a-f]{8}/g, 'initval 0x<I>');

describe('docs/ipset-semantics.md §5.1 save', () => {
  it('prints non-list sets first, list:sets last, members canonical (insertion order)', () => {
    expect(maskInitval(loaded().save().stdout)).toBe(
      [
        'create n hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>',
        'add n 10.0.0.1',
        'add n 10.0.0.0/24',
        'add n 192.168.1.0/24',
        'add n 172.16.0.0/12',
        'add n 10.2.0.0/16 nomatch',
        'create ip hash:ip family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>',
        'add ip 10.0.0.3',
        'add ip 10.0.0.1',
        'add ip 10.0.0.2',
        'create ipp hash:ip,port family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>',
        'add ipp 10.0.0.1,tcp:80',
        'add ipp 10.0.0.2,tcp:443',
        'add ipp 10.0.0.3,udp:53',
        'add ipp 10.0.0.4,tcp:80',
        'add ipp 10.0.0.5,udp:53',
        'add ipp 10.0.0.6,sctp:80',
        'add ipp 10.0.0.7,icmp:echo-request',
        'add ipp 10.0.0.8,icmp:host-unreachable',
        'add ipp 10.0.0.9,gre:0',
        'add ipp 10.0.0.10,gre:0',
        'add ipp 10.0.0.11,udplite:5',
        'add ipp 10.0.0.12,tcp:80',
        'add ipp 10.0.0.12,tcp:81',
        'add ipp 10.0.0.12,tcp:82',
        'add ipp 10.0.0.13,tcp:22',
        'add ipp 10.0.0.14,udp:22',
        'add ipp 10.0.0.15,esp:0',
        'create n6 hash:net family inet6 hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>',
        'add n6 2001:db8::/32',
        'add n6 2001:db8:1::1',
        'add n6 2001:db8:2::/48',
        'create ip6 hash:ip family inet6 hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>',
        'add ip6 2001:db8::1',
        'add ip6 ::ffff:1.2.3.4',
        'add ip6 ::1',
        'create ipp6 hash:ip,port family inet6 hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>',
        'add ipp6 2001:db8::1,tcp:80',
        'add ipp6 2001:db8::1,ipv6-icmp:echo-request',
        'create l list:set size 8',
        'add l ip',
        'add l n',
        '',
      ].join('\n'),
    );
  });

  it('save NAME prints one set; a missing set is an error', () => {
    const k = loaded();
    expect(maskInitval(k.save('l').stdout)).toBe('create l list:set size 8\nadd l ip\nadd l n\n');
    expect(k.save('nosuch')).toEqual({ exitCode: 1, stdout: '', stderr: `${P}The set with the given name does not exist\n` });
  });

  it('create options print in ipset order whatever the input order; hashsize rounds; forceadd is not printed', () => {
    const { k } = run([
      'create t hash:ip timeout 300 counters comment skbinfo netmask 24 hashsize 1000 maxelem 77',
      'create y hash:net family inet6 hashsize 100 timeout 0',
      'create b hash:ip hashsize 1 forceadd',
      'create c hash:ip hashsize 3000 initval 0x12345678',
      'create z hash:ip maxelem 0',
      'create l1 list:set size 1',
      'create l2 list:set size 100000',
      'create l3 list:set size 0',
    ]);
    expect(maskInitval(k.save().stdout)).toBe(
      [
        'create t hash:ip family inet hashsize 1024 maxelem 77 netmask 24 timeout 300 counters comment skbinfo bucketsize 12 initval 0x<I>',
        'create y hash:net family inet6 hashsize 128 maxelem 65536 timeout 0 bucketsize 12 initval 0x<I>',
        'create b hash:ip family inet hashsize 64 maxelem 65536 bucketsize 12 initval 0x<I>',
        'create c hash:ip family inet hashsize 4096 maxelem 65536 bucketsize 12 initval 0x<I>',
        'create z hash:ip family inet hashsize 1024 maxelem 0 bucketsize 12 initval 0x<I>',
        'create l1 list:set size 4',
        'create l2 list:set size 100000',
        'create l3 list:set size 4',
        '',
      ].join('\n'),
    );
    expect(k.save('c').stdout).toContain('initval 0x12345678');
  });

  it('empty namespace: no output, rc 0', () => {
    const k = new FakeKernel();
    for (const r of [k.save(), k.list(), k.listNames(), k.listHeaders()]) expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('round trip: save | restore reproduces the state; again without -exist fails on line 1, with -exist succeeds', () => {
    const k = loaded();
    const text = k.save().stdout;
    const k2 = new FakeKernel();
    expect(k2.restore(text).exitCode).toBe(0);
    expect(maskInitval(k2.save().stdout)).toBe(maskInitval(text));
    expect(k2.restore(text).stderr).toBe(`${P}Error in line 1: Set cannot be created: set with the same name already exists\n`);
    expect(k2.restore(text, { exist: true }).exitCode).toBe(0);
  });
});

describe('docs/ipset-semantics.md §5.2 list', () => {
  it('prints the header block, memory from docs/ipset-semantics.md §5.2, references, members; blank line between sets only', () => {
    const out = loaded().list().stdout;
    const blocks = out.split('\n\n');
    expect(blocks).toHaveLength(7);
    expect(out.endsWith('\n')).toBe(true);
    expect(out.endsWith('\n\n')).toBe(false);
    expect(maskInitval(blocks[0] as string)).toBe(
      'Name: n\nType: hash:net\nRevision: 7\nHeader: family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>\n' +
        'Size in memory: 696\nReferences: 1\nNumber of entries: 5\nMembers:\n10.0.0.1\n10.0.0.0/24\n192.168.1.0/24\n172.16.0.0/12\n10.2.0.0/16 nomatch',
    );
    const sizes = [...out.matchAll(/Size in memory: (\d+)/g)].map((m) => Number(m[1]));
    expect(sizes).toEqual([696, 336, 1032, 1456, 416, 376, 176]);
    const revisions = [...out.matchAll(/Revision: (\d+)/g)].map((m) => Number(m[1]));
    expect(revisions).toEqual([7, 6, 7, 7, 6, 7, 3]);
    expect(blocks[6]).toBe('Name: l\nType: list:set\nRevision: 3\nHeader: size 8\nSize in memory: 176\nReferences: 0\nNumber of entries: 2\nMembers:\nip\nn\n');
  });

  it('an empty set ends with Members:', () => {
    const { k } = run(['create a hash:ip', 'create b hash:ip', 'add b 1.1.1.1']);
    expect(maskInitval(k.list().stdout)).toBe(
      'Name: a\nType: hash:ip\nRevision: 6\nHeader: family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>\nSize in memory: 216\nReferences: 0\nNumber of entries: 0\nMembers:\n\n' +
        'Name: b\nType: hash:ip\nRevision: 6\nHeader: family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x<I>\nSize in memory: 256\nReferences: 0\nNumber of entries: 1\nMembers:\n1.1.1.1\n',
    );
  });

  it('list -t: headers only, blank line between sets; list -n: names', () => {
    const k = loaded();
    const terse = k.listHeaders().stdout;
    expect(terse).not.toContain('Members:');
    expect(terse.split('\n\n')).toHaveLength(7);
    expect(terse.endsWith('Number of entries: 2\n')).toBe(true);
    expect(k.listNames().stdout).toBe('n\nip\nipp\nn6\nip6\nipp6\nl\n');
    for (const argv of [['list', '--name'], ['list', '-name'], ['-n', 'list']]) expect(k.exec(argv).stdout).toBe('n\nip\nipp\nn6\nip6\nipp6\nl\n');
  });

  it('list -o save is save; save -o plain is list', () => {
    const k = loaded();
    expect(k.exec(['list', '-o', 'save']).stdout).toBe(k.save().stdout);
    expect(k.exec(['save', '-o', 'plain', 'n']).stdout).toBe(k.list('n').stdout);
    expect(k.exec(['-L', 'n']).stdout).toBe(k.list('n').stdout);
    expect(k.exec(['-S', 'n']).stdout).toBe(k.save('n').stdout);
  });

  it('memory per element for extensions and hashsize regions', () => {
    const size = (create: string, n: number, suffix = ''): number => {
      const { k } = run([create, ...Array.from({ length: n }, (_, i) => `add a 10.0.0.${i + 1}${suffix}`)]);
      return Number(/Size in memory: (\d+)/.exec(k.list('a').stdout)?.[1]);
    };
    expect([0, 1, 2, 3, 10].map((n) => size('create a hash:ip', n))).toEqual([216, 256, 296, 336, 616]);
    expect([0, 1, 10].map((n) => size('create a hash:ip timeout 300', n))).toEqual([216, 280, 856]);
    expect([0, 1, 10].map((n) => size('create a hash:ip comment', n))).toEqual([216, 280, 856]);
    expect([0, 1, 10].map((n) => size('create a hash:ip counters', n))).toEqual([216, 296, 1016]);
    expect([0, 1, 10].map((n) => size('create a hash:net', n))).toEqual([456, 504, 936]);
    expect([0, 1, 10].map((n) => size('create a hash:ip,port', n, ',80'))).toEqual([216, 264, 696]);
    expect(size('create a hash:ip hashsize 4096', 0)).toBe(288);
  });

  it('hashsize grows with the set (stand-in: doubles above 3 entries per bucket)', () => {
    const k = new FakeKernel();
    const lines = ['create a hash:ip', ...Array.from({ length: 6000 }, (_, i) => `add a 10.0.${i >> 8}.${i & 255}`)];
    k.restore(`${lines.join('\n')}\n`);
    expect(k.save('a').stdout).toMatch(/^create a hash:ip family inet hashsize 2048 /);
    k.restore('flush a\n');
    expect(k.save('a').stdout).toMatch(/^create a hash:ip family inet hashsize 2048 /);
  });
});

describe('docs/ipset-semantics.md §5.3 order and references', () => {
  it('create reuses the lowest free slot; rename keeps the slot; swap keeps names in place', () => {
    const k = kernelWith('create a hash:ip\ncreate b hash:ip\ncreate c hash:ip\ncreate d hash:ip\ndestroy b\ncreate e hash:ip\ncreate f hash:ip\n');
    expect(k.setNames()).toEqual(['a', 'e', 'c', 'd', 'f']);
    k.restore('rename a z\n');
    expect(k.setNames()).toEqual(['z', 'e', 'c', 'd', 'f']);
    k.restore('add z 1.1.1.1\nswap z c\n');
    expect(k.setNames()).toEqual(['z', 'e', 'c', 'd', 'f']);
    expect(k.members('c')).toEqual(['1.1.1.1']);
    expect(k.members('z')).toEqual([]);
  });

  it('list:sets print after every other set, each group in slot order', () => {
    const k = kernelWith('create l1 list:set\ncreate a hash:ip\ncreate l2 list:set\ncreate b hash:net\n');
    expect(k.setNames()).toEqual(['a', 'b', 'l1', 'l2']);
  });

  it('references: list memberships and iptables rules; swap leaves references with the names', () => {
    const k = kernelWith('create m hash:ip\ncreate m2 hash:ip\nadd m 1.1.1.1\nadd m2 2.2.2.2\ncreate l list:set\nadd l m\n');
    k.reference('m2');
    expect([k.references('m'), k.references('m2')]).toEqual([1, 1]);
    expect(k.restore('swap m m2\n').exitCode).toBe(0);
    expect(k.members('l')).toEqual(['m']);
    expect(k.members('m')).toEqual(['2.2.2.2']);
    expect([k.references('m'), k.references('m2')]).toEqual([1, 1]);
    expect(k.list('m2').stdout).toContain('References: 1\n');
    expect(k.restore('destroy m2\n').stderr).toBe(`${P}Error in line 1: Set cannot be destroyed: it is in use by a kernel component\n`);
    expect(k.restore('rename m2 x\n').stderr).toBe(`${P}Error in line 1: Set cannot be renamed: it is in use by another system\n`);
    expect(k.restore('destroy\n').stderr).toBe(`${P}Error in line 1: Set cannot be destroyed: it is in use by a kernel component\n`);
    expect(k.setNames()).toEqual(['m', 'm2', 'l']);
    k.unreference('m2');
    expect(k.restore('flush l\ndestroy m\ndestroy m2\n').exitCode).toBe(0);
    expect(k.setNames()).toEqual(['l']);
  });

  it('swap of two list:sets moves contents; member references are unchanged', () => {
    const k = kernelWith('create m1 hash:ip\ncreate m2 hash:ip\ncreate l1 list:set\ncreate l2 list:set\nadd l1 m1\nadd l2 m2\nswap l1 l2\n');
    expect([k.members('l1'), k.members('l2')]).toEqual([['m2'], ['m1']]);
    expect([k.references('m1'), k.references('m2')]).toEqual([1, 1]);
  });

  it('reference/unreference reject unknown sets and unmatched unreferences', () => {
    const k = kernelWith('create a hash:ip\n');
    expect(() => k.reference('nosuch')).toThrow(expect.objectContaining({ code: 'SET_NOT_FOUND' }));
    expect(() => k.unreference('a')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('toJSON / fromJSON', () => {
  it('round-trips sets, slots (with holes), members, extensions and iptables references', () => {
    const k = loaded();
    k.restore('create t hash:net timeout 100 counters comment\nadd t 10.0.0.0/8 nomatch comment "c d" packets 1 bytes 2\ncreate x hash:ip\ndestroy ip6\n');
    k.reference('t');
    const json = JSON.parse(JSON.stringify(k)) as unknown;
    const k2 = FakeKernel.fromJSON(json);
    expect(k2.save().stdout).toBe(k.save().stdout);
    expect(k2.list().stdout).toBe(k.list().stdout);
    expect(k2.references('t')).toBe(1);
    expect(k2.references('n')).toBe(1);
    k2.restore('create y hash:ip\n');
    k.restore('create y hash:ip\n');
    expect(k2.setNames()).toEqual(k.setNames());
    expect(k2.save().stdout).toBe(k.save().stdout);
  });

  it('rejects other data', () => {
    expect(() => FakeKernel.fromJSON({ sets: [] })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => new FakeKernel({ maxSets: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('-sorted (bystrcmp)', () => {
  it('sorts hash members like ipset -s (docs/ipset-semantics.md §5.3 examples); list:sets keep list order', () => {
    const k = loaded();
    const save = k.exec(['save', '-s']).stdout.split('\n');
    const of = (set: string): string[] => save.filter((l) => l.startsWith(`add ${set} `)).map((l) => l.slice(5 + set.length));
    expect(of('n')).toEqual(['10.0.0.0/24', '10.0.0.1', '10.2.0.0/16 nomatch', '172.16.0.0/12', '192.168.1.0/24']);
    expect(of('ip6')).toEqual(['::1', '::ffff:1.2.3.4', '2001:db8::1']);
    expect(of('n6')).toEqual(['2001:db8::/32', '2001:db8:1::1', '2001:db8:2::/48']);
    expect(of('ipp6')).toEqual(['2001:db8::1,tcp:80', '2001:db8::1,ipv6-icmp:echo-request']);
    expect(of('ipp')).toEqual([
      '10.0.0.1,tcp:80',
      '10.0.0.2,tcp:443',
      '10.0.0.3,udp:53',
      '10.0.0.4,tcp:80',
      '10.0.0.5,udp:53',
      '10.0.0.6,sctp:80',
      '10.0.0.7,icmp:echo-request',
      '10.0.0.8,icmp:host-unreachable',
      '10.0.0.9,gre:0',
      '10.0.0.10,gre:0',
      '10.0.0.11,udplite:5',
      '10.0.0.12,tcp:80',
      '10.0.0.12,tcp:81',
      '10.0.0.12,tcp:82',
      '10.0.0.13,tcp:22',
      '10.0.0.14,udp:22',
      '10.0.0.15,esp:0',
    ]);
    expect(of('l')).toEqual(['ip', 'n']);
    expect(k.exec(['list', '-s', 'ip']).stdout).toMatch(/Members:\n10\.0\.0\.1\n10\.0\.0\.2\n10\.0\.0\.3\n$/);
  });
});
