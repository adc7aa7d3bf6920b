import { describe, expect, it } from 'vitest';
import { BARS, meetsBar } from '../../src/bars.js';

describe('the bars of the suite (issue #15)', () => {
  it('are the issue bars: W1 ≤ 0.05 and W2 ≤ 0.33 of the real ipset, the worst-case manager ≤ 100 B a member', () => {
    expect(BARS.w1).toBe(0.05);
    expect(BARS.w2).toBe(0.33);
    expect(BARS.bytesPerMember).toBe(100);
  });

  it('K1: our restore text within 5% of the save text at equal hashsize', () => {
    expect(BARS.k1).toBe(1.05);
    expect(meetsBar(1.006, 1.01, BARS.k1)).toBe(true);
    expect(meetsBar(1.04, 1.06, BARS.k1)).toBe(false);
  });

  it('a bar is met only when the wall-time ratio and the CPU-time ratio both meet it', () => {
    expect(meetsBar(0.33, 0.33, BARS.w2)).toBe(true);
    expect(meetsBar(0.32, 0.34, BARS.w2)).toBe(false);
    expect(meetsBar(0.34, 0.2, BARS.w2)).toBe(false);
    expect(meetsBar(0.049, 0.051, BARS.w1)).toBe(false);
  });

  it('without a CPU figure on both sides the wall-time ratio decides', () => {
    expect(meetsBar(1.1, Number.NaN, 1.15)).toBe(true);
    expect(meetsBar(1.2, Number.NaN, 1.15)).toBe(false);
  });
});
