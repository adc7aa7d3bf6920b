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

/** Longest duration a Node timer can wait (2^31-1 ms, 24.8 days): past it a timer fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `100ms`, `1s`, `1m30s`, `24h`: the shortest text {@link parseDuration} reads back as `ms`. */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0ms';
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}

/** Options of {@link parseDuration}. */
export interface ParseDurationOptions {
  /** The smallest accepted duration in milliseconds (default 10). */
  minMs?: number;
  /** The largest accepted duration in milliseconds (default {@link MAX_TIMER_MS}). */
  maxMs?: number;
  /** Name of the flag, quoted in errors (e.g. `--interval`). */
  flag?: string;
}

/**
 * Parses a duration into milliseconds. Units in a compound form must go from larger
 * to smaller and appear at most once each (`1m30s`, not `30s1m`), as in Go.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` quoting the text for anything else, or a
 *   duration outside `minMs`–`maxMs` (naming the range).
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
  const maxMs = Math.min(options.maxMs ?? MAX_TIMER_MS, MAX_TIMER_MS);
  if (!Number.isFinite(ms) || ms < minMs || ms > maxMs) {
    throw new IpsetsError('INVALID_ARGUMENT', `${what}${quote(value)} is out of range; expected a duration from ${formatDurationMs(minMs)} to ${formatDurationMs(maxMs)}`);
  }
  return Math.round(ms);
}
