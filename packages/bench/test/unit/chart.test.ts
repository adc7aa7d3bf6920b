import { describe, expect, it } from 'vitest';
import { decadeLabel, decadeRange, escapeXml, renderChart } from '../../src/chart.js';

const series = [
  { name: 'W1 <ours>', color: '#1f77b4', points: [{ x: 10_000, y: 12 }, { x: 100_000, y: 150 }, { x: 1_000_000, y: 1900 }] },
  { name: 'W3', color: '#2ca02c', points: [{ x: 10_000, y: 0.01 }, { x: 1_000_000, y: 0.012 }] },
  { name: 'real', color: '#d62728', dashed: true, points: [] },
];

describe('renderChart', () => {
  const svg = renderChart({ title: 'T & t', xLabel: 'members', yLabel: 'time', series });

  it('is one standalone svg element', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  });
  it('draws a line per series with points and a marker per point', () => {
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(5);
  });
  it('escapes text', () => {
    expect(svg).toContain('T &#38; t');
    expect(svg).toContain('W1 &#60;ours&#62;');
    expect(svg).not.toContain('<ours>');
  });
  it('lists a series without points as not measured', () => {
    expect(svg).toContain('real (not measured)');
  });
  it('labels decades on both axes', () => {
    for (const label of ['10k', '100k', '1M', '10 µs', '1 ms', '10 s']) expect(svg).toContain(`>${label}</text>`);
  });
  it('names what x counts in each point’s tooltip: members by default, or the unit given', () => {
    expect(svg).toContain('<title>W3: 10k members, ');
    const nodes = renderChart({ title: 't', xLabel: 'nodes', xUnit: 'nodes', yLabel: 'time', series });
    expect(nodes).toContain('<title>W3: 10k nodes, ');
    expect(nodes).not.toContain(' members, ');
  });
  it('places larger values higher (smaller y) on the log scale', () => {
    const cy = [...svg.matchAll(/<circle cx="[\d.]+" cy="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(cy[0]!).toBeGreaterThan(cy[1]!);
    expect(cy[1]!).toBeGreaterThan(cy[2]!);
  });
});

describe('helpers', () => {
  it('labels decades of milliseconds in plain units', () => {
    expect([-3, -2, -1, 0, 1, 2, 3, 4].map(decadeLabel)).toEqual(['1 µs', '10 µs', '100 µs', '1 ms', '10 ms', '100 ms', '1 s', '10 s']);
  });
  it('covers values with whole decades', () => {
    expect(decadeRange(12, 1900)).toEqual([1, 4]);
    expect(decadeRange(100, 100)).toEqual([2, 3]);
  });
  it('escapes the five XML specials', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});
