/**
 * Benchmark: the fake kernel applying a 1,001,000-line restore file (1,000 hash:net sets ×
 * 1,000 members, the reference's syntax `-N name --exist nethash` / `-A name 10.x.y.z`), median
 * of 3 fresh kernels, beside the real `ipset restore` of the same text in a fresh network
 * namespace (when running as root with ipset installed).
 *
 *   node --expose-gc --import tsx bench/fake-kernel.ts [sets] [members]
 *
 * The bar (BENCHMARKS.md): the fake kernel must apply restore files at least as fast as the real one.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FakeKernel } from '../src/fake-kernel.js';

const SETS = Number(process.argv[2] ?? 1000);
const MEMBERS = Number(process.argv[3] ?? 1000);
const RUNS = 3;

function buildText(): string {
  const parts: string[] = [];
  for (let s = 0; s < SETS; s++) {
    const name = `azure-npm-${(s * 2654435761) % 4294967296}`;
    parts.push(`-N ${name} --exist nethash\n`);
    for (let m = 0; m < MEMBERS; m++) parts.push(`-A ${name} 10.${s & 255}.${m >> 8}.${m & 255}\n`);
  }
  return parts.join('');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const text = buildText();
const lines = SETS * (MEMBERS + 1);
console.log(`restore file: ${lines.toLocaleString('en-US')} lines, ${(text.length / 1e6).toFixed(1)} MB`);

const fakeTimes: number[] = [];
const saveTimes: number[] = [];
let saveBytes = 0;
for (let i = 0; i < RUNS; i++) {
  gc();
  const k = new FakeKernel();
  const t0 = performance.now();
  const r = k.restore(text, { exist: true });
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`fake restore failed: ${r.stderr}`);
  fakeTimes.push(ms);
  const t1 = performance.now();
  saveBytes = k.save().stdout.length;
  saveTimes.push(performance.now() - t1);
}
const fakeMs = median(fakeTimes);
console.log(
  `fake kernel restore: median ${fakeMs.toFixed(0)} ms (${fakeTimes.map((t) => t.toFixed(0)).join('/')}), ` +
    `${Math.round(lines / (fakeMs / 1000)).toLocaleString('en-US')} lines/s`,
);
console.log(`fake kernel save: median ${median(saveTimes).toFixed(0)} ms (${(saveBytes / 1e6).toFixed(1)} MB)`);

function realAvailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  const v = spawnSync('ipset', ['version'], { encoding: 'utf8' });
  if (v.status !== 0) return 'ipset not installed';
  return undefined;
}

const why = realAvailable();
if (why !== undefined) {
  console.log(`real ipset: skipped (${why})`);
} else {
  const realTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const ns = `ipsets-bench-${process.pid}-${i}`;
    spawnSync('ip', ['netns', 'add', ns]);
    try {
      const t0 = performance.now();
      const r = spawnSync('ip', ['netns', 'exec', ns, 'ipset', '-exist', 'restore'], {
        input: text,
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      const ms = performance.now() - t0;
      if (r.status !== 0) throw new Error(`real restore failed: ${r.stderr}`);
      realTimes.push(ms);
    } finally {
      spawnSync('ip', ['netns', 'exec', ns, 'ipset', 'destroy']);
      spawnSync('ip', ['netns', 'del', ns]);
    }
  }
  const realMs = median(realTimes);
  console.log(
    `real ipset restore (ip netns exec, fresh namespace): median ${realMs.toFixed(0)} ms ` +
      `(${realTimes.map((t) => t.toFixed(0)).join('/')}), ${Math.round(lines / (realMs / 1000)).toLocaleString('en-US')} lines/s`,
  );
  console.log(`fake / real time ratio: ${(fakeMs / realMs).toFixed(2)} (≤ 1 meets the bar in BENCHMARKS.md)`);
}
