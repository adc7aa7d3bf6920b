/**
 * C number parsing as ipset does it: strtoull(str, &end, 0) wrapped by
 * string_to_number_ll(), with its two error texts.
 */

const U64_MAX = (1n << 64n) - 1n;

interface StrtoullResult {
  value: bigint;
  /** Index after the last consumed character (0 when nothing was parsed). */
  end: number;
  erange: boolean;
}

function digitValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 87;
  if (code >= 65 && code <= 90) return code - 55;
  return 99;
}

function isCSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** strtoull(str, &end, 0): base detection (0x hex, 0 octal), sign, overflow to ULLONG_MAX. */
export function strtoull(str: string): StrtoullResult {
  let i = 0;
  while (i < str.length && isCSpace(str.charCodeAt(i))) i++;
  let negative = false;
  if (str[i] === '+' || str[i] === '-') {
    negative = str[i] === '-';
    i++;
  }
  let base = 10;
  if (str[i] === '0') {
    if ((str[i + 1] === 'x' || str[i + 1] === 'X') && digitValue(str.charCodeAt(i + 2)) < 16) {
      base = 16;
      i += 2;
    } else {
      base = 8;
    }
  }
  const start = i;
  let value = 0n;
  let erange = false;
  const bigBase = BigInt(base);
  while (i < str.length) {
    const d = digitValue(str.charCodeAt(i));
    if (d >= base) break;
    if (!erange) {
      value = value * bigBase + BigInt(d);
      if (value > U64_MAX) erange = true;
    }
    i++;
  }
  if (i === start) return { value: 0n, end: 0, erange: false };
  if (erange) return { value: U64_MAX, end: i, erange };
  if (negative) value = (U64_MAX + 1n - value) & U64_MAX;
  return { value, end: i, erange };
}

/**
 * string_to_number_ll(): the number, or the error text (without `Syntax error: `):
 * `'abc' is invalid as number`, `'70000' is out of range 0-65535`.
 */
export function parseCNumber(str: string, min: number, max: number): number | string {
  // Fast path: plain decimal without a leading zero.
  const len = str.length;
  if (len > 0 && len < 16 && str.charCodeAt(0) !== 48) {
    let v = 0;
    let i = 0;
    for (; i < len; i++) {
      const c = str.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      v = v * 10 + c;
    }
    if (i === len) return v >= min && v <= max ? v : `'${str}' is out of range ${min}-${max}`;
  }
  return parseCNumberBig(str, BigInt(min), BigInt(max)) as number | string;
}

/** parseCNumber for the full unsigned 64-bit range (packets, bytes). */
export function parseCNumberBig(str: string, min: bigint, max: bigint): number | bigint | string {
  const r = strtoull(str);
  if (r.end === str.length && r.end !== 0 && !r.erange) {
    if (r.value >= min && r.value <= max) return max > BigInt(Number.MAX_SAFE_INTEGER) ? r.value : Number(r.value);
    return `'${str}' is out of range ${min}-${max}`;
  }
  if (r.erange) return `'${str}' is out of range ${min}-${max}`;
  return `'${str}' is invalid as number`;
}

/** Result of {@link scanHex}: the value as `unsigned long` and the index after it. */
export interface ScanResult {
  value: bigint;
  end: number;
}

/**
 * glibc sscanf's `%lx` at `str[pos]`: leading white space, a sign, an optional `0x`/`0X`,
 * hex digits; overflow saturates to ULONG_MAX, a minus negates modulo 2^64. A bare
 * `0x` reads as 0 (glibc consumes it); no digit at all is a matching failure (null).
 */
export function scanHex(str: string, pos: number): ScanResult | null {
  let i = pos;
  while (i < str.length && isCSpace(str.charCodeAt(i))) i++;
  let negative = false;
  if (str[i] === '+' || str[i] === '-') {
    negative = str[i] === '-';
    i++;
  }
  let digits = 0;
  if (str[i] === '0') {
    digits++;
    i++;
    if (str[i] === 'x' || str[i] === 'X') i++;
  }
  let value = 0n;
  let overflow = false;
  for (; i < str.length; i++) {
    const d = digitValue(str.charCodeAt(i));
    if (d >= 16) break;
    digits++;
    if (!overflow) {
      value = value * 16n + BigInt(d);
      if (value > U64_MAX) overflow = true;
    }
  }
  if (digits === 0) return null;
  if (overflow) return { value: U64_MAX, end: i };
  return { value: negative ? (U64_MAX + 1n - value) & U64_MAX : value, end: i };
}
