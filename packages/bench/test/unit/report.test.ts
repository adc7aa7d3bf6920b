import { describe, expect, it } from 'vitest';
import { NOTES_END, NOTES_START, cell, keptNotes, renderBenchmarks, renderTable } from '../../src/report.js';
import type { BenchReport, ResultRow } from '../../src/report.js';

const rows: ResultRow[] = [
  { workload: 'W1 a|b', ours: '1.00 s', reference: '10.0 s', ratio: '0.100', cpuRatio: '0.200 (1 s / 5 s)', bar: '< 0.10', met: 'yes' },
  { workload: 'W2', ours: '2.00 s', reference: 'n/a (not root)', ratio: 'n/a', cpuRatio: '—', bar: '< 0.5', met: 'n/a' },
  { workload: 'W4', ours: '3.00 s', reference: '2.00 s', ratio: '1.50', cpuRatio: '—', bar: '≤ 1.15', met: 'no' },
];

const report: BenchReport = {
  machine: { cores: 2, cpu: 'cpu', memoryGiB: 24, node: 'v24.22.3', kernel: '6.1', ipset: 'ipset v7.17', date: '2026-01-01T00:00:00Z', load: '1.0 → 2.0' },
  rows,
  chart: 'docs/bench-chart.svg',
  method: ['interleaved'],
  samples: new Map([['W1', [1, 2, 3]]]),
  wallMs: 60_000,
};

describe('renderTable', () => {
  it('has the seven columns and one line per row, pipes escaped', () => {
    const lines = renderTable(rows).split('\n');
    expect(lines[0]).toBe('| workload | ours | real ipset | ratio | CPU-time ratio | bar | met |');
    expect(lines[2]).toContain('| 0.200 (1 s / 5 s) |');
    expect(lines).toHaveLength(2 + rows.length);
    expect(lines[2]).toContain('W1 a\\|b');
  });
  it('says met, not met or n/a', () => {
    const table = renderTable(rows);
    expect(table).toContain('✅ met');
    expect(table).toContain('❌ not met');
    expect(table).toContain('— n/a');
  });
});

describe('renderBenchmarks', () => {
  it('records the machine, counts the judged rows and links the chart', () => {
    const md = renderBenchmarks(report);
    expect(md).toContain('- cores: 2 (cpu), memory 24 GiB');
    expect(md).toContain('- ipset: ipset v7.17');
    expect(md).toContain('1 of 2 judged rows meet their bar.');
    expect(md).toContain('](docs/bench-chart.svg)');
    expect(md).toContain('| W1 | 1.0 / 2.0 / 3.0 | — |');
  });
  it('keeps the hand-written notes of the previous file', () => {
    const previous = `# old\n${NOTES_START}\nparseSave is hot\n${NOTES_END}\nrest`;
    expect(renderBenchmarks(report, previous)).toContain(`${NOTES_START}\nparseSave is hot\n${NOTES_END}`);
  });
  it('starts a notes block when there is none', () => {
    expect(keptNotes(undefined)).toBe(`${NOTES_START}\n_No profiling notes yet._\n${NOTES_END}`);
    expect(keptNotes('no markers here')).toContain('_No profiling notes yet._');
  });
});

describe('cell', () => {
  it('keeps a value on one table line', () => {
    expect(cell('a|b\nc')).toBe('a\\|b c');
  });
});
