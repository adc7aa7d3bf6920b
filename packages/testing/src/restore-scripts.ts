/**
 * Random `ipset restore` scripts for the fake-versus-real differential test: valid and
 * invalid lines over hash:ip (also inet6, with counters/comment/timeout, with skbinfo),
 * hash:net and hash:ip,port of both families (IPv6 in many spellings, CIDR limits,
 * family mismatches, ICMPv6 forms, hash full) and list:set (members of both
 * families), `test` lines whose messages print the element as ipset parsed it,
 * bracketed addresses, repeated create options, errors caught in
 * userspace and in the kernel, `-exist` (per line and per run), seed syntax
 * (`-N … --exist nethash`), long add runs that cross the 4096-byte batch boundary, and
 * swap/rename, including the temporary-set rebuild (create, fill, swap, destroy).
 *
 * Scripts avoid what the real kernel does at random (hash-size growth on big range
 * adds, `maxelem` during resizes), so any difference is a fidelity bug.
 */
import fc from 'fast-check';

/** One generated script. */
export interface RestoreScript {
  /** The restore text (each line ends in `\n`). */
  text: string;
  /** Run as `ipset -exist restore` (else `ipset restore`). */
  exist: boolean;
}

type SetType =
  | 'hash:ip'
  | 'hash:net'
  | 'hash:ip,port'
  | 'list:set'
  | 'hash:ip6'
  | 'hash:ip-ext'
  | 'hash:ip-skb'
  | 'hash:net6'
  | 'hash:ip,port6';

/** The set names scripts use, with the type each is created with (`x…` are never created). */
const POOL: readonly { name: string; type: SetType }[] = [
  { name: 'a', type: 'hash:ip' },
  { name: 'n', type: 'hash:net' },
  { name: 'p', type: 'hash:ip,port' },
  { name: 'l', type: 'list:set' },
  { name: 'm', type: 'hash:ip' },
  { name: 'azure-npm-1a2b3c4d5e6f7g8h9i0j', type: 'hash:net' },
  { name: 'six', type: 'hash:ip6' },
  { name: 'l2', type: 'list:set' },
  { name: 'c', type: 'hash:ip-ext' },
  { name: 'k', type: 'hash:ip-skb' },
  { name: 'n6', type: 'hash:net6' },
  { name: 'p6', type: 'hash:ip,port6' },
];

/** The `family inet6` pool types and the hash type they are created with. */
const INET6_BASE: Partial<Record<SetType, string>> = { 'hash:net6': 'hash:net', 'hash:ip,port6': 'hash:ip,port' };

/** The create line of a pool set. */
function createOf(set: { name: string; type: SetType }): string {
  if (set.type === 'hash:ip6') return `create ${set.name} hash:ip family inet6`;
  if (set.type === 'hash:ip-ext') return `create ${set.name} hash:ip counters comment timeout 0`;
  if (set.type === 'hash:ip-skb') return `create ${set.name} hash:ip skbinfo`;
  const base6 = INET6_BASE[set.type];
  if (base6 !== undefined) return `create ${set.name} ${base6} family inet6`;
  return `create ${set.name} ${set.type}`;
}
const MISSING = ['x', 'nosuch'];
const ALL_NAMES = [...POOL.map((s) => s.name), ...MISSING];

const poolName = fc.constantFrom(...POOL.map((s) => s.name));

/** A set name: usually one of the pool, rarely (never when `clean`) one that is never created. */
function setName(clean: boolean): fc.Arbitrary<string> {
  return clean ? poolName : fc.oneof({ weight: 12, arbitrary: poolName }, { weight: 1, arbitrary: fc.constantFrom(...MISSING) });
}

/** `valid`, plus `invalid` unless the script is clean. */
function mix(clean: boolean, valid: fc.Arbitrary<string>, invalid: fc.Arbitrary<string>, invalidWeight = 1): fc.Arbitrary<string> {
  return clean ? valid : fc.oneof({ weight: 6, arbitrary: valid }, { weight: invalidWeight, arbitrary: invalid });
}

const octet = fc.integer({ min: 0, max: 7 });
const smallIp = fc.tuple(octet, octet).map(([c, d]) => `10.0.${c}.${d + 1}`);

const badIp = fc.constantFrom('1.1.1.300', '999.1.1.1', '10.0.0.0/', '1.2.3.4.5', '10.0.0.08', '2001:db8::1');

/** Small IPv6 addresses in the spellings inet_pton accepts and glibc prints differently. */
const smallIp6 = fc
  .tuple(octet, octet, fc.constantFrom('plain', 'plain', 'upper', 'zeros', 'full', 'bracket', 'dotted'))
  .map(([c, d, style]) => {
    switch (style) {
      case 'upper':
        return `2001:DB8::${c}:${(d + 1).toString(16).toUpperCase()}F`;
      case 'zeros':
        return `2001:0db8:0000::000${c}:0${d + 1}`;
      case 'full':
        return `2001:db8:0:0:0:0:${c}:${d + 1}`;
      case 'bracket':
        return `[2001:db8::${c}:${d + 1}]`;
      case 'dotted':
        return `::ffff:10.0.${c}.${d + 1}`;
      default:
        return `2001:db8::${c}:${d + 1}`;
    }
  });

const badIp6 = fc.constantFrom('2001:db8:::1', '02001:db8::1', '1::2::3', '1:2:3:4:5:6:7::8', 'fe80::1%eth0', '[::1', '[[::1]]', '[]', '::1]', '10.0.0.1', '2001:db8::g');

function element(type: SetType, clean: boolean): fc.Arbitrary<string> {
  switch (type) {
    case 'hash:net6':
      return mix(
        clean,
        fc.oneof(
          { weight: 4, arbitrary: smallIp6 },
          {
            weight: 4,
            arbitrary: fc
              .tuple(smallIp6, fc.constantFrom('/64', '/120', '/128', '/1', '/48', '/127', '/064'))
              .map(([ip, len]) => `${ip}${len}`),
          },
          { weight: 2, arbitrary: fc.tuple(octet, fc.constantFrom(48, 64, 96)).map(([c, len]) => `2001:db8:${c}::/${len} nomatch`) },
          { weight: 1, arbitrary: fc.constantFrom('::', '::/1', '8000::/1', '::1 nomatch', '::ffff:1.2.3.4/96', '[2001:db8::a]/64') },
        ),
        fc.oneof(
          fc.constantFrom('::/0', '2001:db8::/129', '2001:db8::/abc', '2001:db8::1-2001:db8::5', '2001:db8::/64,80', '10.0.0.0/8', '[]/64'),
          badIp6,
        ),
        2,
      );
    case 'hash:ip,port6':
      return mix(
        clean,
        fc.oneof(
          {
            weight: 6,
            arbitrary: fc
              .tuple(smallIp6, fc.constantFrom('tcp:', 'udp:', 'sctp:', '', 'TCP:'), fc.constantFrom(80, 443, 53, 0))
              .map(([ip, proto, port]) => `${ip},${proto}${port}`),
          },
          {
            weight: 2,
            arbitrary: fc.constantFrom(
              'fe80::1,icmpv6:echo-request',
              'fe80::1,icmpv6:128/0',
              'fe80::2,ipv6-icmp:ping',
              'fe80::3,58:1/5',
              'fe80::4,icmpv6:no-route',
              'fe80::5,http',
              'fe80::6,udp:domain',
              'fe80::7,80-82',
              'fe80::8/128,tcp:8',
              '::ffff:10.1.1.1,tcp:80',
            ),
          },
        ),
        fc.constantFrom(
          'fe80::1/64,tcp:80',
          '10.0.0.1,tcp:80',
          '::,tcp:1',
          'fe80::1',
          'fe80::1 nomatch',
          'fe80::1,tcp:70000',
          'fe80::1,icmpv6:nosuch',
          'fe80::1,icmpv6:300/0',
          'fe80::1,icmp:ping',
          '[fe80::1,tcp:80',
          'fe80::1-fe80::2,tcp:80',
        ),
        2,
      );
    case 'hash:ip':
      return mix(
        clean,
        fc.oneof(
          { weight: 8, arbitrary: smallIp },
          { weight: 1, arbitrary: fc.constantFrom('10.0.9.0/30', '10.0.9.4-10.0.9.6', '167772164', '10.3', '012.0.0.1', 'localhost') },
          { weight: 1, arbitrary: fc.constantFrom('[10.0.0.1]', '[10.0.0.2]/32', '[10.0.0.3]-[10.0.0.4]', '[10.5]') },
        ),
        fc.oneof(badIp, fc.constantFrom('0.0.0.0', '10.0.0.1 nomatch', '10.0.0.1/0', '10.0.0.1,80', '[10.0.0.1-10.0.0.2]', '[10.0.0.1', '[10.0.0.1]x', '[]')),
        2,
      );
    case 'hash:ip-ext':
      return mix(
        clean,
        fc.oneof(
          { weight: 3, arbitrary: smallIp },
          { weight: 1, arbitrary: smallIp.map((ip) => `${ip} comment "hello world"`) },
          { weight: 1, arbitrary: smallIp.map((ip) => `${ip} packets 5 bytes 300`) },
          { weight: 1, arbitrary: smallIp.map((ip) => `${ip} timeout 0 comment x`) },
        ),
        fc.constantFrom(`10.0.0.1 comment ${'x'.repeat(256)}`, `10.0.0.2 comment ${'y'.repeat(255)}`, '10.0.0.1 comment "oops', '10.0.0.1 comment', '10.0.0.1 skbmark 0x1', '10.0.0.1 skbmark 1', '10.0.0.1 timeout abc'),
      );
    case 'hash:ip-skb':
      // skbmark is sscanf("0x%lx/0x%lx"): decimal and `0X` fail in userspace, trailing text
      // is ignored; zero values are not reported; an -exist re-add replaces all three.
      return mix(
        clean,
        fc.oneof(
          { weight: 2, arbitrary: smallIp },
          {
            weight: 3,
            arbitrary: fc
              .tuple(
                smallIp,
                fc.constantFrom('', ' skbmark 0x1', ' skbmark 0x1/0xff', ' skbmark 0xFF/0x0', ' skbmark 0x0/0x0', ' skbmark 0x1/255', ' skbmark 0x-1', ' skbmark 0x100000002'),
                fc.constantFrom('', ' skbprio 1:2', ' skbprio 0x10:ffff', ' skbprio 0:0', ' skbprio -1:1'),
                fc.constantFrom('', ' skbqueue 3', ' skbqueue 0'),
              )
              .map(([ip, mark, prio, queue]) => `${ip}${mark}${prio}${queue}`),
          },
        ),
        fc.constantFrom('10.0.0.1 skbmark 1', '10.0.0.1 skbmark 0X1', '10.0.0.1 skbmark 0x', '10.0.0.1 skbprio 1', '10.0.0.1 skbqueue 65536', '10.0.0.1 skbmark'),
      );
    case 'hash:ip6':
      return mix(
        clean,
        fc.oneof(
          { weight: 6, arbitrary: fc.tuple(octet, octet).map(([c, d]) => `2001:db8::${c}:${d + 1}`) },
          { weight: 1, arbitrary: fc.constantFrom('2001:DB8::A', '::1') },
        ),
        fc.constantFrom('10.0.0.1', '2001:db8::/126', '::'),
      );
    case 'hash:net':
      return mix(
        clean,
        fc.oneof(
          { weight: 4, arbitrary: fc.tuple(octet, fc.constantFrom(8, 16, 24, 32)).map(([c, len]) => `10.${c}.${c}.0/${len}`) },
          { weight: 3, arbitrary: smallIp },
          { weight: 2, arbitrary: fc.tuple(octet, fc.constantFrom(16, 24)).map(([c, len]) => `192.168.${c}.0/${len} nomatch`) },
          { weight: 1, arbitrary: fc.constantFrom('10.1.2.3/8', '10.0.0.1-10.0.0.6') },
        ),
        fc.oneof(fc.constantFrom('10.0.0.0/0', '10.0.0.0/33', '10.0.0.0/abc'), badIp),
        2,
      );
    case 'hash:ip,port':
      return mix(
        clean,
        fc.oneof(
          {
            weight: 6,
            arbitrary: fc
              .tuple(smallIp, fc.constantFrom('tcp:', 'udp:', 'sctp:', '', 'TCP:'), fc.constantFrom(80, 443, 53, 8080))
              .map(([ip, proto, port]) => `${ip},${proto}${port}`),
          },
          { weight: 1, arbitrary: fc.constantFrom('10.0.0.1,http', '10.0.0.1,udp:domain', '10.0.0.1,80-82', '10.0.0.1,icmp:ping') },
          { weight: 1, arbitrary: fc.constantFrom('[10.0.0.2],tcp:80', '10.3,udp:0x35', '10.0.0.1,6:22', '10.0.0.1,icmp:3/3', '10.0.0.1,gre:0', '2001:db8::1,tcp:80') },
        ),
        fc.constantFrom(
          '10.0.0.1,tcp:70000',
          '10.0.0.1,nosuchservice',
          '10.0.0.1',
          '10.0.0.1,',
          '10.0.0.1,80,90',
          '10.0.0.1,foo:80',
          '10.0.0.1,gre:5',
          '10.0.0.1,0:0',
        ),
        2,
      );
    case 'list:set':
      return clean ? fc.constantFrom(...POOL.filter((s) => s.type !== 'list:set').map((s) => s.name)) : setName(false);
  }
}

function typeOf(name: string): SetType {
  return POOL.find((s) => s.name === name)?.type ?? 'hash:ip';
}

function createLine(clean: boolean): fc.Arbitrary<string> {
  const styles = clean
    ? (['seed', 'seed', 'maxelem', 'alias'] as const)
    : (['plain', 'plain', 'seed', 'maxelem', 'alias', 'badtype', 'other-type', 'repeated'] as const);
  return fc
    .tuple(fc.constantFrom(...POOL, { name: 'x', type: 'hash:ip' as SetType }), fc.constantFrom(...styles))
    .map(([set, style]) => {
      const kernelType = createOf(set).split(' ').slice(2).join(' ');
      switch (style) {
        case 'seed':
          return set.type === 'list:set'
            ? `-N ${set.name} --exist setlist`
            : set.type === 'hash:ip,port'
              ? `-N ${set.name} --exist hash:ip,port`
              : set.type === 'hash:ip,port6'
                ? `-N ${set.name} --exist hash:ip,port family inet6`
                : set.type === 'hash:net6'
                  ? `-N ${set.name} --exist nethash family inet6`
                  : `-N ${set.name} --exist nethash`;
        case 'maxelem':
          return set.type === 'list:set' ? `create ${set.name} list:set size 4` : `create ${set.name} ${kernelType} maxelem 4`;
        case 'repeated':
          return set.type === 'list:set'
            ? `create ${set.name} list:set size 4 size 5`
            : `create ${set.name} ${kernelType} ${['maxelem 4 maxelem 5', 'family inet6 -4', 'hashsize 64 --hashsize 128', 'counters counters'][set.name.length % 4]}`;
        case 'alias':
          if (set.type === 'hash:net6') return `create ${set.name} nethash family inet6`;
          if (set.type === 'hash:ip,port6') return `create ${set.name} ipporthash -6`;
          return `create ${set.name} ${set.type === 'list:set' ? 'setlist' : set.type === 'hash:net' ? 'nethash' : set.type === 'hash:ip,port' ? 'ipporthash' : 'iphash'}`;
        case 'badtype':
          return `create ${set.name} hash:foo`;
        case 'other-type':
          return `create ${set.name} ${set.type === 'hash:net' ? 'hash:ip' : 'hash:net'}`;
        default:
          return `create ${set.name} ${kernelType}`;
      }
    });
}

function adtLine(clean: boolean): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom('add', 'add', 'add', 'del', '-A', '-D'), setName(clean))
    .chain(([cmd, name]) => element(typeOf(name), clean).map((el) => `${cmd} ${name} ${el}`));
}

/** A run of add (or del) lines to one set, long enough to fill one or more 4096-byte batches. */
function run(clean: boolean): fc.Arbitrary<string[]> {
  return fc
    .tuple(
      fc.constantFrom('a', 'n', 'p', 'azure-npm-1a2b3c4d5e6f7g8h9i0j', 'n6', 'p6'),
      fc.integer({ min: 90, max: 420 }),
      clean ? fc.constantFrom('none', 'none', 'dup', 'del') : fc.constantFrom('none', 'none', 'dup', 'bad-end', 'missing-set-end', 'del'),
      fc.nat(),
    )
    .map(([name, count, twist, seed]) => {
      const type = typeOf(name);
      const el = (i: number): string => {
        if (type === 'hash:net6') return i % 5 === 0 ? `2001:db8:${i.toString(16)}::/48` : `2001:db8::${(i >> 8) & 255}:${(i & 255).toString(16)}`;
        if (type === 'hash:ip,port6') return `fe80::${i.toString(16)},tcp:${80 + (i % 3)}`;
        const ip = `10.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
        if (type === 'hash:ip,port') return `${ip},tcp:${80 + (i % 3)}`;
        if (type === 'hash:net' && i % 5 === 0) return `${ip.replace(/\.\d+$/, '.0')}/24`;
        return ip;
      };
      const lines = Array.from({ length: count }, (_, i) => `add ${name} ${el(i)}`);
      switch (twist) {
        case 'dup':
          lines.splice(10 + (seed % (count - 10)), 0, `add ${name} ${el(seed % 10)}`);
          break;
        case 'bad-end':
          lines.push(`add ${name} 10.0.0.300`);
          break;
        case 'missing-set-end':
          lines.push(`add nosuch ${el(0)}`);
          break;
        case 'del':
          return lines.map((l) => l.replace(/^add /, 'del '));
      }
      return lines;
    });
}

function otherLine(clean: boolean): fc.Arbitrary<string> {
  if (clean) {
    return fc.oneof(
      { weight: 3, arbitrary: setName(true).map((n) => `flush ${n}`) },
      { weight: 1, arbitrary: setName(true).map((n) => `-F ${n}`) },
      { weight: 2, arbitrary: fc.constantFrom('# a comment', '', '   ', 'COMMIT') },
    );
  }
  return fc.oneof(
    { weight: 3, arbitrary: setName(false).map((n) => `flush ${n}`) },
    { weight: 3, arbitrary: setName(false).map((n) => `destroy ${n}`) },
    { weight: 1, arbitrary: setName(false).map((n) => `-F ${n}`) },
    { weight: 1, arbitrary: setName(false).map((n) => `-X ${n}`) },
    { weight: 2, arbitrary: fc.constantFrom('# a comment', '', '   ', 'COMMIT') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('bogus', 'add', 'add a', 'create a', 'COMMIT ', 'commit', 'restore', '-exist', 'add a 10.0.0.1 # c'),
    },
    { weight: 1, arbitrary: fc.constantFrom('test a 10.0.0.1', 'test n 10.0.0.0/8', 'test p 10.0.0.1,tcp:80', 'quit') },
    // test messages print the element as ipset parsed it, and test refuses some ranges.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'test a 10.0.1',
        'test a [10.0.0.2]',
        'test p 10.0.0.1,http',
        'test p 10.0.0.1,6:80',
        'test p 10.0.0.2,icmp:8/0',
        'test p 10.0.0.1,80-81',
        'test p 10.0.0.1/24,80',
        'test n 10.0.0.0-10.0.0.5',
        'test n 10.0.0.0/32',
        'test n6 2001:DB8::0001',
        'test n6 [2001:db8::1]/128',
        'test n6 2001:db8::5/120',
        'test n6 ::0.0.0.1',
        'test p6 FE80::1,80',
        'test p6 fe80::1,icmpv6:128/0',
        'test p6 fe80::1/128,tcp:1',
        'test p6 fe80::1,80-81',
      ),
    },
  );
}

/** Rarer commands and forms: rename, swap, list positions, long and CRLF lines, all-set flush/destroy, icmp families. */
function exoticLine(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(setName(false), fc.constantFrom('a2', 'n', 'm', 'l', 'a')).map(([a, b]) => `rename ${a} ${b}`),
    fc.tuple(setName(false), setName(false)).map(([a, b]) => `swap ${a} ${b}`),
    fc
      .tuple(fc.constantFrom('add', 'del'), fc.constantFrom('l', 'l2'), setName(false), fc.constantFrom('before', 'after'), setName(false))
      .map(([cmd, list, member, where, ref]) => `${cmd} ${list} ${member} ${where} ${ref}`),
    // The comma form `NAME,before|after,REF`, its malformed shapes (a userspace error that
    // loses the pending batch) and a second position (`before already specified`).
    fc
      .tuple(
        fc.constantFrom('add', 'del', 'test'),
        fc.constantFrom('l', 'l2'),
        setName(false),
        fc.constantFrom('before', 'after', 'BEFORE', 'b', ''),
        setName(false),
        fc.constantFrom('', '', ' before a', ' after m'),
      )
      .map(([cmd, list, member, where, ref, extra]) => `${cmd} ${list} ${member},${where},${ref}${extra}`),
    fc.constantFrom('add l m,', 'add l ,before,a', 'add l m,before', 'add l m,before,a,', 'add l m,after,a,b', 'del l x,y', 'add a 10.0.0.1 timeout 5 timeout 6'),
    fc.constantFrom(
      `# ${'x'.repeat(1100)}`,
      `add a 10.0.0.5 ${' '.repeat(1030)}`,
      'add a 10.0.0.6\r',
      'flush',
      'destroy',
      '--add a 10.0.0.7',
      'ad a 10.0.0.8',
      'a a 10.0.0.9',
      'cr z hash:ip',
      // An icmp type of the other family: preceded by a flush (nothing pending: a userspace
      // error), by an add (ipset segfaults), or by a del batch, which is sent first (its
      // kernel error wins); later option errors on the line win over all of these.
      'flush m\\nadd p 10.0.0.1,icmpv6:ping',
      'add p 10.0.0.9,80\\nadd p 10.0.0.1,icmpv6:ping',
      'add m 10.0.0.9\\nadd p 10.0.0.1,icmpv6:ping',
      'del m 10.0.0.1\\nadd p 10.0.0.1,icmpv6:ping',
      'del m 10.0.0.1\\nadd p 10.0.0.1,icmpv6:ping timeout abc',
      'del p 10.0.0.1,tcp:80\\nadd p 10.0.0.1,icmpv6:ping',
      'del m 10.0.0.1\\ndel p 10.0.0.1,icmpv6:ping',
      'create p6 hash:ip,port family inet6\\ndel a 10.0.0.1\\nadd p6 ::1,icmp:ping',
      'del n6 ::1\\nadd p6 fe80::1,icmp:ping',
      'add p6 fe80::9,80\\nadd p6 fe80::1,icmp:ping',
      'create r6 hash:net family inet6 maxelem 2\\nadd r6 ::1\\nadd r6 ::2/127\\nadd r6 ::3',
      'create r7 hash:ip,port family inet6 maxelem 2\\nadd r7 fe80::1,80-83',
      'add p 10.0.0.1,icmpv6:ping skbmark 1',
      'add p 10.0.0.2,icmp:echo-request',
      'add n 10.2.0.0/16 nomatch -exist',
      'add n 10.2.0.0/16 -exist',
      'add a 1.1.1.1 -q',
      'create r hash:ip maxelem 2',
      'add r 10.0.0.1\nadd r 10.0.0.2\nadd r 10.0.0.3',
    ),
  ).map((line) => line.replace(/\\r/g, '\r').replace(/\\n/g, '\n'));
}

// ---------------------------------------------------------------------------
// swap and rename (the hitless-rebuild commands): a temporary set built, filled,
// swapped with a pool set and destroyed — the rebuild pattern — plus swaps and
// renames across types, families, lists, missing and same names. References from
// iptables rules cannot be set up by a script; swap-rename.test.ts in
// @ipsets/exec-linux covers them.

/** Temporary set names (never in the pool): owned-looking ones as a rebuild makes them, and short ones. */
const TEMPS = ['azure-npm-1a2b3c4d5e6f7g8h9i0k', 't', 't2'];

/** A create line for temporary `name` with the type (and family) of pool set `like`, or another one. */
function tempCreate(name: string, like: { name: string; type: SetType }, sameType: boolean): string {
  if (sameType) return createOf({ name, type: like.type });
  return createOf({ name, type: like.type === 'hash:net' ? 'hash:ip,port' : 'hash:net' });
}

/** The rebuild pattern on one pool set, with twists that make it fail on purpose. */
function rebuildLines(clean: boolean): fc.Arbitrary<string[]> {
  const twists = clean ? (['none', 'none', 'maxelem', 'keep-temp'] as const) : (['none', 'maxelem', 'keep-temp', 'other-type', 'no-temp', 'swap-back', 'destroy-live'] as const);
  return fc
    .tuple(
      fc.constantFrom(...POOL),
      fc.constantFrom(...TEMPS),
      fc.constantFrom(...twists),
      fc.integer({ min: 0, max: 6 }),
      fc.nat(),
    )
    .chain(([set, temp, twist, count, seed]) =>
      fc.array(element(set.type, true), { minLength: count, maxLength: count }).map((members) => {
        const lines: string[] = [];
        if (twist !== 'no-temp') {
          const create = tempCreate(temp, set, twist !== 'other-type');
          lines.push(twist === 'maxelem' && set.type !== 'list:set' ? `${create} maxelem ${2 + (seed % 5)}` : create);
        }
        for (const m of members) lines.push(`add ${temp} ${m}`);
        lines.push(`swap ${temp} ${set.name}`);
        if (twist === 'swap-back') lines.push(`swap ${set.name} ${temp}`);
        if (twist === 'destroy-live') lines.push(`destroy ${set.name}`);
        if (twist !== 'keep-temp') lines.push(`destroy ${temp}`);
        return lines;
      }),
    );
}

/** One swap or rename line between pool, temporary and missing names. */
function swapRenameLine(clean: boolean): fc.Arbitrary<string> {
  const name = clean ? fc.constantFrom(...POOL.map((s) => s.name), ...TEMPS) : fc.constantFrom(...ALL_NAMES, ...TEMPS);
  return fc.oneof(
    fc.tuple(name, name).map(([a, b]) => `swap ${a} ${b}`),
    fc.tuple(name, name).map(([a, b]) => `rename ${a} ${b}`),
    fc.tuple(fc.constantFrom('-W', 'w', '-E', 'e'), name, name).map(([cmd, a, b]) => `${cmd} ${a} ${b}`),
    // A list membership is a reference: renaming a listed set is refused, swapping it is not.
    fc.constantFrom('add l m\nrename m mm', 'add l m\nswap m a', 'add l2 n\nswap l l2'),
    ...(clean ? [] : [fc.constantFrom('swap a', 'rename a', 'swap a n m', `rename a ${'r'.repeat(32)}`)]),
  );
}

/**
 * Arbitrary restore scripts (see the module comment). A third of them are "clean":
 * no invalid lines, so they usually run to the end and compare a full final state.
 */
export function restoreScriptArb(): fc.Arbitrary<RestoreScript> {
  return fc.oneof({ weight: 1, arbitrary: scriptOf(true) }, { weight: 2, arbitrary: scriptOf(false) });
}

function scriptOf(clean: boolean): fc.Arbitrary<RestoreScript> {
  const item = fc.oneof(
    { weight: 2, arbitrary: createLine(clean).map((l) => [l]) },
    { weight: 12, arbitrary: adtLine(clean).map((l) => [l]) },
    { weight: 1, arbitrary: run(clean) },
    { weight: 2, arbitrary: otherLine(clean).map((l) => [l]) },
    { weight: clean ? 0 : 1, arbitrary: exoticLine().map((l) => [l]) },
    // swap and rename (see their part above)
    { weight: 1, arbitrary: rebuildLines(clean) },
    { weight: 1, arbitrary: swapRenameLine(clean).map((l) => [l]) },
  );
  const withExist = fc.tuple(item, fc.integer({ min: 0, max: 9 })).map(([lines, r]) => (r === 0 ? lines.map((l, i) => (i === 0 && l.trim() !== '' && !l.startsWith('#') ? `${l} -exist` : l)) : lines));
  // Scripts start by creating most of the pool, so element lines usually reach the kernel.
  const prologue = fc
    .array(fc.integer({ min: clean ? 1 : 0, max: 9 }), { minLength: POOL.length, maxLength: POOL.length })
    .map((dice) =>
      POOL.filter((_, i) => dice[i]! > 0).map(createOf),
    );
  // Clean scripts run with -exist (duplicate adds and deletes of absent members are then fine).
  return fc
    .tuple(prologue, fc.array(withExist, { minLength: 1, maxLength: 20 }), clean ? fc.constant(true) : fc.boolean())
    .map(([pro, items, exist]) => ({ text: [...pro, ...items.flat()].map((l) => `${l}\n`).join(''), exist }));
}
