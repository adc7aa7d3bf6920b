/**
 * The benchmark suite (issue #7): every workload, the library side by
 * side with the real `ipset` in network namespaces this process creates and deletes.
 * Writes BENCHMARKS.md and docs/bench-chart.svg at the repository root.
 *
 *   pnpm bench                       # every package's bench, this one included
 *   node --expose-gc --import tsx src/run.ts [--reps 3] [--max 1000000] [--only W1,W3] [--events 500] [--dry] [--no-lines]
 *
 * --max below 1,000,000, --only or --dry print the results without writing files. A
 * full run also measures W1, W2, W6 and memory on every supported Node line
 * (node-lines.ts; --no-lines skips that); `--lines-child FILE` is one such measurement.
 * IPSETS_BENCH_REAL=off measures the library side only (reference columns say why).
 *
 * Why one file: it is the script of one benchmark run (options, then each workload measured
 * side by side with the real `ipset`, then the report); the workloads' bodies are in
 * workloads.ts, the report in report.ts, the kernel in kernel.ts, K1 in kernel-text.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyIPSets,
  parseListHeaders,
  parseSave,
  planApply,
  PreparedDesiredState,
  planReconcile,
  reconcileIPSets,
  renderRestore,
  runRestoreSession,
} from '@ipsets/core';
import type { CommandResult, IPSetManager, IpsetPort } from '@ipsets/core';
import { createLinuxPort } from '@ipsets/exec-linux';
import { FakeKernel } from '@ipsets/fake-kernel';
import { BARS, meetsBar } from './bars.js';
import { renderChart } from './chart.js';
import { runCliRows } from './cli-rows.js';
import type { ChartSeries } from './chart.js';
import { createNamespace, expectOk, probeRealKernel } from './kernel.js';
import { runKernelText } from './kernel-text.js';
import type { BenchNamespace } from './kernel.js';
import { loadNow, machineInfo } from './machine.js';
import { LINE_WORKLOADS, renderNodeLines, runNodeLines } from './node-lines.js';
import type { LineChildResult } from './node-lines.js';
import { renderBenchmarks } from './report.js';
import type { ResultRow, Verdict } from './report.js';
import {
  canCollect,
  collect,
  formatCount,
  formatMs,
  formatRatio,
  heapAfterGc,
  median,
  shortCount,
  timeAsync,
  timeAsyncWithChildren,
  timeSync,
} from './stats.js';
import { PER_SET, buildDriftedManager, buildManager, instantPort, makePods, perturb, setMeta } from './workloads.js';
import { nodeBinary, nodeVersions } from '../../../scripts/toolchain.mjs';

// ---------------------------------------------------------------------------
// Options

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const FULL = 1_000_000;
const TOP = Number(option('max') ?? FULL);
const REPS = Number(option('reps') ?? 3);
const EVENTS = Number(option('events') ?? 500);
const ONLY = option('only')?.toUpperCase().split(',');
const DRY = process.argv.includes('--dry') || TOP !== FULL || ONLY !== undefined;
/** Set in a per-line child (node-lines.ts): where to write its samples. */
const LINES_CHILD = option('lines-child');
const PER_LINE = !DRY && LINES_CHILD === undefined && !process.argv.includes('--no-lines');
const SIZES = [10_000, 100_000, 1_000_000].filter((n) => n < TOP).concat(TOP);
const wants = (w: string): boolean => ONLY === undefined || ONLY.includes(w);

if (!canCollect) {
  console.error('run with node --expose-gc (memory figures need a full collection)');
  process.exit(1);
}
if (!(Number.isInteger(TOP / PER_SET) && TOP >= PER_SET && REPS >= 1 && EVENTS >= 1)) {
  console.error(`--max must be a multiple of ${PER_SET}; --reps and --events at least 1`);
  process.exit(2);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const benchmarksFile = join(root, 'BENCHMARKS.md');
const chartFile = join(root, 'docs', 'bench-chart.svg');

const started = performance.now();
const loadAtStart = loadNow();
const real = await probeRealKernel();
const refNa = real.available ? '' : `n/a (${real.reason ?? 'no kernel'})`;
const samples = new Map<string, number[]>();
const cpuSamples = new Map<string, number[]>();
const push = (map: Map<string, number[]>, label: string, value: number): void => {
  const list = map.get(label);
  if (list === undefined) map.set(label, [value]);
  else list.push(value);
};
/** Records one wall-time sample (and its CPU time, when known) under `label`. */
const record = (label: string, ms: number, cpuMs?: number): void => {
  push(samples, label, ms);
  if (cpuMs !== undefined && Number.isFinite(cpuMs)) push(cpuSamples, label, cpuMs);
};
const med = (label: string): number => median(samples.get(label) ?? []);
const cpuMed = (label: string): number => median(cpuSamples.get(label) ?? []);

/** Runs the steps of one repetition in an order that rotates each repetition (A B C, B C A, …). */
async function interleaved(rep: number, steps: readonly (() => Promise<void> | void)[]): Promise<void> {
  for (let k = 0; k < steps.length; k++) await steps[(rep + k) % steps.length]!();
}

const log = (line: string): void => console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
log(
  `sizes ${SIZES.map(shortCount).join(', ')}; ${REPS} repetitions; real kernel: ${real.available ? `yes (${real.version ?? '?'})` : refNa}`,
);

// ---------------------------------------------------------------------------
// Memory (first, on a clean heap) and the W1 managers

const managers = new Map<number, IPSetManager>();
let bytesPerMember = Number.NaN;
{
  const before = heapAfterGc();
  let pods: ReturnType<typeof makePods> | undefined = makePods(TOP, 'cluster');
  const built = timeSync(() => buildManager(TOP, 'cluster', pods));
  pods = undefined;
  const after = heapAfterGc();
  managers.set(TOP, built.value);
  bytesPerMember = (after - before) / TOP;
  record(`build manager, ${shortCount(TOP)} members (addToSets)`, built.ms);
  log(`manager of ${formatCount(TOP)} members built in ${formatMs(built.ms)}: ${bytesPerMember.toFixed(1)} bytes/member after GC`);
}
for (const size of SIZES) if (!managers.has(size)) managers.set(size, buildManager(size, 'cluster'));

// ---------------------------------------------------------------------------
// W1 cold start (and W5: the fake kernel on the same text), every size

const w1Label = (n: number): string => `W1 plan+render ${shortCount(n)}`;
const realLabel = (n: number): string => `W1 real ipset restore ${shortCount(n)}`;
const fakeLabel = (n: number): string => `W5 fake kernel restore ${shortCount(n)}`;
let topText = '';
let topLines = 0;
/** W1's restore text per size (W2 without a kernel restores it into the fake). */
const w1Texts = new Map<number, string>();
/** Per size, the last W1 namespace: it holds W1's state for W2. */
const w2Namespaces = new Map<number, BenchNamespace>();

if (wants('W1') || wants('W5') || wants('W2') || wants('W4')) {
  for (const size of SIZES) {
    const manager = managers.get(size)!;
    // One untimed warm-up makes the text every side gets (and warms the JIT for ours).
    const warmPlan = planApply(manager);
    const text = renderRestore(warmPlan);
    const lineCount = warmPlan.lines.length;
    if (size === TOP) {
      topText = text;
      topLines = lineCount;
    }
    if (wants('W2')) w1Texts.set(size, text);
    if (wants('W1') || wants('W5') || (wants('W2') && real.available)) {
      for (let rep = 0; rep < REPS; rep++) {
        const last = rep === REPS - 1;
        await interleaved(rep, [
          () => {
            if (!wants('W1')) return;
            const { ms, cpuMs, value } = timeSync(() => renderRestore(planApply(manager)));
            if (value !== text) throw new Error('planApply + renderRestore is not deterministic');
            record(w1Label(size), ms, cpuMs);
          },
          async () => {
            if (!real.available) return;
            if (!(wants('W1') || wants('W5')) && !last) return;
            collect();
            const ns = createNamespace();
            const run = expectOk(await ns.ipset(['-exist', 'restore'], { input: text }), `ipset restore of ${formatCount(lineCount)} lines`);
            if (wants('W1') || wants('W5')) record(realLabel(size), run.ms, run.cpuMs);
            // The last namespace of each size stays for W2: it holds W1's state.
            if (last && wants('W2')) w2Namespaces.set(size, ns);
            else ns.dispose();
          },
          () => {
            if (!wants('W5')) return;
            const { ms, cpuMs, value } = timeSync(() => new FakeKernel().restore(text, { exist: true }));
            if (value.exitCode !== 0) throw new Error(`fake restore failed: ${value.stderr}`);
            record(fakeLabel(size), ms, cpuMs);
          },
        ]);
      }
      log(
        `W1/W5 ${shortCount(size)} (${formatCount(lineCount)} lines, ${(text.length / 1e6).toFixed(1)} MB): plan+render ${formatMs(med(w1Label(size)))}, ` +
          `real restore ${formatMs(med(realLabel(size)))}, fake restore ${formatMs(med(fakeLabel(size)))}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------
// W2 resync: parse a save and reconcile against a desired state 1% away, every size;
// the agent's whole resync call (desiredState + reconcileIPSets) on the same save; and
// the agent's whole tick (its prepared state reconciled through the real Linux port)

const w2SaveLabel = (n: number): string => `W2 real ipset save ${shortCount(n)}`;
const w2ParseLabel = (n: number): string => `W2 parseSave+planReconcile ${shortCount(n)}`;
const w2CallLabel = (n: number): string => `W2 agent resync call ${shortCount(n)}`;
const w2TickLabel = (n: number): string => `W2 agent tick ${shortCount(n)}`;
/** Per size, the CPU samples of the tick's children (`ipset save` and `list -t`), for the log. */
const w2TickChildCpu = new Map<string, number[]>();
let w2Members = 0;
let w2Source = '';
const resultOf = (stdout: string): CommandResult => ({ exitCode: 0, stdout, stderr: '' }) as CommandResult;
if (wants('W2')) {
  for (const size of SIZES) {
    // From a manager of its own, dropped at once: reading a manager's desired members
    // makes their strings (it keeps IPv4 hosts as numbers), and W1's manager, which this
    // process keeps for W3, would then hold a million strings no agent holds.
    const { desired, changed } = perturb(buildManager(size, 'cluster').desiredState());
    // The agent's manager holds the desired state; the kernel holds W1's state, 1% away.
    const agent = buildDriftedManager(size);
    const ns = w2Namespaces.get(size);
    let saveText: string;
    let headersText: string;
    if (ns !== undefined) {
      headersText = expectOk(await ns.ipset(['list', '-t'], { keepStdout: true }), 'ipset list -t').stdout;
      saveText = expectOk(await ns.ipset(['save'], { keepStdout: true }), 'ipset save').stdout;
      w2Source = `a real \`ipset save\` in a namespace holding W1's state`;
    } else {
      const kernel = new FakeKernel();
      if (kernel.restore(w1Texts.get(size)!, { exist: true }).exitCode !== 0) throw new Error('fake restore of the W1 text failed');
      saveText = kernel.save().stdout;
      headersText = kernel.listHeaders().stdout;
      w2Source = `the fake kernel's save of W1's state (${refNa})`;
    }
    // The agent's port hands over the texts ipset printed and accepts the restore at
    // once: the call's own work is timed, not the kernel's.
    const agentPort: IpsetPort = {
      ...instantPort,
      save: () => Promise.resolve(resultOf(saveText)),
      listHeaders: () => Promise.resolve(resultOf(headersText)),
    };
    // The agent's tick: the state it checked once when it loaded its file, reconciled
    // through the real port (`ipset save` and `list -t` in the namespace); the restore is
    // accepted at once, so the kernel stays 1% away and every tick plans the same lines.
    // The port's restore never runs (it is replaced), so nothing is staged; a folder of
    // our own all the same, never the system's /run/ipsets.
    const restoreDir = ns === undefined ? undefined : mkdtempSync(join(tmpdir(), 'ipsets-bench-tick-'));
    const tick =
      ns === undefined
        ? undefined
        : {
            prepared: new PreparedDesiredState(agent.desiredState()),
            port: { ...createLinuxPort({ netns: ns.name, restoreDir: restoreDir! }), restore: instantPort.restore } satisfies IpsetPort,
          };
    // The agent's previous call (untimed): the state it checked then.
    let resynced = new PreparedDesiredState(agent.desiredState());
    for (let rep = 0; rep < REPS; rep++) {
      await interleaved(rep, [
        async () => {
          if (ns === undefined) return;
          collect();
          const run = expectOk(await ns.ipset(['save'], { keepStdout: true }), 'ipset save');
          record(w2SaveLabel(size), run.ms, run.cpuMs);
          saveText = run.stdout;
        },
        () => {
          const text = saveText;
          const { ms, cpuMs, value } = timeSync(() => {
            const snapshot = parseSave(text);
            const plan = planReconcile(desired, snapshot, parseListHeaders(headersText));
            return { plan, snapshot };
          });
          record(w2ParseLabel(size), ms, cpuMs);
          if (size === TOP) w2Members = value.snapshot.sets.reduce((n, s) => n + s.members.length, 0);
          if (value.snapshot.problems.length > 0) throw new Error(`parseSave reported problems: ${JSON.stringify(value.snapshot.problems[0])}`);
        },
        async () => {
          // As the agent's loop: the last call's checked state passed on, only changed sets checked again.
          const { ms, cpuMs, value } = await timeAsync(() => reconcileIPSets((resynced = new PreparedDesiredState(agent.desiredState(), resynced)), agentPort));
          if (!value.converged || value.linesTotal !== changed) throw new Error(`W2 resync call planned ${value.linesTotal} lines for ${changed} changes`);
          record(w2CallLabel(size), ms, cpuMs);
        },
        async () => {
          if (tick === undefined) return;
          // CPU: this process and the `ip netns exec … ipset` children the port ran.
          const { ms, cpuMs, childCpuMs, value } = await timeAsyncWithChildren(() => reconcileIPSets(tick.prepared, tick.port));
          if (!value.converged || value.linesTotal !== changed) throw new Error(`W2 agent tick planned ${value.linesTotal} lines for ${changed} changes`);
          record(w2TickLabel(size), ms, cpuMs);
          push(w2TickChildCpu, String(size), childCpuMs);
        },
      ]);
    }
    ns?.dispose();
    w2Namespaces.delete(size);
    if (restoreDir !== undefined) rmSync(restoreDir, { recursive: true, force: true });
    log(
      `W2 ${shortCount(size)}, ${formatCount(changed)} changed: parse+reconcile ${formatMs(med(w2ParseLabel(size)))}, ` +
        `agent resync call ${formatMs(med(w2CallLabel(size)))}, ipset save ${formatMs(med(w2SaveLabel(size)))} (CPU ${formatMs(cpuMed(w2SaveLabel(size)))}), ` +
        `agent tick ${formatMs(med(w2TickLabel(size)))} (CPU ${formatMs(cpuMed(w2TickLabel(size)))}, of which its ipset children ${formatMs(median(w2TickChildCpu.get(String(size)) ?? []))})`,
    );
  }
}
for (const ns of w2Namespaces.values()) ns.dispose();
w1Texts.clear();

// ---------------------------------------------------------------------------
// K1: the kernel's cost of our restore text against the save text of the same sets
// (before W3, which commits the managers: their plan would then be empty)

let k1: Awaited<ReturnType<typeof runKernelText>> | undefined;
if (wants('K1')) {
  const text = topText || renderRestore(planApply(managers.get(TOP)!));
  k1 = await runKernelText(
    { reps: REPS, real, record, med, log },
    { text, sets: TOP / PER_SET, perSet: PER_SET, judged: TOP === FULL, limit: BARS.k1 },
  );
}

// ---------------------------------------------------------------------------
// W3 churn: one pod added, then removed, on an already-committed manager

const w3Label = (n: number): string => `W3 planApply+render after one pod change ${shortCount(n)}`;
const w3MutateLabel = (n: number): string => `W3 addToSets/removeFromSets ${shortCount(n)}`;
let w3PlanLines = 0;
if (wants('W3')) {
  for (const size of SIZES) {
    const manager = managers.get(size)!;
    const setup = await applyIPSets(manager, instantPort);
    if (!setup.converged || manager.hasDirtyChanges) throw new Error('W3 setup: the manager did not commit');
    const sets = size / PER_SET;
    const planTimes: number[] = [];
    const mutateTimes: number[] = [];
    const warmup = 20;
    collect();
    for (let e = 0; e < EVENTS + warmup; e++) {
      const metas = [...setMeta(e % sets), ...setMeta((e + 1) % sets), ...setMeta((e + 2) % sets)];
      const ip = `10.254.${(e >>> 8) & 255}.${e & 255}`;
      const key = `churn/pod-${e}`;
      for (const change of ['add', 'remove'] as const) {
        // No collection per sample: a full GC of a million-member heap costs more than
        // hundreds of samples; the median absorbs the occasional scavenge.
        const t0 = performance.now();
        if (change === 'add') manager.addToSets(metas, ip, key);
        else manager.removeFromSets(metas, ip, key);
        const t1 = performance.now();
        const plan = planApply(manager);
        renderRestore(plan);
        const t2 = performance.now();
        if (e >= warmup) {
          mutateTimes.push(t1 - t0);
          planTimes.push(t2 - t1);
        }
        w3PlanLines = plan.lines.length;
        manager.commit(await runRestoreSession(plan, instantPort));
        if (manager.hasDirtyChanges) throw new Error('W3: a churn plan did not commit');
      }
    }
    samples.set(w3Label(size), planTimes);
    samples.set(w3MutateLabel(size), mutateTimes);
    log(
      `W3 ${shortCount(size)}: one pod change (${w3PlanLines} lines): planApply+render ${formatMs(median(planTimes))}, ` +
        `addToSets/removeFromSets ${formatMs(median(mutateTimes))}, medians of ${planTimes.length}`,
    );
  }
}

// ---------------------------------------------------------------------------
// W4 end to end through the Linux port, against a bare restore of the same text

let w4Lines = 0;
if (wants('W4') && real.available) {
  // Free the W1 managers: W4 builds a fresh one per repetition (applyIPSets commits it).
  managers.clear();
  const text = topText;
  w4Lines = topLines;
  for (let rep = 0; rep < REPS; rep++) {
    await interleaved(rep, [
      async () => {
        const ns = createNamespace();
        try {
          collect();
          // Exactly `ip netns exec NS ipset -exist restore`: no shell in between (no CPU figure).
          const run = expectOk(await ns.ipset(['-exist', 'restore'], { input: text, cpu: false }), 'bare restore');
          record('W4 bare ipset -exist restore', run.ms);
        } finally {
          ns.dispose();
        }
      },
      async () => {
        const ns = createNamespace();
        try {
          const manager = buildManager(TOP, 'cluster');
          const port = createLinuxPort({ netns: ns.name });
          const { ms, value: report } = await timeAsync(() => applyIPSets(manager, port));
          if (!report.converged || report.linesTotal !== w4Lines) {
            throw new Error(`W4 applyIPSets did not converge: ${JSON.stringify(report.fatal ?? report.failedSets.slice(0, 3))}`);
          }
          record('W4 applyIPSets via createLinuxPort', ms);
        } finally {
          ns.dispose();
        }
      },
    ]);
  }
  log(
    `W4 ${formatCount(w4Lines)} lines: applyIPSets ${formatMs(med('W4 applyIPSets via createLinuxPort'))}, ` +
      `bare ${formatMs(med('W4 bare ipset -exist restore'))}`,
  );
}

// ---------------------------------------------------------------------------
// Memory, worst case: every member its own pod

let distinctBytes = Number.NaN;
if (wants('MEM')) {
  managers.clear();
  topText = '';
  const before = heapAfterGc();
  let pods: ReturnType<typeof makePods> | undefined = makePods(TOP, 'distinct');
  // Built inside a function, as the cluster row is: called from this top-level code,
  // the call's argument would stay in the module frame and keep the pod list alive.
  let manager: IPSetManager | undefined = (() => buildManager(TOP, 'distinct', pods))();
  pods = undefined;
  const after = heapAfterGc();
  distinctBytes = (after - before) / TOP;
  manager = undefined;
  void manager;
  log(`memory, distinct pods: ${distinctBytes.toFixed(1)} bytes/member`);
}

// ---------------------------------------------------------------------------
// Results

/** A row comparing our median with the reference median; `label`s pick wall and CPU samples. */
interface Comparison {
  workload: string;
  ours: string;
  /** Label of the reference samples, or a fixed reference time (W3's baseline). */
  reference: string | number;
  bar: string;
  /** Largest ratio that meets the bar; `undefined` for rows shown for the trend only. */
  limit: number | undefined;
  /** What the reference column says when there is no reference (default: why the kernel is unavailable). */
  missing?: string;
}

const compare = (c: Comparison): ResultRow => {
  const oursMs = med(c.ours);
  const refMs = typeof c.reference === 'number' ? c.reference : med(c.reference);
  const hasRef = Number.isFinite(refMs) && Number.isFinite(oursMs);
  const ratio = oursMs / refMs;
  const cpuRatio = typeof c.reference === 'number' ? Number.NaN : cpuMed(c.ours) / cpuMed(c.reference);
  // Conservative: a bar is met when the wall-time ratio meets it and so does the CPU-time
  // ratio where both sides have one (load on the machine slows the two sides unequally).
  let met: Verdict = 'n/a';
  if (c.limit !== undefined && hasRef) met = meetsBar(ratio, cpuRatio, c.limit) ? 'yes' : 'no';
  return {
    workload: c.workload,
    ours: formatMs(oursMs),
    reference: hasRef ? formatMs(refMs) : (c.missing ?? (refNa || 'n/a (not measured)')),
    ratio: hasRef ? formatRatio(ratio) : 'n/a',
    cpuRatio: Number.isFinite(cpuRatio) ? `${formatRatio(cpuRatio)} (${formatMs(cpuMed(c.ours))} / ${formatMs(cpuMed(c.reference as string))})` : '—',
    bar: c.bar,
    met,
  };
};

const rows: ResultRow[] = [];
if (wants('W1')) {
  for (const size of SIZES) {
    const top = size === TOP;
    rows.push(
      compare({
        workload: `W1 cold start, ${formatCount(size / PER_SET)} sets × ${formatCount(PER_SET)}: planApply + renderRestore vs real \`ipset restore\``,
        ours: w1Label(size),
        reference: realLabel(size),
        bar: top ? `planning + rendering ≤ ${BARS.w1} × the real restore, wall and CPU` : '(the bar is for 1M; shown for the trend)',
        limit: top && TOP === FULL ? BARS.w1 : undefined,
      }),
    );
  }
}
if (wants('W2')) {
  rows.push(
    compare({
      workload: `W2 resync, ${formatCount(w2Members)} saved members, desired 1% away: parseSave + planReconcile vs real \`ipset save\``,
      ours: w2ParseLabel(TOP),
      reference: w2SaveLabel(TOP),
      bar: `parse + diff ≤ ${BARS.w2} × the save, wall and CPU`,
      limit: TOP === FULL ? BARS.w2 : undefined,
    }),
  );
  for (const size of SIZES) {
    const top = size === TOP;
    rows.push(
      compare({
        workload: `W2 the agent's whole resync call, ${formatCount(size / PER_SET)} sets × ${formatCount(PER_SET)}, ${formatCount(size / 100)} members drifted: \`reconcileIPSets(new PreparedDesiredState(manager.desiredState(), previous), port)\` vs real \`ipset save\``,
        ours: w2CallLabel(size),
        reference: w2SaveLabel(size),
        bar: top ? `the whole call ≤ ${BARS.w2} × the save, wall and CPU` : '(the bar is for 1M; shown for the trend)',
        limit: top && TOP === FULL ? BARS.w2 : undefined,
      }),
    );
  }
  for (const size of SIZES) {
    const top = size === TOP;
    rows.push(
      compare({
        workload: `W2 the agent's whole tick, ${formatCount(size / PER_SET)} sets × ${formatCount(PER_SET)}, ${formatCount(size / 100)} members drifted: \`reconcileIPSets(prepared, createLinuxPort({ netns }))\` (\`ipset save\` + \`list -t\` + resync; restore accepted at once) vs real \`ipset save\``,
        ours: w2TickLabel(size),
        reference: w2SaveLabel(size),
        bar: top ? `save + resync ≤ ${BARS.w2Tick} × the bare save, wall and CPU` : '(the bar is for 1M; shown for the trend)',
        limit: top && TOP === FULL ? BARS.w2Tick : undefined,
      }),
    );
  }
}
if (wants('W3')) {
  const base = med(w3Label(SIZES[0]!));
  for (const size of SIZES) {
    const first = size === SIZES[0];
    rows.push(
      compare({
        workload:
          `W3 churn, one pod (3 sets) added or removed on ${formatCount(size)} committed members: planApply + renderRestore ` +
          `(the addToSets/removeFromSets call before it: ${formatMs(med(w3MutateLabel(size)))})`,
        ours: w3Label(size),
        reference: first ? Number.NaN : base,
        bar: first ? '(baseline of the ratio)' : `independent of state size: ≤ 2 × the ${shortCount(SIZES[0]!)} time`,
        limit: first ? undefined : 2,
        missing: 'baseline',
      }),
    );
  }
}
if (wants('W4')) {
  rows.push(
    compare({
      workload: `W4 end to end, ${formatCount(w4Lines || TOP + TOP / PER_SET)} lines: \`applyIPSets\` (plan, render, session, commit) through \`createLinuxPort({ netns })\` vs bare \`ipset -exist restore\``,
      ours: 'W4 applyIPSets via createLinuxPort',
      reference: 'W4 bare ipset -exist restore',
      bar: `within 15% of the bare restore (≤ ${BARS.w4})`,
      limit: BARS.w4,
    }),
  );
}
if (wants('W5')) {
  rows.push(
    compare({
      workload: `W5 fake kernel \`new FakeKernel().restore(text, { exist: true })\` vs real \`ipset restore\`, W1 text (${shortCount(TOP)} members)`,
      ours: fakeLabel(TOP),
      reference: realLabel(TOP),
      bar: `the fake at least as fast as the real one (≤ ${BARS.w5})`,
      limit: BARS.w5,
    }),
  );
}
if (k1 !== undefined) rows.push(compare(k1.comparison));
// W6–W8: the built command on a 1,000,000-member desired file (cli-rows.ts).
const cli =
  wants('W6') || wants('W7') || wants('W8')
    ? await runCliRows({ root, reps: REPS, real, record, med, compare, log, wants })
    : { rows: [], method: [], peakRssMb: Number.NaN };
rows.push(...cli.rows);
const memoryRow = (workload: string, bytes: number, limit: number): ResultRow => ({
  workload,
  ours: Number.isFinite(bytes) ? `${bytes.toFixed(1)} B/member (${((bytes * TOP) / 2 ** 20).toFixed(0)} MiB)` : 'n/a',
  reference: '—',
  ratio: '—',
  cpuRatio: '—',
  bar: `≤ ${limit} bytes per member (heap after GC)`,
  met: !Number.isFinite(bytes) || TOP !== FULL ? 'n/a' : bytes <= limit ? 'yes' : 'no',
});
rows.push(
  memoryRow(
    `Memory: manager of ${formatCount(TOP)} members, cluster-shaped (${formatCount(TOP / 10)} pods, each in ~10 sets)`,
    bytesPerMember,
    BARS.clusterBytesPerMember,
  ),
);
if (wants('MEM')) rows.push(memoryRow(`Memory: manager of ${formatCount(TOP)} members, every member its own pod (worst case)`, distinctBytes, BARS.bytesPerMember));

const series: ChartSeries[] = [
  { name: 'W1 ours: planApply + render', color: '#1f77b4', points: SIZES.map((x) => ({ x, y: med(w1Label(x)) })) },
  { name: 'W1 real ipset restore', color: '#d62728', dashed: true, points: SIZES.map((x) => ({ x, y: med(realLabel(x)) })) },
  { name: 'W5 fake kernel restore', color: '#9467bd', points: SIZES.map((x) => ({ x, y: med(fakeLabel(x)) })) },
  {
    name: `bar: ${BARS.w1} × real restore`,
    color: '#888888',
    dashed: true,
    points: SIZES.map((x) => ({ x, y: BARS.w1 * med(realLabel(x)) })),
  },
  { name: "W2 ours: the agent's resync call", color: '#ff7f0e', points: SIZES.map((x) => ({ x, y: med(w2CallLabel(x)) })) },
  { name: 'W2 real ipset save', color: '#e377c2', dashed: true, points: SIZES.map((x) => ({ x, y: med(w2SaveLabel(x)) })) },
  { name: 'W3 ours: plan one pod change', color: '#2ca02c', points: SIZES.map((x) => ({ x, y: med(w3Label(x)) })) },
  { name: 'W3 ours: the add/remove call', color: '#8c6d31', points: SIZES.map((x) => ({ x, y: med(w3MutateLabel(x)) })) },
];
const chart = renderChart({
  title: 'Time against state size (log-log)',
  subtitle: `${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores, Node ${process.version}; medians of ${REPS} (W3: ${EVENTS * 2} events)`,
  xLabel: 'members in the state (1,000 per set)',
  yLabel: 'wall time (median)',
  series,
});

const method = [
  `Workloads run in one process (\`node --expose-gc --import tsx packages/bench/src/run.ts\`), ${REPS} repetitions each; in every repetition the sides run one after the other in an order that rotates (A B C, B C A, …); the tables show medians, all samples are listed below.`,
  'States: hash:net sets (`keyValueLabelOfPod`, the reference implementation\'s `-N name --exist nethash`) of 1,000 members; pods are a tenth of the members, so a pod is in ~10 sets; IPs and pod keys are fresh strings (parsed from JSON) as an agent would hold them.',
  'Real kernel: bare `ip netns exec NS ipset …` child processes with the text written to stdin, each restore in a fresh network namespace created and deleted by the benchmark (never the default namespace). Times include `ip netns exec` (a few ms). For W1, W2 and W5 a `bash -c \'ipset …; times\'` in between reports ipset\'s CPU time (a few ms more wall time); W4\'s bare restore runs without it.',
  'CPU-time ratio: ours is `process.cpuUsage()` of this process (every thread, GC included), the real-ipset side is the ipset child\'s user + system time. A 2-core machine shared with other work slows the sides unequally (ipset waits on the scheduler at every netlink round trip), so a bar counts as met only when the wall-time ratio meets it and the CPU-time ratio, where there is one, does too.',
  'W1: `renderRestore(planApply(manager))` on a manager whose 1,000,000 members are all dirty (nothing applied), after one untimed warm-up; the real side restores the same text.',
  `W2, every size: ${w2Source || 'not run'}; ours = \`parseSave\` + \`parseListHeaders\` + \`planReconcile\` against the manager's desired state with 0.5% of each set's members dropped and as many new ones added (1% of members differ); and the agent's whole resync call as the library's agent makes it, \`reconcileIPSets(new PreparedDesiredState(manager.desiredState(), previous), port)\` (desired state, its check of the sets that changed since the previous call — none between two resyncs of an unchanged manager; an untimed call before the first gives the previous —, parse, plan, render, session report) on a manager holding that desired state, through a port that hands over the save and \`list -t\` texts ipset printed and accepts the restore at once (the library's share of the call). The real-ipset side is \`ipset save\` of the same state (stdout read into a string).`,
  `W2 agent tick, every size (real kernel only): what \`ipsets agent\` does each interval, \`reconcileIPSets(prepared, port)\` with \`prepared = new PreparedDesiredState(agent.desiredState())\` made once, untimed (the agent checks its file once, when it loads it), and \`port\` = \`createLinuxPort({ netns })\` on the W2 namespace (it runs \`ip netns exec NS ipset save\`, then \`list -t\`, through execa) with its restore replaced by one that accepts at once, so the kernel stays 1% away and every tick plans the same lines (its \`linesTotal\` is checked against the changes); interleaved with the bare save in the same repetitions. CPU: \`process.cpuUsage()\` of this process plus the growth of its reaped children's user + system time (\`cutime + cstime\` in \`/proc/self/stat\`: Node has no \`getrusage(RUSAGE_CHILDREN)\`, and \`process.cpuUsage()\` / \`process.resourceUsage()\` count this process only), i.e. both ipset processes (\`ip netns exec\` execs ipset in the same process, so its namespace switch is counted too, while the bare save's figure is ipset's alone); those are whole 10 ms ticks, so each tick's figure is within 10 ms. The bare save's wall time includes the \`bash … times\` wrapper (a few ms) that the tick's children do not have.`,
  `W3: the manager is first committed (\`applyIPSets\` with a port that accepts everything instantly), then ${EVENTS} new pods are each added to 3 sets (rotating through all sets) and removed again; per change, \`planApply\` + \`renderRestore\` is timed (the bar) and, separately, the \`addToSets\`/\`removeFromSets\` call before it; each plan is then committed untimed. The first 20 pods are warm-up. "Independent of state size" is read as: the 100k and 1M medians at most twice the 10k median.`,
  'W4: `applyIPSets(manager, createLinuxPort({ netns }))` on a freshly built dirty manager (built untimed; the same text as W1) against a bare `ip netns exec NS ipset -exist restore` of that text; each side in its own fresh namespace.',
  'W5: `new FakeKernel().restore(text, { exist: true })` on the W1 text, interleaved with W1\'s real restores (the same real samples are the reference of W1 and W5).',
  'Memory: heap after two forced collections with the manager alive and the pod list dropped, minus the heap before the pods were made: everything the manager keeps, strings included.',
  ...cli.method,
  ...(k1 === undefined ? [] : [k1.method]),
];

if (LINES_CHILD !== undefined) {
  const child: LineChildResult = {
    node: process.version,
    samples: Object.fromEntries(samples),
    cpuSamples: Object.fromEntries(cpuSamples),
    bytesPerMember,
    distinctBytes,
    peakRssMb: cli.peakRssMb,
  };
  writeFileSync(LINES_CHILD, JSON.stringify(child));
  process.exit(0);
}

let nodeLines: string | undefined;
if (PER_LINE) {
  managers.clear();
  const lines = Object.entries(nodeVersions.lines).map(([line, version]) => ({ line, version, node: nodeBinary(version) }));
  log(`${LINE_WORKLOADS} on Node ${lines.map((l) => l.version).join(', ')}: ${REPS} child runs per line, lines rotating`);
  const results = await runNodeLines({ lines, reps: REPS, benchDir: join(root, 'packages', 'bench'), log });
  nodeLines = renderNodeLines(results, REPS, nodeVersions.toolchain);
  method.push(
    `Per Node line: for each supported line's exact release (\`scripts/node-versions.json\`), a child \`run.ts --only ${LINE_WORKLOADS} --reps 1\` on that Node measures W1 and W2 at 1M, W6 and both memory rows, each against its own real \`ipset\` runs; ${REPS} repetitions, the order of the lines rotating in each, medians shown. The main table above is the toolchain's Node (${process.version}).`,
  );
}

const report = {
  machine: machineInfo(real.version ?? `n/a (${real.reason ?? 'not installed'})`, loadAtStart),
  ...(nodeLines === undefined ? {} : { nodeLines }),
  rows,
  chart: 'docs/bench-chart.svg',
  method,
  samples,
  cpuSamples,
  wallMs: performance.now() - started,
};
let previous: string | undefined;
try {
  previous = readFileSync(benchmarksFile, 'utf8');
} catch {
  previous = undefined;
}
const markdown = renderBenchmarks(report, previous);
console.log(`\n${markdown.split('## Results')[1]!.split('## Method')[0]!.trim()}\n`);
if (DRY) {
  log('dry run (--dry, --only or --max below 1M): BENCHMARKS.md and the chart were not written');
} else {
  mkdirSync(dirname(chartFile), { recursive: true });
  writeFileSync(chartFile, chart);
  writeFileSync(benchmarksFile, markdown);
  log(`wrote ${relative(process.cwd(), benchmarksFile)} and ${relative(process.cwd(), chartFile)}`);
}
