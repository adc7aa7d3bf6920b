import { describe, expect, it } from 'vitest';
import { childrenCpuFromStat, childrenCpuMs, formatMs, formatRatio, median, shortCount } from '../../src/stats.js';

describe('median', () => {
  it('takes the middle of an odd count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
  });
  it('takes the lower middle of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2);
  });
  it('is NaN without samples', () => {
    expect(median([])).toBeNaN();
  });
  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('formatting', () => {
  it('picks µs, ms or s', () => {
    expect(formatMs(0.0123)).toBe('12.3 µs');
    expect(formatMs(45.61)).toBe('45.6 ms');
    expect(formatMs(7890)).toBe('7.89 s');
    expect(formatMs(Number.NaN)).toBe('n/a');
  });
  it('keeps three significant digits in ratios', () => {
    expect(formatRatio(0.041234)).toBe('0.0412');
    expect(formatRatio(1.0666)).toBe('1.07');
    expect(formatRatio(Number.POSITIVE_INFINITY)).toBe('n/a');
  });
  it('shortens state sizes', () => {
    expect([10_000, 100_000, 1_000_000, 1500].map(shortCount)).toEqual(['10k', '100k', '1M', '1500']);
  });
});

describe("children's CPU time", () => {
  it('reads cutime + cstime (fields 16 and 17, in 1/100 s) after the last parenthesis of the name', () => {
    // utime 7, stime 8, cutime 31, cstime 12: the children's 43 ticks are 430 ms.
    const stat = '4242 (node (a) b) S 1 4242 4242 0 -1 4194304 100 200 0 0 7 8 31 12 20 0 11 0 5000 1000000 9000 18446744073709551615';
    expect(childrenCpuFromStat(stat)).toBe(430);
  });
  it('reads this process on Linux, never going down', () => {
    if (process.platform !== 'linux') return;
    const before = childrenCpuMs();
    expect(before).toBeGreaterThanOrEqual(0);
    expect(childrenCpuMs()).toBeGreaterThanOrEqual(before);
  });
});
