/**
 * Durations as people type them on a command line: `1500ms`, `30s`, `5m`, `2h`,
 * plain seconds (`90`, `0.5`), and the compound forms Go and Kubernetes users write
 * (`1m30s`, `1h2m3s`, `2s500ms`).
 */
import { IpsetsError, quote } from '@ipsets/core';

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
// Longest units first so that `ms` is not read as `m` followed by `s`.
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
const EXPECTED = 'expected a duration like 30s, 5m, 1m30s or 1500ms';

/** Options of {@link parseDuration}. */
export interface ParseDurationOptions {
  /** The smallest accepted duration in milliseconds (default 10). */
  minMs?: number;
  /** Name of the flag, quoted in errors (e.g. `--interval`). */
  flag?: string;
}

/**
 * Parses a duration into milliseconds. Units in a compound form must go from larger
 * to smaller and appear at most once each (`1m30s`, not `30s1m`), as in Go.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` quoting the text for anything else, or a
 *   duration below `minMs`.
 */
export function parseDuration(value: string, options: ParseDurationOptions = {}): number {
  const text = value.trim();
  const minMs = options.minMs ?? 10;
  const what = options.flag === undefined ? '' : `${options.flag}: `;
  let ms: number;
  if (/^\d+(?:\.\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    ms = 0;
    PART.lastIndex = 0;
    let last = Number.POSITIVE_INFINITY;
    let at = 0;
    while (at < text.length) {
      PART.lastIndex = at;
      const m = PART.exec(text);
      const unit = UNIT_MS[m?.[2] ?? ''];
      if (m === null || unit === undefined || unit >= last) {
        throw new IpsetsError('INVALID_ARGUMENT', `${what}${quote(value)} is not a duration; ${EXPECTED}`);
      }
      last = unit;
      ms += Number(m[1]) * unit;
      at = PART.lastIndex;
    }
    if (text.length === 0) throw new IpsetsError('INVALID_ARGUMENT', `${what}${quote(value)} is not a duration; ${EXPECTED}`);
  }
  if (!Number.isFinite(ms) || ms < minMs) {
    throw new IpsetsError('INVALID_ARGUMENT', `${what}a duration of at least ${minMs}ms is needed, got ${quote(value)}`);
  }
  return Math.round(ms);
}
