/**
 * The headline rows on every supported Node line, side by side in one run: W1 and W2
 * at 1,000,000 members, W6 (the built command end to end) and the two memory rows,
 * each measured by a child `run.ts --lines-child FILE` on that line's exact release
 * (scripts/node-versions.json, the binaries the bootstrap fetched). The repetitions
 * rotate the lines (22 24 26, 24 26 22, …) so that load on the machine falls on all of
 * them alike; each child measures its own reference (the real ipset) too, so every
 * line's ratio is to a kernel run beside it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cell } from './report.js';
import { formatMs, formatRatio, median } from './stats.js';

/** What one child run writes to its `--lines-child` file. */
export interface LineChildResult {
  node: string;
  samples: Record<string, number[]>;
  cpuSamples: Record<string, number[]>;
  bytesPerMember: number;
  distinctBytes: number;
  peakRssMb: number;
}

/** One supported line's merged samples over the repetitions. */
export interface LineResult {
  line: string;
  version: string;
  samples: Record<string, number[]>;
  bytesPerMember: number[];
  distinctBytes: number[];
  peakRssMb: number[];
}

/** The sample labels the table reads (run.ts and cli-rows.ts record under these). */
export const LINE_LABELS = {
  w1: 'W1 plan+render 1M',
  w1Ref: 'W1 real ipset restore 1M',
  w2Parse: 'W2 parseSave+planReconcile 1M',
  w2Call: 'W2 agent resync call 1M',
  w2Ref: 'W2 real ipset save 1M',
  w6: 'W6 ipsets apply (JSON)',
  w6Ref: 'W6 bare ipset restore',
} as const;

/** The workloads a child measures. */
export const LINE_WORKLOADS = 'W1,W2,W6,MEM';

interface LineRunOptions {
  /** `{ line: '22', version: '22.23.5', node: '/path/to/node' }` per supported line. */
  lines: readonly { line: string; version: string; node: string }[];
  reps: number;
  /** The bench package folder (the child's cwd, where `tsx` resolves). */
  benchDir: string;
  log: (line: string) => void;
}

function runChild(node: string, benchDir: string, out: string): Promise<void> {
  const args = ['--expose-gc', '--max-old-space-size=6144', '--import', 'tsx', 'src/run.ts', '--only', LINE_WORKLOADS, '--reps', '1', '--lines-child', out];
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { cwd: benchDir, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${node} ${args.join(' ')} exited ${String(code ?? signal)}`)),
    );
  });
}

/** Runs the children, lines rotating per repetition, and merges each line's samples. */
export async function runNodeLines(options: LineRunOptions): Promise<LineResult[]> {
  const results = options.lines.map(({ line, version }) => ({
    line,
    version,
    samples: {} as Record<string, number[]>,
    bytesPerMember: [] as number[],
    distinctBytes: [] as number[],
    peakRssMb: [] as number[],
  }));
  const dir = mkdtempSync(join(tmpdir(), 'ipsets-bench-lines-'));
  try {
    for (let rep = 0; rep < options.reps; rep++) {
      for (let k = 0; k < options.lines.length; k++) {
        const index = (rep + k) % options.lines.length;
        const { node, version } = options.lines[index]!;
        const out = join(dir, `${version}-${rep}.json`);
        const started = performance.now();
        await runChild(node, options.benchDir, out);
        const child = JSON.parse(readFileSync(out, 'utf8')) as LineChildResult;
        if (child.node !== `v${version}`) throw new Error(`the child for Node ${version} ran on ${child.node}`);
        const result = results[index]!;
        for (const [label, values] of Object.entries(child.samples)) (result.samples[label] ??= []).push(...values);
        result.bytesPerMember.push(child.bytesPerMember);
        result.distinctBytes.push(child.distinctBytes);
        result.peakRssMb.push(child.peakRssMb);
        options.log(`per-line repetition ${rep + 1}/${options.reps}: Node v${version} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

const med = (result: LineResult, label: string): number => median(result.samples[label] ?? []);

/** `ours / reference = ratio`, or n/a when a side was not measured. */
function pair(result: LineResult, ours: string, reference: string): string {
  const a = med(result, ours);
  const b = med(result, reference);
  if (!Number.isFinite(a)) return 'n/a';
  if (!Number.isFinite(b)) return formatMs(a);
  return `${formatMs(a)} / ${formatMs(b)} = **${formatRatio(a / b)}**`;
}

const bytes = (values: readonly number[]): string => {
  const m = median(values);
  return Number.isFinite(m) ? `${m.toFixed(1)} B/member` : 'n/a';
};

/** The markdown table of the per-line rows, and a line saying which line was fastest on each. */
export function renderNodeLines(results: readonly LineResult[], reps: number, toolchain: string): string {
  const L = LINE_LABELS;
  const head = [
    '| Node | W1 1M: plan + render / real `ipset restore` | W2 1M: parseSave + planReconcile / real `ipset save` | W2 1M: the agent\'s resync call / real `ipset save` | W6: `ipsets apply` / bare `ipset restore` (peak RSS) | memory, cluster | memory, every member its own pod |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const body = results.map((r) => {
    const rss = median(r.peakRssMb);
    const cells = [
      `v${r.version}${r.line === toolchain ? ' (toolchain, image)' : ''}`,
      pair(r, L.w1, L.w1Ref),
      pair(r, L.w2Parse, L.w2Ref),
      pair(r, L.w2Call, L.w2Ref),
      `${pair(r, L.w6, L.w6Ref)}${Number.isFinite(rss) ? ` (${rss.toFixed(0)} MB)` : ''}`,
      bytes(r.bytesPerMember),
      bytes(r.distinctBytes),
    ];
    return `| ${cells.map(cell).join(' | ')} |`;
  });
  const fastest = (label: string): string => {
    const measured = results.filter((r) => Number.isFinite(med(r, label)));
    const best = [...measured].sort((a, b) => med(a, label) - med(b, label))[0];
    return best === undefined ? 'n/a' : `${best.line} (${measured.map((r) => `${r.line}: ${formatMs(med(r, label))}`).join(', ')})`;
  };
  return [
    ...head,
    ...body,
    '',
    `Medians of ${reps} child runs per line, the lines rotating in each repetition. Our side fastest on: W1 ${fastest(L.w1)}; ` +
      `W2 parse + reconcile ${fastest(L.w2Parse)}; W2 resync call ${fastest(L.w2Call)}; W6 ${fastest(L.w6)}.`,
  ].join('\n');
}
