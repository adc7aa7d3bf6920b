import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/duration.js';

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
    expect(() => parseDuration('5ms')).toThrow(/at least 10ms is needed, got "5ms"/);
    expect(parseDuration('0', { minMs: 0 })).toBe(0);
  });
});
