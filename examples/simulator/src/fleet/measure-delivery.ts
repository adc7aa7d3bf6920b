/**
 * `ipsets-simulate --measure-delivery`: the three delivery modes measured end to end
 * with the built `ipsets` on the real kernel (root and `ipset` needed; network
 * namespaces this command creates and deletes, never the host's), on the simulated
 * cluster's state at two sizes (8 parts):
 *
 * - `ipsets apply TARGET --netns NS` of the state into an empty namespace: wall time,
 *   CPU (the command and its ipset children) and peak RSS, from `/usr/bin/time`;
 * - `ipsets agent TARGET --netns NS` converged on it, then the policy change published
 *   the way a producer does (each changed file written to a dot-file and renamed over
 *   the old one; one file: the whole file): time from the rename to the agent's
 *   `apply converged`, the agent's CPU for it (with its ipset children, `/proc/PID/stat`),
 *   its peak RSS, and the parts it logged as re-read.
 *
 * TARGET is `desired.json` (one file), or the folder of `part-N.json` (parts) or
 * `part-N.json.gz` (gzip parts). Wall times depend on the machine's load: the command
 * prints the load average with the table.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createNamespace, probeRealKernel } from '@ipsets/bench/kernel';
import { mulberry32 } from '../prng.js';
import { procStat } from './calibrate.js';
import { ClusterState } from './cluster-state.js';
import type { StateVersion } from './cluster-state.js';
import { DELIVERY_MODE_NAMES } from './cost-model.js';
import type { DeliveryModeName } from './cost-model.js';

const SIZES = [4_000, 40_000] as const;

/** Writes `v` in `mode`'s layout under `dir`; only the files whose content differs from `before` (all without it). */
function publish(dir: string, mode: DeliveryModeName, v: StateVersion, before?: StateVersion): void {
  const put = (folder: string, name: string, content: string | Buffer): void => {
    writeFileSync(join(folder, `.${name}.tmp`), content);
    renameSync(join(folder, `.${name}.tmp`), join(folder, name));
  };
  if (mode === 'one-file') {
    put(dir, 'desired.json', v.whole.text);
    return;
  }
  const folder = join(dir, 'parts');
  mkdirSync(folder, { recursive: true });
  v.parts.forEach((p, i) => {
    if (before !== undefined && before.parts[i]!.changedIn === p.changedIn) return;
    put(folder, `part-${i}.json${mode === 'gzip-parts' ? '.gz' : ''}`, mode === 'gzip-parts' ? gzipSync(p.text, { level: 6 }) : p.text);
  });
}

interface ModeResult {
  applyWallMs: number;
  applyCpuMs: number;
  applyPeakMiB: number;
  changeMs: number;
  changeCpuMs: number;
  agentPeakMiB: number;
  reread: number;
  bytesChanged: number;
}

async function measureMode(bin: string, mode: DeliveryModeName, v0: StateVersion, v1: StateVersion): Promise<ModeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'ipsets-delivery-'));
  try {
    publish(dir, mode, v0);
    const target = mode === 'one-file' ? 'desired.json' : 'parts';
    const lock = (name: string): string[] => ['--lock-file', join(dir, `${name}.lock`)];
    const applyNs = createNamespace('ipsets-delivery');
    let apply: { wallMs: number; cpuMs: number; peakMiB: number };
    try {
      const run = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, bin, 'apply', target, '--netns', applyNs.name, ...lock(applyNs.name)], { cwd: dir, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`ipsets apply ${target} failed: ${run.stdout}${run.stderr}`);
      const [e, u, s, m] = run.stderr.trim().split('\n').pop()!.split(' ').map(Number);
      apply = { wallMs: e! * 1000, cpuMs: (u! + s!) * 1000, peakMiB: m! / 1024 };
    } finally {
      applyNs.dispose();
    }

    const ns = createNamespace('ipsets-delivery');
    try {
      const child = spawn(process.execPath, [bin, 'agent', target, '--netns', ns.name, '--interval', '60s', '--debounce', '200ms', '--no-metrics', '--log-format', 'json', ...lock(ns.name)], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let log = '';
      child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
      const closed = new Promise((ok) => child.once('close', ok));
      const lines = (): Record<string, unknown>[] => log.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const until = async (test: (l: Record<string, unknown>) => boolean, from: number): Promise<void> => {
        for (let i = 0; i < 1200; i++) {
          if (lines().slice(from).some(test)) return;
          await new Promise((ok) => setTimeout(ok, 25));
        }
        throw new Error(`the agent (${mode}) did not log what was awaited; its output:\n${log.slice(-2000)}`);
      };
      try {
        await until((l) => l['msg'] === 'apply converged' && l['trigger'] === 'start', 0);
        // Let the start settle (the watcher's first check) before the change.
        await new Promise((ok) => setTimeout(ok, 500));
        const before = procStat(child.pid!)!;
        const mark = lines().length;
        const started = performance.now();
        publish(dir, mode, v1, v0);
        await until((l) => l['msg'] === 'apply converged' && l['trigger'] === 'file changed', mark);
        const changeMs = performance.now() - started;
        const after = procStat(child.pid!)!;
        return {
          applyWallMs: apply.wallMs,
          applyCpuMs: apply.cpuMs,
          applyPeakMiB: apply.peakMiB,
          changeMs,
          changeCpuMs: after.cpuMs - before.cpuMs,
          agentPeakMiB: after.hwm / 2 ** 20,
          reread: lines().slice(mark).filter((l) => l['msg'] === 'desired part changed; re-read it').length,
          bytesChanged: mode === 'one-file' ? v1.whole.bytes : v1.changedParts.reduce((n, i) => n + (mode === 'gzip-parts' ? v1.parts[i]!.gzipBytes : v1.parts[i]!.bytes), 0),
        };
      } finally {
        child.kill('SIGTERM');
        await closed;
      }
    } finally {
      ns.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measures and prints (see the module comment); resolves with the exit code. */
export async function measureDelivery(): Promise<number> {
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  const real = await probeRealKernel();
  if (!real.available) {
    process.stderr.write(`ipsets-simulate: --measure-delivery needs the real kernel: ${real.reason ?? 'unavailable'}\n`);
    return 2;
  }
  const bin = join(dirname(fileURLToPath(import.meta.resolve('@ipsets/cli'))), 'bin.js');
  const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  out(`# delivery modes on the real kernel (ipset ${real.version ?? '?'}), ${new Date().toISOString()}, load average at start ${load()}`);
  out('');
  out('| state | mode | apply: wall | apply: CPU | apply: peak RSS | policy change: bytes changed | parts re-read | rename → converged | agent CPU for it | agent peak RSS |');
  out('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const pods of SIZES) {
    const state = new ClusterState({ namespaces: 42, pods, policies: 30, parts: 8 }, mulberry32(pods));
    const v0 = state.snapshot();
    state.policyChange();
    const v1 = state.snapshot();
    for (const mode of DELIVERY_MODE_NAMES) {
      const r = await measureMode(bin, mode, v0, v1);
      const kib = (b: number): string => `${(b / 1024).toFixed(0)} KiB`;
      out(
        `| ${v0.members.toLocaleString('en-US')} members | ${mode} | ${r.applyWallMs.toFixed(0)} ms | ${r.applyCpuMs.toFixed(0)} ms | ${r.applyPeakMiB.toFixed(0)} MiB | ${kib(r.bytesChanged)} | ${mode === 'one-file' ? '–' : `${r.reread} of ${v1.parts.length}`} | ${r.changeMs.toFixed(0)} ms | ${r.changeCpuMs.toFixed(0)} ms | ${r.agentPeakMiB.toFixed(0)} MiB |`,
      );
    }
  }
  out('');
  out(`load average at the end ${load()}`);
  return 0;
}
