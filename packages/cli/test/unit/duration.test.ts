import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDuration } from '../../src/duration.js';
import { DURATION_RANGES } from '../../src/defaults.js';

describe('parseDuration', () => {
  it.each([
    ['1500ms', 1500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['90', 90_000],
    ['0.5', 500],
    ['1.5s', 1500],
    // Go and Kubernetes users type compound durations (`--interval 1m30s` was refused).
    ['1m30s', 90_000],
    ['1h2m3s', 3_723_000],
    ['2s500ms', 2500],
    ['1h30m', 5_400_000],
    [' 20s ', 20_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 's', '1x', '30s1m', '1m1m', '1 m', '-5s', '1ms30s', 'ms', '1.s', '5sm'])('refuses %j quoting it', (text) => {
    expect(() => parseDuration(text, { flag: '--interval' })).toThrow(/--interval: .* is not a duration; expected a duration like 30s/);
  });

  it('refuses a duration below the minimum, quoting it', () => {
    expect(() => parseDuration('5ms')).toThrow(/"5ms" is out of range; expected a duration from 10ms to /);
    expect(parseDuration('0', { minMs: 0 })).toBe(0);
  });

  it('refuses a duration above the maximum, naming the range (600h became a 1 ms timer: above Node\'s 2^31-1 ms)', () => {
    expect(() => parseDuration('600h', { flag: '--interval', minMs: 100, maxMs: 24 * 3_600_000 })).toThrow(
      '--interval: "600h" is out of range; expected a duration from 100ms to 24h',
    );
    // Without a maximum of its own, nothing past Node's timer range is accepted.
    expect(() => parseDuration('600h')).toThrow(/out of range; expected a duration from 10ms to 596h31m23s647ms/);
    expect(parseDuration('596h')).toBe(596 * 3_600_000);
  });

  it('every duration flag has a range inside Node\'s timer range, and the default inside it', () => {
    for (const [flag, range] of Object.entries(DURATION_RANGES)) {
      expect(range.minMs, flag).toBeGreaterThanOrEqual(0);
      expect(range.maxMs, flag).toBeLessThanOrEqual(2 ** 31 - 1);
      expect(range.defaultMs, flag).toBeGreaterThanOrEqual(range.minMs);
      expect(range.defaultMs, flag).toBeLessThanOrEqual(range.maxMs);
    }
    expect(Object.keys(DURATION_RANGES).sort()).toEqual(['--debounce', '--grace', '--interval', '--read-timeout', '--timeout', '--wait']);
  });

  it.each([
    [100, '100ms'],
    [1000, '1s'],
    [90_000, '1m30s'],
    [86_400_000, '24h'],
    [2 ** 31 - 1, '596h31m23s647ms'],
  ])('formats %d ms as %s, which parses back', (ms, text) => {
    expect(formatDurationMs(ms)).toBe(text);
    expect(parseDuration(text, { minMs: 0 })).toBe(ms);
  });
});
