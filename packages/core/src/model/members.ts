/**
 * Member grammar: validation and canonical forms of hash-set members (`hash:net` and
 * `hash:ip,port`, families inet and inet6), and the error that says why a member is
 * not one. Set names, which list:set members are, follow set-names.ts.
 *
 * A member that passes {@link canonicalMember} can be written into a restore file
 * verbatim: the grammar admits no whitespace but the single space before
 * `nomatch`, no `#`, no quotes, no leading `-`, nothing the kernel would parse as
 * an option or a second argument.
 *
 * The scanners are hand-written (no regular expressions): this runs on every
 * member of states with a million members. IPv4 text is read by the one scanner in
 * ipv4-host.ts, IPv6 addresses by members-inet6.ts.
 *
 * Why one file: the grammar of a member is one rule with one set of
 * messages — the prefix, port and nomatch parts are shared by both kinds and both
 * families, and the slow-path explanations (`describe…`) must say exactly what the
 * fast paths refused; split apart, the messages and the checks they describe would
 * drift.
 */
import { IpsetsError, quote } from '../errors.js';
import { NOMATCH, copyCanonicalHost, formatIPv4, hostValueIn, ipv4Address, ipv4End, scanIPv4 } from './ipv4-host.js';
import { ZERO_IPV6, canonicalIPv6 } from './members-inet6.js';
import { isValidKernelSetName, validateSetName } from './set-names.js';
import type { AddressFamily, SetType } from '../types.js';

/** Kernel set types that hold addresses (list:set members are set names). */
export type MemberKind = 'hash:net' | 'hash:ip,port';

// The render boundary's check-and-copy is the scanner's copy mode itself (no wrapper in its loop).
export { NOMATCH, NOMATCH_FLAG, copyCanonicalHost } from './ipv4-host.js';
const NOMATCH_LEN = NOMATCH.length;

const CH_0 = 48;
const CH_9 = 57;
const CH_SLASH = 47;
const CH_COMMA = 44;
const CH_COLON = 58;
const CH_SPACE = 32;

const CH_OPEN_BRACKET = 91;
const CH_CLOSE_BRACKET = 93;

/** What a member of each kind and family looks like, for error messages. */
function expectedMember(kind: MemberKind, family: AddressFamily): string {
  if (family === 'inet6') {
    return kind === 'hash:net'
      ? 'an IPv6 address with an optional /1-128 prefix length and an optional " nomatch" suffix, e.g. "2001:db8::/64" or "fe80::1"'
      : 'IPv6 address, protocol (tcp, udp or sctp) and numeric port as "ip,proto:port", e.g. "fe80::1,tcp:80"';
  }
  return kind === 'hash:net'
    ? 'a dotted-decimal IPv4 address with an optional /1-32 prefix length and an optional " nomatch" suffix, e.g. "10.0.0.0/24" or "10.0.0.1"'
    : 'IPv4 address, protocol (tcp, udp or sctp) and numeric port as "ip,proto:port", e.g. "10.0.0.1,tcp:80"';
}

/** The error of a member that does not fit its kind's grammar. */
function invalidMember(kind: MemberKind, member: string, reason: string, family: AddressFamily = 'inet'): IpsetsError {
  const set = family === 'inet6' ? `${kind} family inet6` : kind;
  return new IpsetsError(
    'INVALID_MEMBER',
    `Invalid ${set} member ${quote(member)}: ${reason}; expected ${expectedMember(kind, family)}.`,
    { details: { kind, family, member, reason } },
  );
}

// The scanners return what they read and its length packed in one number, or a
// negative code: no result object per member and no state between calls.

/**
 * Reads a decimal number without leading zeros of at most `maxDigits` (at most 5)
 * digits; returns `value * 8 + digits` (read them with {@link numberValue} and
 * {@link numberDigits}), or -1.
 */
function scanNumber(s: string, start: number, maxDigits: number): number {
  const n = s.length;
  let pos = start;
  let v = 0;
  while (pos < n) {
    const c = s.charCodeAt(pos);
    if (c < CH_0 || c > CH_9) break;
    v = v * 10 + (c - CH_0);
    pos++;
    if (pos - start > maxDigits) return -1;
  }
  const digits = pos - start;
  if (digits === 0 || (digits > 1 && s.charCodeAt(start) === CH_0)) return -1;
  return v * 8 + digits;
}

/** The value of a {@link scanNumber} result that is not negative. */
function numberValue(scanned: number): number {
  return scanned >>> 3;
}

/** The digit count of a {@link scanNumber} result that is not negative. */
function numberDigits(scanned: number): number {
  return scanned & 7;
}

/** Why an address part failed, for the error message only (slow path). */
function describeBadAddress(s: string): string {
  if (s.length === 0) return 'the member is empty';
  if (memberFamily(s) === 'inet6') {
    return 'it is an IPv6 address, and a family inet set holds IPv4 addresses only (IPv6 members belong in the family inet6 set)';
  }
  const c = s.charCodeAt(0);
  if (c === CH_SPACE || c === 9) return 'leading whitespace is not allowed';
  if (c === 45) return 'a leading "-" is not allowed';
  if (/[\n\r\t#"]/.test(s)) return 'newlines, tabs, quotes and "#" are not allowed';
  return 'the address is not dotted-decimal IPv4 (four octets 0-255, no leading zeros)';
}

function canonicalNetMember(member: string): string {
  const n = member.length;
  const scanned = scanIPv4(member, 0, member.length, undefined, 0);
  if (scanned < 0) {
    const slash = member.indexOf('/');
    const head = slash === -1 ? member : member.slice(0, slash);
    const headScanned = scanIPv4(head, 0, head.length, undefined, 0);
    if (slash !== -1 && headScanned >= 0 && ipv4End(headScanned, 0) === head.length) {
      throw invalidMember('hash:net', member, 'the prefix length is missing or malformed');
    }
    throw invalidMember('hash:net', member, describeBadAddress(member));
  }
  const ip = ipv4Address(scanned);
  let pos = ipv4End(scanned, 0);
  let prefix = 32;
  let explicitPrefix = false;
  if (pos < n && member.charCodeAt(pos) === CH_SLASH) {
    const length = scanNumber(member, pos + 1, 2);
    if (length < 0 || numberValue(length) > 32) {
      throw invalidMember('hash:net', member, 'the prefix length must be a number 1-32 without leading zeros');
    }
    if (numberValue(length) === 0) {
      throw invalidMember(
        'hash:net',
        member,
        'a /0 prefix cannot be stored in a hash:net set (the kernel rejects it: "The value of the CIDR parameter of the IP address is invalid"); use the two halves 0.0.0.0/1 and 128.0.0.0/1 instead',
      );
    }
    prefix = numberValue(length);
    explicitPrefix = true;
    pos += 1 + numberDigits(length);
  }
  let nomatch = false;
  if (pos < n) {
    if (n - pos === NOMATCH_LEN && member.endsWith(NOMATCH)) {
      nomatch = true;
    } else if (member.charCodeAt(pos) === CH_COMMA) {
      throw invalidMember('hash:net', member, 'a ",port" part belongs in a hash:ip,port (named ports) set');
    } else {
      throw invalidMember(
        'hash:net',
        member,
        `unexpected ${quote(member.slice(pos))} after the address (only a single " nomatch" may follow)`,
      );
    }
  }
  // Host bits: mask in 32-bit unsigned arithmetic (prefix >= 1 here, so the shift is < 32).
  const mask = prefix === 32 ? 0xffffffff : (0xffffffff << (32 - prefix)) >>> 0;
  const network = (ip & mask) >>> 0;
  if (network === ip && !(explicitPrefix && prefix === 32)) return member;
  const address = formatIPv4(network);
  const text = prefix === 32 ? address : `${address}/${prefix}`;
  return nomatch ? text + NOMATCH : text;
}

/** True when `s[start, end)` is `tcp`, `udp` or `sctp` (compared in place: no substring per member). */
function isPortProtocol(s: string, start: number, end: number): boolean {
  const len = end - start;
  if (len === 3) {
    return s.startsWith('tcp', start) || s.startsWith('udp', start);
  }
  return len === 4 && s.startsWith('sctp', start);
}

/** Why the text after a hash:ip,port address at `pos` is not `,proto:port` (slow path). */
function describeMissingPort(member: string, pos: number): string {
  const c = pos < member.length ? member.charCodeAt(pos) : -1;
  return c === CH_SLASH
    ? 'a CIDR is not allowed here (ipset would expand it into one entry per address)'
    : c === CH_SPACE
      ? 'hash:ip,port members take no options (nomatch is only for hash:net)'
      : 'the ",proto:port" part is missing';
}

// The zero address is refused by the kernel in hash:ip,port sets of both families
// (measured on ipset 7.17: `add p 0.0.0.0,tcp:1` and `add p6 ::,tcp:1` fail with
// "Kernel error received: Invalid argument"), so it must never reach a restore file.
const ZERO_ADDRESS = 'the zero address cannot be stored in a hash:ip,port set (the kernel rejects it with "Invalid argument")';

/**
 * Checks the `proto:port` (or bare `port`) after the comma at `pos - 1` and returns
 * the index where the port digits start, negated and minus one when no protocol
 * was written (ipset then means tcp).
 */
function scanProtoPort(member: string, pos: number, family: AddressFamily): number {
  const n = member.length;
  let hasProto = false;
  const colon = member.indexOf(':', pos);
  if (colon !== -1) {
    if (!isPortProtocol(member, pos, colon)) {
      const proto = member.slice(pos, colon);
      throw invalidMember('hash:ip,port', member, `the protocol ${quote(proto)} is not one of tcp, udp, sctp (lowercase)`, family);
    }
    hasProto = true;
    pos = colon + 1;
  }
  const port = scanNumber(member, pos, 5);
  if (port < 0 || pos + numberDigits(port) !== n || numberValue(port) > 65535) {
    throw invalidMember(
      'hash:ip,port',
      member,
      `the port ${quote(member.slice(pos))} is not a number 0-65535 without leading zeros (service names and ranges are not accepted)`,
      family,
    );
  }
  return hasProto ? pos : -pos - 1;
}

function canonicalIpPortMember(member: string): string {
  const n = member.length;
  const scanned = scanIPv4(member, 0, member.length, undefined, 0);
  if (scanned < 0) throw invalidMember('hash:ip,port', member, describeBadAddress(member));
  let pos = ipv4End(scanned, 0);
  if (pos >= n || member.charCodeAt(pos) !== CH_COMMA) {
    throw invalidMember('hash:ip,port', member, describeMissingPort(member, pos));
  }
  if (ipv4Address(scanned) === 0) throw invalidMember('hash:ip,port', member, ZERO_ADDRESS);
  const portAt = scanProtoPort(member, pos + 1, 'inet');
  if (portAt >= 0) return member;
  pos = -portAt - 1;
  // ipset's default protocol is tcp; write it out so desired and saved members compare equal.
  return `${member.slice(0, pos - 1)},tcp:${member.slice(pos)}`;
}

/**
 * The IPv6 address of a family inet6 member in `member[0, end)` (optionally in
 * brackets, which ipset accepts and does not print) as `ipset save` prints it, the
 * bits past `prefix` cleared.
 */
function memberIPv6(kind: MemberKind, member: string, end: number, prefix: number): string {
  let start = 0;
  let stop = end;
  if (member.charCodeAt(0) === CH_OPEN_BRACKET) {
    if (end < 2 || member.charCodeAt(end - 1) !== CH_CLOSE_BRACKET) {
      throw invalidMember(kind, member, 'the "[" before the address is not closed by "]"', 'inet6');
    }
    start = 1;
    stop = end - 1;
  }
  const address = canonicalIPv6(member, start, stop, prefix);
  if (address !== '') return address;
  throw invalidMember(kind, member, describeBadAddress6(member, start, stop), 'inet6');
}

/** Why an address part of a family inet6 member failed, for the error message only (slow path). */
function describeBadAddress6(member: string, start: number, stop: number): string {
  if (member.length === 0) return 'the member is empty';
  if (start === stop) return 'the address is empty';
  const scanned = scanIPv4(member, start, stop, undefined, 0);
  if (scanned >= 0 && ipv4End(scanned, start) === stop) {
    return 'it is an IPv4 address, and a family inet6 set holds IPv6 addresses only (IPv4 members belong in the family inet set)';
  }
  const c = member.charCodeAt(0);
  if (c === CH_SPACE || c === 9) return 'leading whitespace is not allowed';
  if (c === 45) return 'a leading "-" is not allowed';
  if (/[\n\r\t#"]/.test(member)) return 'newlines, tabs, quotes and "#" are not allowed';
  if (member.slice(start, stop).indexOf('%') !== -1) return 'a zone index ("%eth0") cannot be stored in a set';
  return 'the address is not IPv6 (groups of 1-4 hexadecimal digits separated by ":", at most one "::")';
}

function canonicalNet6Member(member: string): string {
  const n = member.length;
  let end = 0;
  while (end < n) {
    const c = member.charCodeAt(end);
    if (c === CH_SLASH || c === CH_SPACE || c === CH_COMMA) break;
    end++;
  }
  let pos = end;
  let prefix = 128;
  // The address is judged first (with the prefix when it is good), then the prefix.
  let badPrefix = '';
  if (pos < n && member.charCodeAt(pos) === CH_SLASH) {
    const length = scanNumber(member, pos + 1, 3);
    if (length < 0 || numberValue(length) > 128) {
      badPrefix = 'the prefix length must be a number 1-128 without leading zeros';
    } else if (numberValue(length) === 0) {
      badPrefix =
        'a /0 prefix cannot be stored in a hash:net set (the kernel rejects it: "The value of the CIDR parameter of the IP address is invalid"); use the two halves ::/1 and 8000::/1 instead';
    } else {
      prefix = numberValue(length);
      pos += 1 + numberDigits(length);
    }
  }
  const address = memberIPv6('hash:net', member, end, prefix);
  if (badPrefix !== '') throw invalidMember('hash:net', member, badPrefix, 'inet6');
  let nomatch = false;
  if (pos < n) {
    if (n - pos === NOMATCH_LEN && member.endsWith(NOMATCH)) {
      nomatch = true;
    } else if (member.charCodeAt(pos) === CH_COMMA) {
      throw invalidMember('hash:net', member, 'a ",port" part belongs in a hash:ip,port (named ports) set', 'inet6');
    } else {
      throw invalidMember(
        'hash:net',
        member,
        `unexpected ${quote(member.slice(pos))} after the address (only a single " nomatch" may follow)`,
        'inet6',
      );
    }
  }
  const text = prefix === 128 ? address : `${address}/${prefix}`;
  const canonical = nomatch ? text + NOMATCH : text;
  // Hand back the caller's string when it already is canonical (no second copy kept).
  return canonical === member ? member : canonical;
}

function canonicalIp6PortMember(member: string): string {
  const comma = member.indexOf(',');
  const n = member.length;
  let end = comma === -1 ? n : comma;
  for (let i = 0; i < end; i++) {
    const c = member.charCodeAt(i);
    if (c === CH_SLASH || c === CH_SPACE) {
      end = i;
      break;
    }
  }
  const address = memberIPv6('hash:ip,port', member, end, 128);
  if (end !== comma) throw invalidMember('hash:ip,port', member, describeMissingPort(member, end), 'inet6');
  if (address === ZERO_IPV6) throw invalidMember('hash:ip,port', member, ZERO_ADDRESS, 'inet6');
  const portAt = scanProtoPort(member, comma + 1, 'inet6');
  const canonical = portAt >= 0 ? `${address}${member.slice(comma)}` : `${address},tcp:${member.slice(-portAt - 1)}`;
  return canonical === member ? member : canonical;
}

/**
 * The family a member is written in: `inet6` when its address part (before the
 * `,` of a hash:ip,port member) contains a `:` or starts with `[`, else `inet`.
 * It reads the text only as far as needed to tell, and says nothing about
 * validity: {@link canonicalMember} checks the member against the family.
 */
export function memberFamily(member: string): AddressFamily {
  const n = member.length;
  if (n > 0 && member.charCodeAt(0) === CH_OPEN_BRACKET) return 'inet6';
  for (let i = 0; i < n; i++) {
    const c = member.charCodeAt(i);
    if (c === CH_COLON) return 'inet6';
    if (c === CH_COMMA || c === CH_SLASH || c === CH_SPACE) return 'inet';
  }
  return 'inet';
}

/**
 * Validates a member of a hash set and returns its canonical form: the exact text
 * `ipset save` prints for it, so desired and kernel members compare equal.
 *
 * - `hash:net`: `a.b.c.d[/len][ nomatch]`, IPv4 only, no leading zeros, `len` 1–32;
 *   host bits are cleared (`10.0.0.5/24` → `10.0.0.0/24`) and `/32` is dropped
 *   (`10.0.0.1/32` → `10.0.0.1`); ` nomatch` (exactly one space) is kept.
 *   `/0` is rejected, also `0.0.0.0/0` which the reference accepts: the kernel's hash:net
 *   cannot store a zero prefix (the add fails with "The value of the CIDR parameter
 *   of the IP address is invalid"); use `0.0.0.0/1` and `128.0.0.0/1`.
 * - `hash:ip,port`: `a.b.c.d,proto:port` with proto `tcp`, `udp` or `sctp` and a
 *   numeric port 0–65535; `a.b.c.d,port` means tcp and becomes `a.b.c.d,tcp:port`.
 *   The zero address `0.0.0.0` (and `::`) is refused: the kernel rejects it.
 *
 * With `family` `inet6` the address is IPv6 (any `inet_pton` spelling: either case,
 * leading zeros in groups, `::` anywhere, a dotted IPv4 tail, optionally in
 * brackets), printed as `ipset save` prints it: lower case, the longest zero run
 * compressed, host bits cleared, `/128` dropped, ports as for IPv4
 * (`FE80::0001,80` → `fe80::1,tcp:80`). Prefix lengths are 1–128 (`/0` is refused
 * like IPv4's). A member of the other family is an error, never a line.
 *
 * Returns the input string itself when it is already canonical.
 *
 * @throws IpsetsError `INVALID_MEMBER` quoting the value and saying what was expected.
 */
export function canonicalMember(kind: MemberKind, member: string, family: AddressFamily = 'inet'): string {
  if (typeof member !== 'string') {
    throw new IpsetsError('INVALID_MEMBER', `Invalid ${String(kind)} member ${quote(member)}: expected a string.`, {
      details: { kind, member },
    });
  }
  if (family === 'inet6') {
    if (kind === 'hash:net') return canonicalNet6Member(member);
    if (kind === 'hash:ip,port') return canonicalIp6PortMember(member);
  } else if (family !== 'inet') {
    throw new IpsetsError('INVALID_ARGUMENT', `Unknown address family ${quote(family)}; expected "inet" or "inet6".`, {
      details: { family },
    });
  }
  if (kind === 'hash:net') return canonicalNetMember(member);
  if (kind === 'hash:ip,port') return canonicalIpPortMember(member);
  throw new IpsetsError(
    'INVALID_SET_TYPE',
    `Unknown member kind ${quote(kind)}; expected "hash:net" or "hash:ip,port".`,
    { details: { kind } },
  );
}

/**
 * True when `member` is exactly the canonical text of a member of a set of kernel
 * type `type` and `family` — what `ipset save` prints and what {@link canonicalMember}
 * returns — or, for `list:set`, a valid set name. Anything else (a valid but
 * non-canonical form such as `10.0.0.0/024`, an address of the other family, an
 * element this library never writes) is false. Never throws. This is the test for
 * echoing a kernel member into a plan.
 */
export function isCanonicalMember(type: MemberKind | 'list:set', member: string, family: AddressFamily = 'inet'): boolean {
  if (typeof member !== 'string') return false;
  if (type === 'list:set') return isValidKernelSetName(member);
  if (family === 'inet' && type === 'hash:net' && isCanonicalHost(member)) return true;
  if (type !== 'hash:net' && type !== 'hash:ip,port') return false;
  // Cheap refusal before the scanners: no canonical member is longer than
  // "255.255.255.255,sctp:65535" or "255.255.255.255/32 nomatch" (inet), or than
  // "ffff:…:ffff/127 nomatch" (inet6, 51 characters).
  if (member.length > (family === 'inet6' ? 51 : 26)) return false;
  try {
    return canonicalMember(type, member, family) === member;
  } catch {
    return false;
  }
}

/** True when `member` is valid for `kind` and `family` (see {@link canonicalMember}). */
export function isValidMember(kind: MemberKind, member: string, family: AddressFamily = 'inet'): boolean {
  try {
    canonicalMember(kind, member, family);
    return true;
  } catch {
    return false;
  }
}

/**
 * Canonical member of a set of NPM type `type`: list types take set names
 * (validated by {@link validateSetName}, returned unchanged), `namedPorts` takes
 * `hash:ip,port` members, every other hash type takes `hash:net` members, of
 * `family` (default `inet`; lists ignore it).
 *
 * @throws IpsetsError `INVALID_MEMBER` or `INVALID_SET_NAME`.
 */
export function canonicalMemberForType(type: SetType, member: string, family: AddressFamily = 'inet'): string {
  switch (type) {
    case 'keyLabelOfNamespace':
    case 'keyValueLabelOfNamespace':
    case 'nestedLabelOfPod':
      return validateSetName(member);
    case 'namedPorts':
      return canonicalMember('hash:ip,port', member, family);
    case 'namespace':
    case 'keyLabelOfPod':
    case 'keyValueLabelOfPod':
    case 'cidrBlocks':
    case 'emptyHashSet':
      return canonicalMember('hash:net', member, family);
    default:
      throw new IpsetsError('INVALID_SET_TYPE', `Unknown set type ${quote(type)}.`, { details: { type } });
  }
}

/**
 * The address of a host member of a hash:net set in canonical form (`a.b.c.d`, as
 * {@link canonicalMember} returns it and `ipset save` prints it) as an unsigned 32-bit
 * number, that plus {@link NOMATCH_FLAG} for `a.b.c.d nomatch`, and -1 for anything
 * else (a CIDR, a hash:ip,port member, a text that is not canonical). Two members with
 * the same value are the same string, so planners compare numbers instead of hashing
 * and comparing a million strings. The value mode of the one IPv4 scanner
 * (ipv4-host.ts): planning reads every desired member of a million-member state with it.
 */
export function hostValue(member: string): number {
  const n = member.length;
  return n < 7 || n > 23 ? -1 : hostValueIn(member, 0, n);
}

/**
 * The canonical text of the IPv4 host with address `address` (an unsigned 32-bit
 * number, or its signed 32-bit form): `a.b.c.d`, what {@link hostValue} reads back.
 */
export function formatHostAddress(address: number): string {
  return formatIPv4(address);
}

/**
 * True when `member` is a canonical host member of a hash:net set, `a.b.c.d` or
 * `a.b.c.d nomatch` (octets 0-255 without leading zeros) — the same strings
 * {@link hostValue} accepts, decided in one tight pass without computing the
 * address: the render boundary runs it on every member of a million-line plan.
 */
export function isCanonicalHost(member: string): boolean {
  // One grammar, one scanner (ipv4-host.ts), here without a copy.
  return copyCanonicalHost(member, undefined, 0, true) >= 0;
}

/** True when a member carries the ` nomatch` flag. */
export function hasNomatch(member: string): boolean {
  return member.endsWith(NOMATCH);
}

/** The member without its ` nomatch` flag (as `-D` lines need it); unchanged when it has none. */
export function stripNomatch(member: string): string {
  return member.endsWith(NOMATCH) ? member.slice(0, member.length - NOMATCH_LEN) : member;
}

/**
 * The kernel entry a canonical member occupies. `nomatch` is an attribute of an
 * entry, not part of its key: `10.0.0.0/8` and `10.0.0.0/8 nomatch` are one entry,
 * so a set holds at most one of them.
 */
export function entryKey(member: string): string {
  return stripNomatch(member);
}
