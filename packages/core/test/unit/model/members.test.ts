import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import {
  canonicalMember,
  canonicalMemberForType,
  entryKey,
  hasNomatch,
  isValidMember,
  memberFamily,
  stripNomatch,
  type MemberKind,
} from '../../../src/model/members.js';
import { isValidKernelSetName, validateSetName } from '../../../src/model/set-names.js';

function errorOf(fn: () => unknown): Error & { code?: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a throw');
}

describe('canonicalMember hash:net', () => {
  const valid: [string, string][] = [
    ['10.0.0.1', '10.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.0.0.5/24', '10.0.0.0/24'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['10.0.0.1/32', '10.0.0.1'],
    ['10.0.0.1/31', '10.0.0.0/31'],
    ['255.255.255.255/1', '128.0.0.0/1'],
    ['0.0.0.0/1', '0.0.0.0/1'],
    ['128.0.0.0/1', '128.0.0.0/1'],
    ['10.2.0.0/16 nomatch', '10.2.0.0/16 nomatch'],
    ['10.2.3.4/16 nomatch', '10.2.0.0/16 nomatch'],
    ['10.0.0.1/32 nomatch', '10.0.0.1 nomatch'],
    ['10.0.0.1 nomatch', '10.0.0.1 nomatch'],
    // seed examples of docs/reference-behaviour.md §b.9 that are valid for hash:net
    ['172.17.0.0/16', '172.17.0.0/16'],
    ['172.17.1.0/24 nomatch', '172.17.1.0/24 nomatch'],
    ['10.0.0.0', '10.0.0.0'],
    ['192.168.0.1 nomatch', '192.168.0.1 nomatch'],
  ];
  it.each(valid)('%j → %j', (input, expected) => {
    expect(canonicalMember('hash:net', input)).toBe(expected);
    // canonical forms are fixed points
    expect(canonicalMember('hash:net', expected)).toBe(expected);
  });

  const invalid: [string, RegExp][] = [
    // seed-invalid examples (docs/reference-behaviour.md §b.9)
    ['1234', /dotted-decimal/],
    ['256.1.2.3', /dotted-decimal/],
    ['', /empty/],
    ['2001:db8::1', /IPv6/],
    ['2001:db8::/32', /IPv6/],
    ['2001:db8::1 nomatch', /IPv6/],
    ['2001:db8::1,tcp:80', /IPv6 address, and a family inet set/],
    ['10.0.0.1/33', /prefix length/],
    ['1.1.1.1/0', /\/0 prefix/],
    ['310.0.0.0/8', /dotted-decimal/],
    ['x.x.x.x/8', /dotted-decimal/],
    ['x.x.x.x', /dotted-decimal/],
    ['x.x.x.x,80', /dotted-decimal/],
    [',80', /dotted-decimal/],
    // seed-valid, but not for hash:net in our model
    ['192.168.0.0/24,tcp:25227', /hash:ip,port/],
    ['192.168.0.1,tcp:25227', /hash:ip,port/],
    ['0.0.0.0/0', /0\.0\.0\.0\/1 and 128\.0\.0\.0\/1/],
    // stricter grammar
    ['010.0.0.1', /dotted-decimal/],
    ['10.0.0.08', /dotted-decimal/],
    ['1.2.3', /dotted-decimal/],
    ['1.2.3.4.5', /unexpected/],
    ['1.2.3.', /dotted-decimal/],
    ['.1.2.3', /dotted-decimal/],
    ['1..2.3', /dotted-decimal/],
    ['1000.0.0.1', /dotted-decimal/],
    ['10.0.0.0/', /prefix length/],
    ['10.0.0.0/08', /prefix length/],
    ['10.0.0.0/008', /prefix length/],
    ['10.0.0.0/-1', /prefix length/],
    ['10.0.0.0/abc', /prefix length/],
    ['10.0.0.0/100', /prefix length/],
    ['10.0.0.1-10.0.0.5', /unexpected/],
    [' 10.0.0.1', /whitespace/],
    ['10.0.0.1 ', /unexpected/],
    ['10.0.0.1  nomatch', /unexpected/],
    ['10.0.0.1\tnomatch', /unexpected/],
    ['10.0.0.1 nomatch nomatch', /unexpected/],
    ['10.0.0.1 NOMATCH', /unexpected/],
    ['10.0.0.1 nomatch ', /unexpected/],
    ['10.0.0.1\n-X victim', /unexpected/],
    ['10.0.0.1 # comment', /unexpected/],
    ['10.0.0.1 timeout 5', /unexpected/],
    ['-X', /leading "-"/],
    ['#10.0.0.1', /"#"/],
    ['\n', /newlines/],
    ['localhost', /dotted-decimal/],
    ['167772164', /dotted-decimal/],
    ['１.2.3.4', /dotted-decimal/],
  ];
  it.each(invalid)('rejects %j', (input, reason) => {
    const error = errorOf(() => canonicalMember('hash:net', input));
    expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
    expect(error.message).toContain(JSON.stringify(input));
    expect(error.message).toMatch(reason);
    expect(error.message).toContain('expected');
    expect(error.details).toMatchObject({ kind: 'hash:net', member: input });
  });

  it('returns the very same string when already canonical', () => {
    const s = ['10', '0', '0', '0/8'].join('.');
    expect(canonicalMember('hash:net', s)).toBe(s);
  });
});

describe('canonicalMember hash:ip,port', () => {
  const valid: [string, string][] = [
    ['10.0.0.1,tcp:80', '10.0.0.1,tcp:80'],
    ['10.0.0.1,udp:53', '10.0.0.1,udp:53'],
    ['10.0.0.1,sctp:9', '10.0.0.1,sctp:9'],
    ['10.0.0.1,80', '10.0.0.1,tcp:80'],
    ['10.0.0.1,0', '10.0.0.1,tcp:0'],
    ['10.0.0.1,tcp:0', '10.0.0.1,tcp:0'],
    ['10.0.0.1,tcp:65535', '10.0.0.1,tcp:65535'],
    ['0.0.0.1,udp:1', '0.0.0.1,udp:1'],
    // reference example of docs/reference-behaviour.md §b.9 that is valid for hash:ip,port
    ['192.168.0.1,tcp:25227', '192.168.0.1,tcp:25227'],
  ];
  it.each(valid)('%j → %j', (input, expected) => {
    expect(canonicalMember('hash:ip,port', input)).toBe(expected);
    expect(canonicalMember('hash:ip,port', expected)).toBe(expected);
  });

  const invalid: [string, RegExp][] = [
    // seed examples of docs/reference-behaviour.md §b.9
    ['192.168.0.0/24,tcp:25227', /CIDR/],
    ['172.17.0.0/16', /CIDR/],
    ['172.17.1.0/24 nomatch', /CIDR/],
    ['10.0.0.0', /missing/],
    ['192.168.0.1 nomatch', /nomatch is only for hash:net/],
    ['0.0.0.0/0', /CIDR/],
    ['1234', /dotted-decimal/],
    ['256.1.2.3', /dotted-decimal/],
    ['', /empty/],
    ['2001:db8::1,tcp:80', /IPv6 address, and a family inet set/],
    ['x.x.x.x,80', /dotted-decimal/],
    [',80', /dotted-decimal/],
    // stricter grammar
    ['10.0.0.1,', /port/],
    ['10.0.0.1,tcp:', /port/],
    ['10.0.0.1,TCP:80', /protocol "TCP"/],
    ['10.0.0.1,Tcp:80', /protocol "Tcp"/],
    ['10.0.0.1,udplite:80', /protocol "udplite"/],
    ['10.0.0.1,icmp:8', /protocol "icmp"/],
    ['10.0.0.1,6:22', /protocol "6"/],
    ['10.0.0.1,:80', /protocol ""/],
    ['10.0.0.1,tcp:http', /port "http"/],
    ['10.0.0.1,http', /port "http"/],
    ['10.0.0.1,tcp:080', /port "080"/],
    ['10.0.0.1,tcp:65536', /port "65536"/],
    ['10.0.0.1,tcp:100000', /port "100000"/],
    ['10.0.0.1,tcp:80-82', /port "80-82"/],
    ['10.0.0.1,tcp:-1', /port "-1"/],
    ['10.0.0.1,80,90', /port "80,90"/],
    ['10.0.0.1,tcp:80 ', /port/],
    ['10.0.0.1,tcp:80\n-F x', /port/],
    ['10.0.0.1,tcp:80 nomatch', /port/],
    ['10.0.0.1,tcp:80:90', /port/],
    [' 10.0.0.1,tcp:80', /whitespace/],
    ['-10.0.0.1,tcp:80', /leading "-"/],
  ];
  it.each(invalid)('rejects %j', (input, reason) => {
    const error = errorOf(() => canonicalMember('hash:ip,port', input));
    expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
    expect(error.message).toContain(JSON.stringify(input));
    expect(error.message).toMatch(reason);
    expect(error.message).toMatch(/expected IPv4 address, protocol/);
  });
});

describe('canonicalMember misuse', () => {
  it('rejects an unknown kind', () => {
    const error = errorOf(() => canonicalMember('hash:ip' as MemberKind, '10.0.0.1'));
    expect(isIpsetsError(error, 'INVALID_SET_TYPE')).toBe(true);
  });
  it('rejects a non-string member', () => {
    const error = errorOf(() => canonicalMember('hash:net', 42 as unknown as string));
    expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
    expect(error.message).toContain('"42"');
  });
  it('isValidMember mirrors canonicalMember', () => {
    expect(isValidMember('hash:net', '10.0.0.1/24')).toBe(true);
    expect(isValidMember('hash:net', '10.0.0.1,80')).toBe(false);
    expect(isValidMember('hash:ip,port', '10.0.0.1,80')).toBe(true);
  });
});

describe('canonicalMemberForType', () => {
  it('dispatches on the NPM set type', () => {
    expect(canonicalMemberForType('namespace', '10.0.0.1/32')).toBe('10.0.0.1');
    expect(canonicalMemberForType('keyLabelOfPod', '10.0.0.1')).toBe('10.0.0.1');
    expect(canonicalMemberForType('keyValueLabelOfPod', '10.0.0.1')).toBe('10.0.0.1');
    expect(canonicalMemberForType('cidrBlocks', '10.0.0.9/29 nomatch')).toBe('10.0.0.8/29 nomatch');
    expect(canonicalMemberForType('emptyHashSet', '10.0.0.1')).toBe('10.0.0.1');
    expect(canonicalMemberForType('namedPorts', '10.0.0.1,80')).toBe('10.0.0.1,tcp:80');
    expect(canonicalMemberForType('keyLabelOfNamespace', 'azure-npm-123')).toBe('azure-npm-123');
    expect(canonicalMemberForType('keyValueLabelOfNamespace', 'azure-npm-123')).toBe('azure-npm-123');
    expect(canonicalMemberForType('nestedLabelOfPod', 'azure-npm-123')).toBe('azure-npm-123');
  });
  it('fixes docs/reference-behaviour.md §g.2.9: member format is checked against the set type', () => {
    expect(() => canonicalMemberForType('namedPorts', '10.10.2.0/28 nomatch')).toThrow(/INVALID|hash:ip,port/);
    expect(() => canonicalMemberForType('namespace', '10.0.0.1,tcp:80')).toThrow(/hash:ip,port/);
    expect(() => canonicalMemberForType('nestedLabelOfPod', 'a b')).toThrow(/Invalid set name/);
  });
  it('rejects an unknown type', () => {
    const error = errorOf(() => canonicalMemberForType('bogus' as never, '10.0.0.1'));
    expect(isIpsetsError(error, 'INVALID_SET_TYPE')).toBe(true);
  });
});

describe('nomatch helpers', () => {
  it.each([
    ['10.0.0.0/8 nomatch', true, '10.0.0.0/8'],
    ['10.0.0.1 nomatch', true, '10.0.0.1'],
    ['10.0.0.0/8', false, '10.0.0.0/8'],
    ['10.0.0.1,tcp:80', false, '10.0.0.1,tcp:80'],
  ])('%j: hasNomatch %s, stripped %j', (member, flagged, stripped) => {
    expect(hasNomatch(member)).toBe(flagged);
    expect(stripNomatch(member)).toBe(stripped);
    expect(entryKey(member)).toBe(stripped);
  });
  it('a CIDR and the same CIDR with nomatch share one entry key', () => {
    expect(entryKey(canonicalMember('hash:net', '10.1.2.3/16 nomatch'))).toBe(
      entryKey(canonicalMember('hash:net', '10.1.0.0/16')),
    );
  });
});

describe('set names', () => {
  const valid = ['a', '1', 'azure-npm-1234567890', 'a-b_c.d:e/f', 'x'.repeat(31), 'azure-npm-0123456789abcdefghij'];
  it.each(valid)('accepts %j', (name) => {
    expect(isValidKernelSetName(name)).toBe(true);
    expect(validateSetName(name)).toBe(name);
  });
  const invalid: [string, RegExp][] = [
    ['', /empty/],
    ['x'.repeat(32), /32 characters long/],
    ['-x', /starts with "-"/],
    ['a b', /printable ASCII/],
    ['a\tb', /printable ASCII/],
    ['a\nb', /printable ASCII/],
    ['a#b', /"#"/],
    ['a"b', /a quote/],
    ["a'b", /a quote/],
    ['é', /printable ASCII/],
    ['a\u007f', /printable ASCII/],
  ];
  it.each(invalid)('rejects %j', (name, reason) => {
    expect(isValidKernelSetName(name)).toBe(false);
    const error = errorOf(() => validateSetName(name));
    expect(isIpsetsError(error, 'INVALID_SET_NAME')).toBe(true);
    expect(error.message).toContain(JSON.stringify(name));
    expect(error.message).toMatch(reason);
  });
  it('rejects a non-string', () => {
    expect(isValidKernelSetName(7 as unknown as string)).toBe(false);
  });
});

// Expected forms measured on ipset 7.17 (`ipset -exist restore` of the input into a
// `family inet6` set, then `ipset save`): the canonical form is what save printed.
describe('canonicalMember hash:net family inet6', () => {
  const valid: [string, string][] = [
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8:0:0:0:0:0:1/128', '2001:db8::1'],
    ['2001:0db8::01', '2001:db8::1'],
    ['2001:db8::ff/120', '2001:db8::/120'],
    ['2001:db8:1::/48 nomatch', '2001:db8:1::/48 nomatch'],
    ['2001:db8:1:2::/48 nomatch', '2001:db8:1::/48 nomatch'],
    ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
    ['::ffff:a00:1', '::ffff:10.0.0.1'],
    ['::10.0.0.2', '::10.0.0.2'],
    ['::ffff:1.2.3.4/96', '::ffff:0.0.0.0/96'],
    ['fe80::1:0:0:0/64', 'fe80::/64'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['1:0:0:0:1:0:0:1', '1::1:0:0:1'],
    ['1:0:1:1:1:1:1:1', '1:0:1:1:1:1:1:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['::/1', '::/1'],
    ['ffff::/1', '8000::/1'],
    ['1::', '1::'],
    ['[2001:db8::9]', '2001:db8::9'],
    ['[2001:db8::a]/64', '2001:db8::/64'],
    ['2001:db8::1 nomatch', '2001:db8::1 nomatch'],
  ];
  it.each(valid)('%j → %j', (input, expected) => {
    expect(canonicalMember('hash:net', input, 'inet6')).toBe(expected);
    expect(canonicalMember('hash:net', expected, 'inet6')).toBe(expected);
  });

  const invalid: [string, RegExp][] = [
    ['10.0.0.1', /IPv4 address, and a family inet6 set/],
    ['10.0.0.0/8', /IPv4 address, and a family inet6 set/],
    ['::/0', /\/0 prefix/],
    ['2001:db8::/129', /prefix length must be a number 1-128/],
    ['2001:db8::/01', /prefix length/],
    ['2001:db8::1-2001:db8::5', /not IPv6/],
    ['02001:db8::1', /not IPv6/],
    ['2001:db8:::1', /not IPv6/],
    ['1::2::3', /not IPv6/],
    ['1:2:3:4:5:6:7::8', /not IPv6/],
    ['1:2:3:4:5:6:7', /not IPv6/],
    ['1:2:3:4:5:6:7:8:9', /not IPv6/],
    [':1::', /not IPv6/],
    ['1::2:', /not IPv6/],
    ['::1.2.3.04', /not IPv6/],
    ['fe80::1%eth0', /zone index/],
    ['[2001:db8::9', /not closed/],
    ['2001:db8::/64,80', /hash:ip,port/],
    ['2001:db8::1  nomatch', /unexpected/],
    ['', /empty/],
    ['-::1', /leading "-"/],
    ['::1\n-X x', /unexpected|newlines/],
  ];
  it.each(invalid)('refuses %j (%s)', (input, message) => {
    const error = errorOf(() => canonicalMember('hash:net', input, 'inet6'));
    expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
    expect(error.message).toMatch(message);
    expect(error.message).toContain('family inet6');
  });
});

describe('canonicalMember hash:ip,port family inet6', () => {
  const valid: [string, string][] = [
    ['fe80::1,tcp:80', 'fe80::1,tcp:80'],
    ['fe80::2,80', 'fe80::2,tcp:80'],
    ['FE80::0003,udp:53', 'fe80::3,udp:53'],
    ['fe80::5,sctp:9', 'fe80::5,sctp:9'],
    ['[fe80::6],tcp:81', 'fe80::6,tcp:81'],
    ['fe80::1,tcp:0', 'fe80::1,tcp:0'],
    ['fe80::1,udp:65535', 'fe80::1,udp:65535'],
    ['::ffff:10.1.1.1,tcp:80', '::ffff:10.1.1.1,tcp:80'],
  ];
  it.each(valid)('%j → %j', (input, expected) => {
    expect(canonicalMember('hash:ip,port', input, 'inet6')).toBe(expected);
    expect(canonicalMember('hash:ip,port', expected, 'inet6')).toBe(expected);
  });

  const invalid: [string, RegExp][] = [
    ['10.0.0.1,tcp:80', /IPv4 address, and a family inet6 set/],
    ['fe80::1/64,tcp:80', /CIDR/],
    ['fe80::1/128,tcp:80', /CIDR/],
    ['fe80::1', /missing/],
    ['fe80::1 nomatch', /nomatch is only for hash:net/],
    ['::,tcp:1', /zero address/],
    ['fe80::1,TCP:83', /protocol "TCP"/],
    ['fe80::1,icmpv6:ping', /protocol "icmpv6"/],
    ['fe80::1,tcp:http', /port "http"/],
    ['fe80::1,tcp:80-81', /port "80-81"/],
    ['fe80::1,tcp:65536', /port/],
  ];
  it.each(invalid)('refuses %j (%s)', (input, message) => {
    const error = errorOf(() => canonicalMember('hash:ip,port', input, 'inet6'));
    expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
    expect(error.message).toMatch(message);
  });

  it('refuses the zero address in family inet too (the kernel answers "Invalid argument")', () => {
    expect(() => canonicalMember('hash:ip,port', '0.0.0.0,tcp:1')).toThrow(/zero address/);
  });
});

describe('memberFamily', () => {
  it.each([
    ['10.0.0.1', 'inet'],
    ['10.0.0.0/8 nomatch', 'inet'],
    ['10.0.0.1,tcp:80', 'inet'],
    ['2001:db8::1', 'inet6'],
    ['::/1 nomatch', 'inet6'],
    ['fe80::1,tcp:80', 'inet6'],
    ['[fe80::1],80', 'inet6'],
    ['', 'inet'],
  ] as const)('%j is %s', (member, family) => {
    expect(memberFamily(member)).toBe(family);
  });
});
