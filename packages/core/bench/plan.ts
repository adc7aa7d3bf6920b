/**
 * Planning (and rendering) 1,000 sets × 1,000 members from an empty kernel, and the
 * manager's heap per member. Run: node --expose-gc --import tsx bench/plan.ts
 *
 * Three populations:
 * - `shared`: 100,000 pods (one IP and one pod key each, flat strings as parsed from
 *   JSON); every set holds 1,000 of them, so a pod is in ~10 sets (a cluster's shape:
 *   namespace + label sets);
 * - `events`: the same pods, but every call brings fresh copies of the IP and pod key
 *   strings, as separate watch events would (pod keys are interned, IPs are not);
 * - `distinct`: every member is a different pod with its own IP and key (worst case:
 *   nothing to share, 1,000,000 pods).
 *
 * "manager heap" is the heap after GC with the manager alive (and the pod list
 * dropped) minus the heap before the pods were made: everything the manager keeps,
 * strings included.
 *
 * As root with `ipset` installed, the same text is also fed to the real
 * `ipset -exist restore` inside a throwaway network namespace (3 runs) for the
 * comparison with the bar in BENCHMARKS.md; IPSETS_BENCH_KERNEL=0 skips that.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { IPSetManager } from '../src/manager/manager.js';
import { planApply } from '../src/plan/plan-apply.js';
import { renderRestore } from '../src/session/render.js';
import type { SetMetadata } from '../src/types.js';

const SETS = 1000;
const PER_SET = 1000;
const RUNS = 5;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('run with node --expose-gc --import tsx bench/plan.ts');
  process.exit(1);
}

function ip(n: number): string {
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

type Population = 'shared' | 'events' | 'distinct';

interface Pod {
  ip: string;
  key: string;
}

/** Pods as an agent holds them: strings parsed from API-server JSON (flat, one object per pod). */
function pods(count: number): Pod[] {
  const list: Pod[] = [];
  for (let n = 0; n < count; n++) list.push({ ip: ip(n), key: `ns-${n % 50}/pod-${n}` });
  return JSON.parse(JSON.stringify(list)) as Pod[];
}

function build(population: Population): IPSetManager {
  const manager = new IPSetManager();
  const all = pods(population === 'distinct' ? SETS * PER_SET : 100_000);
  for (let s = 0; s < SETS; s++) {
    const meta: SetMetadata[] = [{ name: `app:svc-${s}`, type: 'keyValueLabelOfPod' }];
    for (let i = 0; i < PER_SET; i++) {
      if (population === 'distinct') {
        const pod = all[s * PER_SET + i]!;
        manager.addToSets(meta, pod.ip, pod.key);
        continue;
      }
      // A stride walk so that each set takes a different slice of the pods.
      const n = (s * 7919 + i * 100) % all.length;
      if (population === 'shared') {
        const pod = all[n]!;
        manager.addToSets(meta, pod.ip, pod.key);
      } else {
        // events: every call brings its own copies of the strings, as separate watch events do.
        manager.addToSets(meta, ip(n), `ns-${n % 50}/pod-${n}`);
      }
    }
  }
  return manager;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function heapUsed(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

/** Median wall time of `ipset -exist restore` of `text` in fresh network namespaces, or why it was skipped. */
function kernelRestore(text: string): string {
  if (process.env.IPSETS_BENCH_KERNEL === '0') return 'real restore: skipped (IPSETS_BENCH_KERNEL=0)';
  if (process.getuid?.() !== 0) return 'real restore: skipped (not root)';
  if (spawnSync('ipset', ['version']).status !== 0) return 'real restore: skipped (no ipset)';
  const times: number[] = [];
  for (let r = 0; r < 3; r++) {
    const ns = `ipsets-bench-${process.pid}-${r}`;
    if (spawnSync('ip', ['netns', 'add', ns]).status !== 0) return `real restore: skipped (cannot create netns ${ns})`;
    try {
      const t0 = performance.now();
      const result = spawnSync('ip', ['netns', 'exec', ns, 'ipset', '-exist', 'restore'], { input: text, maxBuffer: 1 << 26 });
      const elapsed = performance.now() - t0;
      if (result.status !== 0) return `real restore: failed: ${String(result.stderr).trim()}`;
      times.push(elapsed);
    } finally {
      spawnSync('ip', ['netns', 'del', ns]);
    }
  }
  return `real ipset restore median ${median(times).toFixed(0)} ms (runs ${times.map((v) => v.toFixed(0)).join('/')})`;
}

console.log(`load average ${loadavg().map((v) => v.toFixed(2)).join(' ')} (timings are wall clock; other work on the machine inflates them)`);
let lastText = '';
for (const population of ['shared', 'events', 'distinct'] as const) {
  const before = heapUsed();
  const b0 = performance.now();
  let manager: IPSetManager | undefined = build(population);
  const buildMs = performance.now() - b0;
  const after = heapUsed();
  const members = SETS * PER_SET;

  const planMs: number[] = [];
  const renderMs: number[] = [];
  let lines = 0;
  let bytes = 0;
  for (let r = 0; r < RUNS; r++) {
    gc();
    const t0 = performance.now();
    const plan = planApply(manager);
    const t1 = performance.now();
    const text = renderRestore(plan);
    const t2 = performance.now();
    planMs.push(t1 - t0);
    renderMs.push(t2 - t1);
    lines = plan.lines.length;
    bytes = text.length;
    lastText = text;
  }
  // One pod change after everything reached the kernel: planning must not depend on the state's size.
  const full = planApply(manager);
  manager.commit({ converged: true, plan: full, attempts: [], linesTotal: 0, linesApplied: 0, skipped: [], failedSets: [], inUseSets: [], notes: [] });
  const incremental: number[] = [];
  for (let r = 0; r < 5; r++) {
    const meta: SetMetadata[] = [{ name: 'app:svc-1', type: 'keyValueLabelOfPod' }, { name: 'app:svc-2', type: 'keyValueLabelOfPod' }];
    manager.addToSets(meta, `11.0.0.${r}`, `ns-1/new-${r}`);
    const t0 = performance.now();
    const plan = planApply(manager);
    incremental.push(performance.now() - t0);
    manager.commit({ converged: true, plan, attempts: [], linesTotal: 0, linesApplied: 0, skipped: [], failedSets: [], inUseSets: [], notes: [] });
  }
  const perMember = (after - before) / members;
  console.log(
    `${population.padEnd(8)} ${SETS} sets × ${PER_SET} members: ${lines} lines, ${(bytes / 1e6).toFixed(1)} MB text; ` +
      `plan median ${median(planMs).toFixed(0)} ms (min ${Math.min(...planMs).toFixed(0)}), render median ${median(renderMs).toFixed(0)} ms (min ${Math.min(...renderMs).toFixed(0)}) ` +
      `(runs: plan ${planMs.map((v) => v.toFixed(0)).join('/')}, render ${renderMs.map((v) => v.toFixed(0)).join('/')}); ` +
      `manager heap ${perMember.toFixed(1)} bytes/member (built by 1,000,000 addToSets calls in ${buildMs.toFixed(0)} ms); one pod change on this state: plan median ${(median(incremental) * 1000).toFixed(0)} µs`,
  );
  manager = undefined;
}
console.log(kernelRestore(lastText));
