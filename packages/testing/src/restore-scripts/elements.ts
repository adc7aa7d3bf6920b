/**
 * Elements of each pool type, valid and invalid: IPv4 and IPv6 in many spellings, CIDR
 * limits, ports and protocols (ICMP and ICMPv6 forms), extension and skbinfo options,
 * family mismatches.
 */
import fc from 'fast-check';
import { POOL, setName, mix } from './pool.js';
import type { SetType } from './pool.js';

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

export function element(type: SetType, clean: boolean): fc.Arbitrary<string> {
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
          // Ranges with a CIDR: refused as ranges, unless the `-` ends the text.
          fc.constantFrom('2001:db8::/127-2001:db8::5', '2001:db8::-2001:db8::/64', '2001:db8::/-64', '2001:db8::/64-', '2001:db8::/abc-1', 'x-y/3'),
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
          // Quotes inside and around words: the quotes go, the word stays one.
          { weight: 1, arbitrary: fc.tuple(smallIp, fc.constantFrom('x"y z"', '"a""b"', '"a"x"b"', 'a" "')).map(([ip, c]) => `${ip} comment ${c}`) },
        ),
        fc.constantFrom('10.0.0.1 comment "a" "b"', '10.0.0.1 comment abc"', '10.0.0.1 comment ""', `10.0.0.1 comment ${'x'.repeat(256)}`, `10.0.0.2 comment ${'y'.repeat(255)}`, '10.0.0.1 comment "oops', '10.0.0.1 comment', '10.0.0.1 skbmark 0x1', '10.0.0.1 skbmark 1', '10.0.0.1 timeout abc'),
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
