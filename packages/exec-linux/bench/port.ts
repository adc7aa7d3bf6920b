/**
 * End-to-end apply through the Linux port versus a bare `ipset restore` of the same
 * text (the bar in BENCHMARKS.md: within 15%). Run as root:
 *
 *   node --expose-gc --import tsx bench/port.ts [--lines 1000000] [--runs 3]
 *
 * One fresh network namespace; before each run every set in it is flushed and
 * destroyed (untimed). Runs are interleaved (port, bare, port, bare, …) so drift in
 * the machine's speed hits both sides alike; the median of each side is reported.
 *
 * - port: `applyIPSets(manager, createLinuxPort({ netns }))` on a manager holding the
 *   plan's sets — plan, render, stream to `ip netns exec NS ipset -exist restore`, commit.
 * - restore: `port.restore(text)` alone (the port's own overhead: execa, stdin streaming).
 * - bare: `ip netns exec NS ipset -exist restore` with the same text on stdin from a file.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyIPSets, IPSetManager, planApply, renderRestore } from '@ipsets/core';
import type { SetMetadata } from '@ipsets/core';
import { createLinuxPort } from '../src/linux-port.js';
import { createTestNamespace, kernelTestSupport } from '../src/netns.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

const LINES = arg('lines', 1_000_000);
const RUNS = arg('runs', 3);
const PER_SET = 10_000;
const SETS = Math.max(1, Math.round(LINES / PER_SET));

function ip(n: number): string {
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function build(): IPSetManager {
  const manager = new IPSetManager();
  for (let s = 0; s < SETS; s += 1) {
    const meta: SetMetadata[] = [{ name: `bench-${s}`, type: 'namespace' }];
    for (let i = 0; i < PER_SET; i += 1) manager.addToSets(meta, ip(s * PER_SET + i), `pod-${s * PER_SET + i}`);
  }
  return manager;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function bareRestore(netns: string, file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const started = performance.now();
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('ip', ['netns', 'exec', netns, 'ipset', '-exist', 'restore'], { stdio: [handle.fd, 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (c) => resolve(c));
    });
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`bare ipset restore exited ${code}`);
    return ms;
  } finally {
    await handle.close();
  }
}

const support = await kernelTestSupport();
if (!support.available) {
  console.log(`bench/port.ts skipped: ${support.reason}`);
  process.exit(0);
}

const ns = await createTestNamespace('bench');
const dir = await mkdtemp(join(tmpdir(), 'ipsets-bench-'));
try {
  const file = join(dir, 'plan.restore');
  const text = renderRestore(planApply(build()));
  const lineCount = text.split('\n').length - 1;
  await writeFile(file, text);
  console.log(`plan: ${SETS} sets × ${PER_SET} members = ${lineCount} lines, ${(text.length / 1e6).toFixed(1)} MB; netns ${ns.name}`);

  const clean = async (): Promise<void> => {
    await ns.run(['ipset', 'flush']);
    await ns.run(['ipset', 'destroy']);
  };
  const port = createLinuxPort({ netns: ns.name });
  const portMs: number[] = [];
  const restoreMs: number[] = [];
  const bareMs: number[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    await clean();
    const manager = build();
    gc();
    const started = performance.now();
    const report = await applyIPSets(manager, port);
    const ms = performance.now() - started;
    if (!report.converged || report.linesTotal !== lineCount) throw new Error(`port apply did not converge: ${JSON.stringify(report.fatal ?? report.failedSets)}`);
    portMs.push(ms);

    await clean();
    gc();
    const restoreStarted = performance.now();
    const restored = await port.restore(text);
    restoreMs.push(performance.now() - restoreStarted);
    if (restored.exitCode !== 0) throw new Error(`port.restore failed: ${restored.stderr}`);

    await clean();
    gc();
    bareMs.push(await bareRestore(ns.name, file));
    console.log(
      `run ${run}: port apply ${ms.toFixed(0)} ms, port.restore ${restoreMs.at(-1)!.toFixed(0)} ms, bare restore ${bareMs.at(-1)!.toFixed(0)} ms`,
    );
  }
  const p = median(portMs);
  const r = median(restoreMs);
  const b = median(bareMs);
  const ratio = p / b;
  console.log(
    `median: port apply ${p.toFixed(0)} ms (${((lineCount / p) * 1000).toFixed(0)} lines/s), port.restore ${r.toFixed(0)} ms (${(r / b).toFixed(3)}× bare), bare restore ${b.toFixed(0)} ms`,
  );
  console.log(`ratio port/bare = ${ratio.toFixed(3)} (${ratio <= 1.15 ? 'within' : 'OVER'} the 1.15 bar of BENCHMARKS.md)`);
} finally {
  await rm(dir, { recursive: true, force: true });
  await ns.dispose();
}
