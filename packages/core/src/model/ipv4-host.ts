/**
 * The one reader of dotted-decimal IPv4 text. Every place that reads an IPv4
 * address from text — the member grammar (`canonicalMember`), the planner's numeric
 * fast path (`hostValue`), the render boundary's check-and-copy
 * (`copyCanonicalHost`), the save parser's member walk and the dotted tail of an
 * IPv6 address — calls {@link scanIPv4}, so they cannot disagree on what an address
 * is: four decimal octets 0-255 separated by `.`, without leading zeros (ipset
 * itself would read `010` as octal 8, so such text cannot mean what it seems to),
 * ASCII digits only.
 *
 * It runs on every member of million-member states: no allocation, no closure, no
 * state between calls. A result is a number: what was read packed with its length,
 * or negative.
 */

/** The flag of a hash:net member as it is written and saved: one space, then `nomatch`. */
export const NOMATCH = ' nomatch';
const NOMATCH_LEN = NOMATCH.length;

/** Added to a host's address by the value mode ({@link hostValueIn}) when the member carries ` nomatch`. */
export const NOMATCH_FLAG = 2 ** 32;

const CH_0 = 48;
const CH_DOT = 46;

/**
 * Reads a dotted-decimal IPv4 address at `start`, reading no further than `end`;
 * returns `address * 16 + length` (read them with {@link ipv4Address} and
 * {@link ipv4End}), or -1. Reading stops after the fourth octet at the first
 * character that is not a digit (or at a fourth `.`): what follows is the caller's
 * to judge. A fourth digit in an octet, a leading zero, an octet past 255, an empty
 * octet or fewer than four octets are a miss (a run of digits is refused at its
 * fourth digit, however long it is).
 *
 * With `out` the characters read are also copied into `out` from `at` (as bytes) in
 * the same pass; on a miss the bytes copied so far stay written.
 */
export function scanIPv4(s: string, start: number, end: number, out: Uint8Array | undefined, at: number): number {
  let address = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  let i = start;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === CH_DOT) {
      if (dots === 3) break;
      if (digits === 0) return -1;
      address = address * 256 + octet;
      dots++;
      octet = 0;
      digits = 0;
    } else {
      const d = c - CH_0;
      if (d < 0 || d > 9) break;
      // A second digit after a leading 0, or an octet past 255 (so at most three digits).
      if ((digits === 1 && octet === 0) || (octet = octet * 10 + d) > 255) return -1;
      digits++;
    }
    if (out !== undefined) out[at + i - start] = c;
  }
  if (dots !== 3 || digits === 0) return -1;
  return (address * 256 + octet) * 16 + (i - start);
}

/** The address (unsigned 32-bit) of a {@link scanIPv4} result that is not negative. */
export function ipv4Address(scanned: number): number {
  return Math.floor(scanned / 16);
}

/** The index after the address of a {@link scanIPv4} result read at `start` (not negative). */
export function ipv4End(scanned: number, start: number): number {
  return start + (scanned - Math.floor(scanned / 16) * 16);
}

/**
 * Value mode: the text `s[start, end)` as a canonical host member of a hash:net set —
 * `a.b.c.d`, or `a.b.c.d nomatch` with exactly one space — as its address (unsigned
 * 32-bit), plus {@link NOMATCH_FLAG} with ` nomatch`; -1 for anything else.
 */
export function hostValueIn(s: string, start: number, end: number): number {
  const scanned = scanIPv4(s, start, end, undefined, 0);
  if (scanned < 0) return -1;
  const address = ipv4Address(scanned);
  const stop = start + (scanned - address * 16);
  if (stop === end) return address;
  return end - stop === NOMATCH_LEN && s.startsWith(NOMATCH, stop) ? address + NOMATCH_FLAG : -1;
}

/**
 * Copy mode: checks that `member` is a canonical host member (as {@link hostValueIn}
 * reads it) and copies its characters into `out` from `at` in the same pass — the
 * render boundary reads each of a million member strings once instead of twice — the
 * ` nomatch` flag only when `keepNomatch` (`-D` lines leave it out). Returns the index
 * after the copied text, or -1 (bytes past `at` may have been overwritten then). `out`
 * must have room for 23 bytes from `at`; without `out` it only checks
 * (`isCanonicalHost`).
 */
export function copyCanonicalHost(member: string, out: Uint8Array | undefined, at: number, keepNomatch: boolean): number {
  const n = member.length;
  // Shortest `0.0.0.0`, longest `255.255.255.255 nomatch`.
  if (n < 7 || n > 23) return -1;
  const scanned = scanIPv4(member, 0, n, out, at);
  if (scanned < 0) return -1;
  const stop = scanned - Math.floor(scanned / 16) * 16;
  if (stop === n) return at + n;
  if (n - stop !== NOMATCH_LEN || !member.endsWith(NOMATCH)) return -1;
  if (!keepNomatch) return at + stop;
  if (out !== undefined) for (let k = 0; k < NOMATCH_LEN; k++) out[at + stop + k] = NOMATCH.charCodeAt(k);
  return at + n;
}

/** The canonical text `a.b.c.d` of an IPv4 address (an unsigned 32-bit number, or its signed form). */
export function formatIPv4(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/** Per octet 0-255: its decimal digits as bytes, three slots each, and their count in the fourth. */
const OCTET_BYTES = /* @__PURE__ */ (() => {
  const table = new Uint8Array(256 * 4);
  for (let o = 0; o < 256; o++) {
    const text = String(o);
    for (let k = 0; k < text.length; k++) table[o * 4 + k] = text.charCodeAt(k);
    table[o * 4 + 3] = text.length;
  }
  return table;
})();

/** Writes octet `o` (0-255) at `at`; returns the index after it. */
function writeOctet(out: Uint8Array, at: number, o: number): number {
  const t = o * 4;
  const n = OCTET_BYTES[t + 3]!;
  out[at] = OCTET_BYTES[t]!;
  if (n > 1) out[at + 1] = OCTET_BYTES[t + 1]!;
  if (n > 2) out[at + 2] = OCTET_BYTES[t + 2]!;
  return at + n;
}

/**
 * Writes the canonical text of address `v` ({@link formatIPv4}'s, as bytes) into `out`
 * at `at`, which must have room for 15 bytes; returns the index after it. The renderer
 * writes a million host members from their numbers with it, never making their strings.
 */
export function writeIPv4(out: Uint8Array, at: number, v: number): number {
  at = writeOctet(out, at, v >>> 24);
  out[at++] = CH_DOT;
  at = writeOctet(out, at, (v >>> 16) & 255);
  out[at++] = CH_DOT;
  at = writeOctet(out, at, (v >>> 8) & 255);
  out[at++] = CH_DOT;
  return writeOctet(out, at, v & 255);
}
