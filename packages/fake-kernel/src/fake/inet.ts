/**
 * Address parsing and printing as libc does it for ipset: getaddrinfo(AF_INET) numeric
 * forms (inet_aton: 1–4 parts, octal with a leading 0; hex is rejected, measured),
 * inet_pton(AF_INET6) and glibc's inet_ntop(AF_INET6).
 */

/** Hostnames the fake resolves (the real tool asks NSS/DNS; only `localhost` is modelled). */
const HOSTS_V4: ReadonlyMap<string, number> = new Map([['localhost', 0x7f000001]]);

/** Parses an IPv4 address the way ipset's getaddrinfo(AF_INET) call accepts it; -1 if not. */
export function parseIPv4(s: string): number {
  const len = s.length;
  if (len === 0) return -1;
  // Fast path: four decimal parts without leading zeros.
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  let leadingZero = false;
  let simple = true;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || parts === 3) {
        simple = false;
        break;
      }
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
      leadingZero = false;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9 || (leadingZero && digits > 0)) {
      simple = false;
      break;
    }
    if (digits === 0 && d === 0) leadingZero = true;
    part = part * 10 + d;
    digits++;
    if (part > 255) {
      simple = false;
      break;
    }
  }
  if (simple && parts === 3 && digits > 0 && !(leadingZero && digits > 1)) return value * 256 + part;
  return parseIPv4Slow(s);
}

function parseIPv4Slow(s: string): number {
  const host = HOSTS_V4.get(s);
  if (host !== undefined) return host;
  const pieces = s.split('.');
  if (pieces.length > 4) return -1;
  const vals: number[] = [];
  for (const p of pieces) {
    if (p.length === 0) return -1;
    let base = 10;
    let body = p;
    if (p.length > 1 && p[0] === '0') {
      base = 8;
      body = p.slice(1);
    }
    let v = 0;
    for (let i = 0; i < body.length; i++) {
      const d = body.charCodeAt(i) - 48;
      if (d < 0 || d >= base) return -1;
      v = v * base + d;
      if (v > 0xffffffff) return -1;
    }
    vals.push(v);
  }
  const n = vals.length;
  for (let i = 0; i < n - 1; i++) if ((vals[i] as number) > 255) return -1;
  const last = vals[n - 1] as number;
  const lastMax = [0xffffffff, 0xffffff, 0xffff, 0xff][n - 1] as number;
  if (last > lastMax) return -1;
  let out = 0;
  for (let i = 0; i < n - 1; i++) out = out * 256 + (vals[i] as number);
  return out * 2 ** (8 * (5 - n)) + last;
}

/** Dotted quad of an unsigned 32-bit address. */
export function formatIPv4(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`;
}

/** The netmask of a prefix length as an unsigned 32-bit number. */
export function maskV4(cidr: number): number {
  return cidr === 0 ? 0 : (0xffffffff << (32 - cidr)) >>> 0;
}

/** inet_pton(AF_INET6): eight 16-bit words, or undefined. */
export function parseIPv6(s: string): Uint16Array | undefined {
  const words = new Uint16Array(8);
  if (s.length === 0) return undefined;
  let i = 0;
  if (s[0] === ':') {
    if (s[1] !== ':') return undefined;
    i = 1;
  }
  let w = 0;
  let colonp = -1;
  let curtok = i;
  let sawHex = false;
  let val = 0;
  let hexDigits = 0;
  while (i < s.length) {
    const ch = s[i] as string;
    i++;
    const hv = '0123456789abcdef'.indexOf(ch.toLowerCase());
    if (hv >= 0 && ch !== '') {
      if (hexDigits >= 4) return undefined;
      val = (val << 4) | hv;
      hexDigits++;
      sawHex = true;
      continue;
    }
    if (ch === ':') {
      curtok = i;
      if (!sawHex) {
        if (colonp >= 0) return undefined;
        colonp = w;
        continue;
      }
      if (i >= s.length) return undefined;
      if (w >= 8) return undefined;
      words[w++] = val;
      sawHex = false;
      val = 0;
      hexDigits = 0;
      continue;
    }
    if (ch === '.' && w <= 6) {
      const v4 = parseStrictDottedQuad(s.slice(curtok));
      if (v4 < 0) return undefined;
      words[w++] = v4 >>> 16;
      words[w++] = v4 & 0xffff;
      sawHex = false;
      break;
    }
    return undefined;
  }
  if (sawHex) {
    if (w >= 8) return undefined;
    words[w++] = val;
  }
  if (colonp >= 0) {
    if (w === 8) return undefined;
    const n = w - colonp;
    for (let k = 1; k <= n; k++) {
      words[8 - k] = words[colonp + n - k] as number;
      words[colonp + n - k] = 0;
    }
    w = 8;
  }
  return w === 8 ? words : undefined;
}

/** inet_pton4: exactly four decimal octets, no leading zeros. */
function parseStrictDottedQuad(s: string): number {
  const parts = s.split('.');
  if (parts.length !== 4) return -1;
  let v = 0;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return -1;
    const n = Number(p);
    if (n > 255) return -1;
    v = v * 256 + n;
  }
  return v;
}

/** glibc inet_ntop(AF_INET6): lower case, longest zero run compressed, `::ffff:a.b.c.d`. */
export function formatIPv6(words: Uint16Array): string {
  let bestBase = -1;
  let bestLen = 0;
  let curBase = -1;
  let curLen = 0;
  for (let i = 0; i < 8; i++) {
    if (words[i] === 0) {
      if (curBase === -1) {
        curBase = i;
        curLen = 1;
      } else curLen++;
    } else if (curBase !== -1) {
      if (bestBase === -1 || curLen > bestLen) {
        bestBase = curBase;
        bestLen = curLen;
      }
      curBase = -1;
    }
  }
  if (curBase !== -1 && (bestBase === -1 || curLen > bestLen)) {
    bestBase = curBase;
    bestLen = curLen;
  }
  if (bestBase !== -1 && bestLen < 2) bestBase = -1;
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (bestBase !== -1 && i >= bestBase && i < bestBase + bestLen) {
      if (i === bestBase) out += ':';
      continue;
    }
    if (i !== 0) out += ':';
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && words[5] === 0xffff))) {
      const hi = words[6] as number;
      const lo = words[7] as number;
      out += `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
      return out;
    }
    out += (words[i] as number).toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out += ':';
  return out;
}

/** Clears the host bits of an IPv6 address for a prefix length (in place). */
export function maskV6(words: Uint16Array, cidr: number): Uint16Array {
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, cidr - i * 16));
    words[i] = keep === 0 ? 0 : (words[i] as number) & ((0xffff << (16 - keep)) & 0xffff);
  }
  return words;
}

/** True when every word is zero. */
export function isZeroV6(words: Uint16Array): boolean {
  for (let i = 0; i < 8; i++) if (words[i] !== 0) return false;
  return true;
}
