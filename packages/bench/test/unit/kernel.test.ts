import { describe, expect, it } from 'vitest';
import { splitTimes } from '../../src/kernel.js';

describe('splitTimes', () => {
  it("takes the children's user + system time from a shell's `times` and strips it from stderr", () => {
    const stderr = 'ipset v7.17: Error in line 3: Set cannot be created\n0m0.001s 0m0.002s\n0m4.220s 1m2.750s\n';
    const { stderr: rest, cpuMs } = splitTimes(stderr);
    expect(rest).toBe('ipset v7.17: Error in line 3: Set cannot be created\n');
    expect(cpuMs).toBeCloseTo(4220 + 62_750, 6);
  });
  it('leaves stderr alone and reports NaN without `times` output', () => {
    const { stderr, cpuMs } = splitTimes('plain error\n');
    expect(stderr).toBe('plain error\n');
    expect(cpuMs).toBeNaN();
  });
});
