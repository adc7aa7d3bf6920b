import { describe, expect, it } from 'vitest';
import { LINE_LABELS, renderNodeLines } from '../../src/node-lines.js';
import type { LineResult } from '../../src/node-lines.js';
import { renderBenchmarks } from '../../src/report.js';

const L = LINE_LABELS;
const line = (lineName: string, version: string, w1: number, w6: number): LineResult => ({
  line: lineName,
  version,
  samples: {
    [L.w1]: [w1, w1 + 10, w1 - 10],
    [L.w1Ref]: [7000, 7100, 6900],
    [L.w2Parse]: [600],
    [L.w2Call]: [650],
    [L.w2Ref]: [1700],
    [L.w6]: [w6],
    [L.w6Ref]: [5000],
  },
  bytesPerMember: [36.1, 36.3, 35.9],
  distinctBytes: [94.2],
  peakRssMb: [321],
});

describe('renderNodeLines', () => {
  const table = renderNodeLines([line('22', '22.23.5', 350, 8000), line('24', '24.22.3', 300, 7000), line('26', '26.12.1', 320, 7500)], 3, '24');

  it('one row per line with each ratio to the real ipset measured beside it, the toolchain line marked', () => {
    const rows = table.split('\n').filter((l) => l.startsWith('| v'));
    expect(rows).toHaveLength(3);
    expect(rows[1]).toContain('v24.22.3 (toolchain, image)');
    // W1: the median 300 ms over the median 7.00 s.
    expect(rows[1]).toContain('300 ms / 7.00 s = **0.0429**');
    expect(rows[0]).toContain('8.00 s / 5.00 s = **1.60** (321 MB)');
    expect(rows[2]).toContain('36.1 B/member');
  });

  it('says which line was fastest on each workload', () => {
    expect(table).toContain('W1 24 (22: 350 ms, 24: 300 ms, 26: 320 ms)');
    expect(table).toContain('W6 24 (');
  });

  it('is a section of BENCHMARKS.md when the run measured it', () => {
    const report = {
      machine: { cores: 2, cpu: 'cpu', memoryGiB: 24, node: 'v24.22.3', kernel: '6.1', ipset: 'ipset v7.17', date: '2026-01-01T00:00:00Z', load: '1.0 → 2.0' },
      rows: [],
      chart: 'docs/bench-chart.svg',
      method: [],
      samples: new Map(),
      wallMs: 1,
    };
    expect(renderBenchmarks({ ...report, nodeLines: table })).toContain(`## Per Node line\n\n${table}\n`);
    expect(renderBenchmarks(report)).not.toContain('## Per Node line');
  });
});
