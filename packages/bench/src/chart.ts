/**
 * A log-log line chart as a standalone SVG string (hand-written, no dependency):
 * time against state size for the benchmark's series, and (through this package's
 * `./chart` entry) convergence time against fleet size for the fleet simulation.
 */
import { formatMs, shortCount } from './stats.js';

/** One point: `x` members, `y` milliseconds. */
export interface ChartPoint {
  x: number;
  y: number;
}

/** One line of the chart. */
export interface ChartSeries {
  name: string;
  color: string;
  points: readonly ChartPoint[];
  /** Draw dashed (the reference side). */
  dashed?: boolean;
}

/** What to draw. */
export interface ChartOptions {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  /** What `x` counts, in each point's tooltip (default `members`). */
  xUnit?: string;
  series: readonly ChartSeries[];
  width?: number;
  height?: number;
}

/** Escapes text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Decades covering `[min, max]`: `[10^floor(log10 min), 10^ceil(log10 max)]`, at least one decade wide. */
export function decadeRange(min: number, max: number): [number, number] {
  const lo = Math.floor(Math.log10(min));
  let hi = Math.ceil(Math.log10(max));
  if (hi <= lo) hi = lo + 1;
  return [lo, hi];
}

const round = (v: number): string => (Math.round(v * 10) / 10).toString();

/** Axis label of the decade `10^d` milliseconds: `1 µs` … `100 ms`, `1 s`, `10 s`. */
export function decadeLabel(d: number): string {
  if (d < -3) return `${10 ** (d + 6)} ns`;
  if (d < 0) return `${Math.round(10 ** (d + 3))} µs`;
  if (d < 3) return `${10 ** d} ms`;
  return `${10 ** (d - 3)} s`;
}

/**
 * Renders the chart. Points with a non-positive or non-finite value are left out
 * (a log scale cannot place them); a series without points is listed in the legend
 * as "not measured".
 */
export function renderChart(options: ChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 440;
  const left = 78;
  const right = 260;
  const top = 58;
  const bottom = 56;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const usable = options.series.map((s) => ({
    ...s,
    points: s.points.filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.x) && Number.isFinite(p.y)),
  }));
  const all = usable.flatMap((s) => s.points);
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const [x0, x1] = all.length === 0 ? [4, 6] : decadeRange(Math.min(...xs), Math.max(...xs));
  const [y0, y1] = all.length === 0 ? [-3, 4] : decadeRange(Math.min(...ys), Math.max(...ys));
  const px = (x: number): number => left + ((Math.log10(x) - x0) / (x1 - x0)) * plotW;
  const py = (y: number): number => top + plotH - ((Math.log10(y) - y0) / (y1 - y0)) * plotH;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="24" font-size="15" font-weight="600" fill="#111">${escapeXml(options.title)}</text>`,
  );
  if (options.subtitle !== undefined) {
    out.push(`<text x="${left}" y="42" fill="#555">${escapeXml(options.subtitle)}</text>`);
  }
  // Decade grid lines and labels.
  for (let d = x0; d <= x1; d++) {
    const x = round(px(10 ** d));
    out.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${top + plotH}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${x}" y="${top + plotH + 18}" text-anchor="middle" fill="#333">${escapeXml(shortCount(10 ** d))}</text>`);
  }
  for (let d = y0; d <= y1; d++) {
    const y = round(py(10 ** d));
    out.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${left - 8}" y="${y}" dy="4" text-anchor="end" fill="#333">${escapeXml(decadeLabel(d))}</text>`);
  }
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  out.push(
    `<text x="${round(left + plotW / 2)}" y="${height - 14}" text-anchor="middle" fill="#111">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(18 ${round(top + plotH / 2)}) rotate(-90)" text-anchor="middle" fill="#111">${escapeXml(options.yLabel)}</text>`,
  );

  usable.forEach((s, i) => {
    const dash = s.dashed === true ? ' stroke-dasharray="6 4"' : '';
    if (s.points.length > 1) {
      const path = s.points.map((p) => `${round(px(p.x))},${round(py(p.y))}`).join(' ');
      out.push(`<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    }
    for (const p of s.points) {
      out.push(
        `<circle cx="${round(px(p.x))}" cy="${round(py(p.y))}" r="3.5" fill="${s.color}"><title>${escapeXml(`${s.name}: ${shortCount(p.x)} ${options.xUnit ?? 'members'}, ${formatMs(p.y)}`)}</title></circle>`,
      );
    }
    const ly = top + 8 + i * 22;
    const lx = left + plotW + 16;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`);
    const label = s.points.length === 0 ? `${s.name} (not measured)` : s.name;
    out.push(`<text x="${lx + 28}" y="${ly}" dy="4" fill="#111">${escapeXml(label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
