/**
 * The lines of a script: create lines (in the reference syntax and the long forms,
 * repeated options, wrong types), add/del/test lines, long add runs that cross the
 * 4096-byte batch boundary, flush/destroy/list/save, and the rarer forms.
 */
import fc from 'fast-check';
import { POOL, createOf, setName, typeOf } from './pool.js';
import type { SetType } from './pool.js';
import { element } from './elements.js';

export function createLine(clean: boolean): fc.Arbitrary<string> {
  const styles = clean
    ? (['seed', 'seed', 'maxelem', 'alias'] as const)
    : (['plain', 'plain', 'seed', 'maxelem', 'alias', 'badtype', 'other-type', 'repeated', 'other-family', 'other-family'] as const);
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
        case 'other-family': {
          // -exist does not compare the family: over an existing set it succeeds and the
          // userspace cache then holds the wrong family for that name.
          if (set.type === 'list:set') return `create ${set.name} list:set -exist`;
          const [, , type, ...rest] = createOf(set).split(' ');
          const six = rest.join(' ').includes('family inet6');
          return `create ${set.name} ${type!}${six ? '' : ' family inet6'} -exist`;
        }
        default:
          return `create ${set.name} ${kernelType}`;
      }
    });
}

export function adtLine(clean: boolean): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom('add', 'add', 'add', 'del', '-A', '-D'), setName(clean))
    .chain(([cmd, name]) => element(typeOf(name), clean).map((el) => `${cmd} ${name} ${el}`));
}

/** A run of add (or del) lines to one set, long enough to fill one or more 4096-byte batches. */
export function run(clean: boolean): fc.Arbitrary<string[]> {
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

export function otherLine(clean: boolean): fc.Arbitrary<string> {
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
        // A CIDR of /0 in a hash:net test is "NOT in set"; an inet6 range is refused
        // before its CIDR is read (a `-` at the end is a bad CIDR instead).
        'test n 10.0.0.1/0',
        'test n 10.0.0.0/00',
        'test n6 2001:db8::1/0',
        'test n6 2001:db8::/64',
        'test n6 2001:db8::/127-2001:db8::5',
        'test n6 2001:db8::/-64',
        'test n6 2001:db8::/64-',
        'test six 2001:db8::1/128',
        'test six 2001:db8::1-2001:db8::2',
        'test p6 fe80::1-fe80::2,80',
      ).chain((line) => fc.constantFrom(line, `-T ${line.slice('test '.length)}`)),
    },
  );
}

/** Bytes of `text` in UTF-8. */
function utf8Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

/**
 * Lines of 1,019-1,027 bytes: `ipset restore` reads lines in fgets chunks of at most
 * 1,023 bytes, so the chunk of a longer line ends inside it and the rest is a line of
 * its own. The line ends in a quoted comment (up to 255 characters, some of them
 * multibyte), an unquoted word, an opening quote or a second command.
 */
export function lineLimitLine(clean: boolean): fc.Arbitrary<string> {
  // At most 255 bytes (the kernel's limit counts bytes: 128 `é` are too long).
  const commentText = fc
    .tuple(fc.integer({ min: 1, max: 255 }), fc.constantFrom('x', 'y z', 'é'))
    .map(([n, unit]) => (unit === 'é' ? unit.repeat(Math.max(1, n >> 1)) : unit.repeat(Math.ceil(n / unit.length)).slice(0, n)));
  const tails = clean
    ? fc.oneof(commentText.map((c) => ` comment "${c}"`), fc.constant(''))
    : fc.oneof(commentText.map((c) => ` comment "${c}"`), commentText.map((c) => ` comment ${c.replace(/ /g, '')}`), fc.constantFrom('', ' comment "', ' "', ' comment "a" "b"', '\nadd a 10.0.0.9', ' add a 10.0.0.9'));
  return fc
    .tuple(fc.constantFrom('add c 10.0.0.5', 'add c 10.0.0.6', '#', 'add a 10.0.0.7'), tails, fc.integer({ min: 1019, max: clean ? 1023 : 1027 }))
    .map(([head, tail, length]) => {
      const [first, ...more] = tail.split('\n');
      const pad = Math.max(0, length - utf8Length(head) - utf8Length(first!));
      return [`${head}${' '.repeat(pad)}${first!}`, ...more].join('\n');
    })
    .filter((line) => !clean || !line.startsWith('add a') || !line.includes('comment'));
}

/** Rarer commands and forms: rename, swap, list positions, long and CRLF lines, all-set flush/destroy, icmp families. */
export function exoticLine(): fc.Arbitrary<string> {
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
