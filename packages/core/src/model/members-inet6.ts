/**
 * IPv6 addresses of `family inet6` set members: a hand-written reader (the text
 * forms `inet_pton(AF_INET6)` accepts, minus none of them) and the printer ipset's
 * `ipset save` uses (glibc `inet_ntop(AF_INET6)`), so a canonical member is the exact
 * text the kernel's save prints for it.
 *
 * The printer is RFC 5952 (lower case, no leading zeros, the longest run of two or
 * more zero groups shown as `::`, the leftmost of equal runs) with glibc's two
 * exceptions, measured on ipset 7.17: an address whose first 96 bits are zero, or
 * that is an IPv4-mapped address (`::ffff:0:0/96`), ends in dotted IPv4 —
 * `::10.0.0.2`, `::ffff:10.0.0.1` (but `::1` and `::` stay hexadecimal, as glibc
 * prints them).
 *
 * No scratch state and no allocation but the printed string: the address lives in
 * four 32-bit words held in local variables of {@link canonicalIPv6}, which reads,
 * masks and prints in one call (this runs on every member of large states).
 */
import { ipv4Address, ipv4End, scanIPv4 } from './ipv4-host.js';

const CH_0 = 48;
const CH_9 = 57;
const CH_A = 65;
const CH_F = 70;
const CH_LOWER_A = 97;
const CH_LOWER_F = 102;
const CH_COLON = 58;
const CH_DOT = 46;

/** The value of a hexadecimal digit, or -1. */
function hexValue(c: number): number {
  if (c >= CH_0 && c <= CH_9) return c - CH_0;
  if (c >= CH_LOWER_A && c <= CH_LOWER_F) return c - CH_LOWER_A + 10;
  if (c >= CH_A && c <= CH_F) return c - CH_A + 10;
  return -1;
}

/** Group `k` (0-7, most significant first) of the address in the words `w0`-`w3` (`w0` most significant). */
function groupOf(w0: number, w1: number, w2: number, w3: number, k: number): number {
  const w = k < 2 ? w0 : k < 4 ? w1 : k < 6 ? w2 : w3;
  return (k & 1) === 0 ? w >>> 16 : w & 0xffff;
}

/** The mask of 32-bit word `i` (0-3) under a prefix of `prefix` bits. */
function wordMask(prefix: number, i: number): number {
  const keep = prefix - i * 32;
  return keep >= 32 ? -1 : keep <= 0 ? 0 : -1 << (32 - keep);
}

/** The canonical printed form of an IPv6 address that is all zero bits. */
export const ZERO_IPV6 = '::';

/**
 * The IPv6 address that must fill exactly `s[start, end)`, with the bits past
 * `prefix` (0-128) cleared, as `ipset save` prints it (see the module comment); `''`
 * when the text is not an IPv6 address. Read: groups of 1-4 hexadecimal digits (either
 * case), at most one `::` standing for one or more zero groups, optionally a dotted
 * IPv4 tail in the last 32 bits (read by the one IPv4 scanner, ipv4-host.ts). No zone
 * (`%eth0`), no brackets, no whitespace. The zero address prints as {@link ZERO_IPV6}.
 */
export function canonicalIPv6(s: string, start: number, end: number, prefix: number): string {
  if (end - start < 2) return '';
  // The groups read so far, appended at the low end of x0-x3 (x0 most significant).
  let x0 = 0;
  let x1 = 0;
  let x2 = 0;
  let x3 = 0;
  let pos = start;
  let count = 0;
  let gap = -1;
  if (s.charCodeAt(pos) === CH_COLON) {
    if (s.charCodeAt(pos + 1) !== CH_COLON) return '';
    gap = 0;
    pos += 2;
  }
  while (pos < end) {
    const groupStart = pos;
    let v = 0;
    let h = 0;
    while (pos < end && (h = hexValue(s.charCodeAt(pos))) >= 0) {
      v = v * 16 + h;
      pos++;
    }
    const digits = pos - groupStart;
    if (pos < end && s.charCodeAt(pos) === CH_DOT) {
      // The dotted tail takes the last two groups (one word) and ends the address.
      if (count > 6) return '';
      const scanned = scanIPv4(s, groupStart, end, undefined, 0);
      if (scanned < 0 || ipv4End(scanned, groupStart) !== end) return '';
      x0 = x1;
      x1 = x2;
      x2 = x3;
      x3 = ipv4Address(scanned) | 0;
      count += 2;
      break;
    }
    if (digits === 0 || digits > 4 || count === 8) return '';
    x0 = (x0 << 16) | (x1 >>> 16);
    x1 = (x1 << 16) | (x2 >>> 16);
    x2 = (x2 << 16) | (x3 >>> 16);
    x3 = (x3 << 16) | v;
    count++;
    if (pos === end) break;
    if (s.charCodeAt(pos) !== CH_COLON) return '';
    pos++;
    if (pos === end) return '';
    if (s.charCodeAt(pos) === CH_COLON) {
      if (gap >= 0) return '';
      gap = count;
      pos++;
    }
  }
  if (gap < 0 ? count !== 8 : count > 7) return ''; // `::` stands for at least one zero group (inet_pton refuses `1:2:3:4:5:6:7::8`).
  // The address: the groups before `::` moved up past the zero groups it stands for
  // (the groups after it are in place already), masked to the prefix.
  let w0 = x0;
  let w1 = x1;
  let w2 = x2;
  let w3 = x3;
  if (gap >= 0) {
    const zeros = 8 - count;
    w0 = w1 = w2 = w3 = 0;
    for (let k = 0; k < 8; k++) {
      const g = k < gap ? groupOf(x0, x1, x2, x3, k + zeros) : k < gap + zeros ? 0 : groupOf(x0, x1, x2, x3, k);
      w0 = (w0 << 16) | (w1 >>> 16);
      w1 = (w1 << 16) | (w2 >>> 16);
      w2 = (w2 << 16) | (w3 >>> 16);
      w3 = (w3 << 16) | g;
    }
  }
  if (prefix < 128) {
    w0 &= wordMask(prefix, 0);
    w1 &= wordMask(prefix, 1);
    w2 &= wordMask(prefix, 2);
    w3 &= wordMask(prefix, 3);
  }
  return formatWords(w0, w1, w2, w3);
}

/** The address in words `w0`-`w3` as glibc inet_ntop prints it (see the module comment). */
function formatWords(w0: number, w1: number, w2: number, w3: number): string {
  let bestBase = -1;
  let bestLen = 0;
  let curBase = -1;
  for (let i = 0; i <= 8; i++) {
    if (i < 8 && groupOf(w0, w1, w2, w3, i) === 0) {
      if (curBase === -1) curBase = i;
    } else if (curBase !== -1) {
      const len = i - curBase;
      if (len > bestLen) {
        bestBase = curBase;
        bestLen = len;
      }
      curBase = -1;
    }
  }
  if (bestLen < 2) bestBase = -1;
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (bestBase !== -1 && i >= bestBase && i < bestBase + bestLen) {
      if (i === bestBase) out += ':';
      continue;
    }
    if (i !== 0) out += ':';
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && groupOf(w0, w1, w2, w3, 5) === 0xffff))) {
      return `${out}${w3 >>> 24}.${(w3 >>> 16) & 255}.${(w3 >>> 8) & 255}.${w3 & 255}`;
    }
    out += groupOf(w0, w1, w2, w3, i).toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out += ':';
  return out;
}
