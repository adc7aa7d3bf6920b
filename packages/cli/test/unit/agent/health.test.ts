import { describe, expect, it } from 'vitest';
import { AgentProbes } from '../../../src/agent/health.js';

describe('AgentProbes', () => {
  it('/readyz repeats a file problem in part: a 50-problem message of 50 KB comes back under 2.2 KB, saying it was cut', () => {
    const probes = new AgentProbes({ health: () => ({ live: true, ready: true, problems: [] }) as never });
    probes.setFileProblem(`f: 50 problems; nothing was applied:\n${'  line 1:1, sets[0].name: bad\n'.repeat(2000)}`);
    const ready = probes.ready();
    expect(ready.ok).toBe(false);
    expect(ready.reason.length).toBeLessThan(2200);
    expect(ready.reason).toContain('… (cut, ');
    probes.setFileProblem(undefined);
    expect(probes.ready().ok).toBe(true);
  });
});
