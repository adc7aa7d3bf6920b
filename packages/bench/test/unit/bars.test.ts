import { describe, expect, it } from 'vitest';
import { BARS, meetsBar } from '../../src/bars.js';

describe('the bars of the suite (issue #26)', () => {
  it('are the issue bars: W1 ≤ 0.04 and W2 ≤ 0.25 of the real ipset, a manager ≤ 100 B a member (worst case) and ≤ 40 B (cluster)', () => {
    expect(BARS.w1).toBe(0.04);
    expect(BARS.w2).toBe(0.25);
    expect(BARS.bytesPerMember).toBe(100);
    expect(BARS.clusterBytesPerMember).toBe(40);
  });

  it('are the issue bars for the built command: W6 ≤ 1.15 and ≤ 400 MB, W7 ≤ 1.5, W8 ≤ 300 MB steady and ≤ 450 MB peak', () => {
    expect([BARS.w6, BARS.w6PeakRssMb, BARS.w7, BARS.w8SteadyRssMb, BARS.w8PeakRssMb]).toEqual([1.15, 400, 1.5, 300, 450]);
  });

  it("W2 tick: the agent's whole tick (save + resync) within 1.15× the bare save", () => {
    expect(BARS.w2Tick).toBe(1.15);
    expect(meetsBar(1.1, 1.14, BARS.w2Tick)).toBe(true);
    expect(meetsBar(1.1, 1.2, BARS.w2Tick)).toBe(false);
  });

  it('K1: our restore text within 5% of the save text at equal hashsize', () => {
    expect(BARS.k1).toBe(1.05);
    expect(meetsBar(1.006, 1.01, BARS.k1)).toBe(true);
    expect(meetsBar(1.04, 1.06, BARS.k1)).toBe(false);
  });

  it('a bar is met only when the wall-time ratio and the CPU-time ratio both meet it', () => {
    expect(meetsBar(0.25, 0.25, BARS.w2)).toBe(true);
    expect(meetsBar(0.24, 0.26, BARS.w2)).toBe(false);
    expect(meetsBar(0.26, 0.2, BARS.w2)).toBe(false);
    expect(meetsBar(0.039, 0.041, BARS.w1)).toBe(false);
  });

  it('without a CPU figure on both sides the wall-time ratio decides', () => {
    expect(meetsBar(1.1, Number.NaN, 1.15)).toBe(true);
    expect(meetsBar(1.2, Number.NaN, 1.15)).toBe(false);
  });
});
