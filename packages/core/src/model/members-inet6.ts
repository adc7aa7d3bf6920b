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
 * The eight 16-bit groups live in one module-level scratch array: this runs on
 * every member of large states and must not allocate per member.
 */

/** The groups of the address last read by {@link scanIPv6} (or being masked or printed). */
export const IPV6_GROUPS = new Uint16Array(8);

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

/**
 * Reads the dotted IPv4 tail of an IPv6 address (`::ffff:10.0.0.1`) in `s[start, end)`
 * into groups `at` and `at + 1`. Four decimal octets 0-255 without leading zeros,
 * as inet_pton's IPv4 part demands. Returns false when it is not one.
 */
function scanDottedTail(s: string, start: number, end: number, at: number): boolean {
  let pos = start;
  let value = 0;
  for (let octet = 0; octet < 4; octet++) {
    if (octet > 0) {
      if (pos >= end || s.charCodeAt(pos) !== CH_DOT) return false;
      pos++;
    }
    const first = pos;
    let v = 0;
    while (pos < end) {
      const c = s.charCodeAt(pos);
      if (c < CH_0 || c > CH_9) break;
      v = v * 10 + (c - CH_0);
      pos++;
    }
    const digits = pos - first;
    if (digits === 0 || digits > 3 || v > 255 || (digits > 1 && s.charCodeAt(first) === CH_0)) return false;
    value = value * 256 + v;
  }
  if (pos !== end) return false;
  IPV6_GROUPS[at] = Math.floor(value / 65536);
  IPV6_GROUPS[at + 1] = value % 65536;
  return true;
}

/**
 * Reads an IPv6 address that must fill exactly `s[start, end)` into
 * {@link IPV6_GROUPS}: groups of 1-4 hexadecimal digits (either case), at most one
 * `::` standing for one or more zero groups, optionally a dotted IPv4 tail in the
 * last 32 bits. No zone (`%eth0`), no brackets, no whitespace. Returns false when
 * the text is not an IPv6 address.
 */
export function scanIPv6(s: string, start: number, end: number): boolean {
  const g = IPV6_GROUPS;
  if (end - start < 2) return false;
  let pos = start;
  let count = 0;
  let gap = -1;
  if (s.charCodeAt(pos) === CH_COLON) {
    if (s.charCodeAt(pos + 1) !== CH_COLON) return false;
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
      // The dotted tail takes the last two groups and ends the address.
      if (count > 6 || !scanDottedTail(s, groupStart, end, count)) return false;
      count += 2;
      pos = end;
      break;
    }
    if (digits === 0 || digits > 4 || count === 8) return false;
    g[count++] = v;
    if (pos === end) break;
    if (s.charCodeAt(pos) !== CH_COLON) return false;
    pos++;
    if (pos === end) return false;
    if (s.charCodeAt(pos) === CH_COLON) {
      if (gap >= 0) return false;
      gap = count;
      pos++;
    }
  }
  if (gap < 0) return count === 8;
  // `::` stands for at least one zero group (inet_pton refuses `1:2:3:4:5:6:7::8`).
  if (count > 7) return false;
  const tail = count - gap;
  for (let k = 1; k <= tail; k++) g[8 - k] = g[gap + tail - k]!;
  for (let k = gap; k < 8 - tail; k++) g[k] = 0;
  return true;
}

/**
 * Clears the host bits of {@link IPV6_GROUPS} for a prefix length 0-128. Returns
 * true when any bit was set (the text was not already the network address).
 */
export function maskIPv6(prefix: number): boolean {
  const g = IPV6_GROUPS;
  let changed = false;
  for (let i = 0; i < 8; i++) {
    const keep = prefix - i * 16;
    if (keep >= 16) continue;
    const mask = keep <= 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
    const v = g[i]!;
    if ((v & mask) !== v) {
      g[i] = v & mask;
      changed = true;
    }
  }
  return changed;
}

/** {@link IPV6_GROUPS} as `ipset save` prints it (glibc inet_ntop; see the module comment). */
export function formatIPv6(): string {
  const g = IPV6_GROUPS;
  let bestBase = -1;
  let bestLen = 0;
  let curBase = -1;
  for (let i = 0; i <= 8; i++) {
    if (i < 8 && g[i] === 0) {
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
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && g[5] === 0xffff))) {
      const hi = g[6]!;
      const lo = g[7]!;
      return `${out}${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    }
    out += g[i]!.toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out += ':';
  return out;
}

/** True when every group of {@link IPV6_GROUPS} is zero (`::`). */
export function isZeroIPv6(): boolean {
  const g = IPV6_GROUPS;
  for (let i = 0; i < 8; i++) if (g[i] !== 0) return false;
  return true;
}
