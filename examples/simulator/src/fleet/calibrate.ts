/**
 * `ipsets-simulate --calibrate`: measures the cost model on this machine and prints it
 * as a `CostModel` literal for `cost-model.ts`, with the raw samples.
 *
 * - Kernel rows (real `ipset` 7.x, as root, in network namespaces this command creates
 *   and deletes; never the host's): `ipset restore` of the simulated cluster's whole
 *   state at two sizes, `ipset save` of it, and an `ipset save` of an empty namespace
 *   (the cost of one run). CPU from the shell's `times` (the ipset child's user + system).
 * - Agent rows (this process's `process.cpuUsage()`): reading and hashing a file, the
 *   `ipsets` loader on the one-file JSON, gunzip of a part, a process start (`ipsets
 *   agent --once --kernel fake` of a one-set file); core's `reconcileIPSets` alone on
 *   the kernel's real save text is printed for comparison.
 * - The agent end to end: the built `ipsets agent --kernel linux --netns NS --interval
 *   2s` on the one-file JSON at both sizes. Its CPU per converged tick with its ipset
 *   children (`/proc/PID/stat`) gives the reconcile's fixed and per-member cost (the
 *   save's measured share taken out); VmRSS sampled every 100 ms gives the memory rows
 *   (steady = the lowest sample after the first apply, the tick sawtooth = the highest,
 *   the start's peak = VmHWM).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { reconcileIPSets } from '@ipsets/core';
import type { CommandResult, DesiredState, IpsetPort } from '@ipsets/core';
import { desiredStateOf, parseDesiredText } from '@ipsets/cli';
import { createNamespace, expectOk, probeRealKernel, splitTimes } from '@ipsets/bench/kernel';
import { mulberry32 } from '../prng.js';
import { ClusterState } from './cluster-state.js';
import { DEFAULT_COST_MODEL, reconcileCpuUs } from './cost-model.js';
import type { CostModel } from './cost-model.js';
import { savedMemberCount } from './plan-cache.js';

const SIZES = [4_000, 40_000] as const;
const REPEAT = 3;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function cpuMsOf(fn: () => void, times = 5): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const before = process.cpuUsage();
    fn();
    const d = process.cpuUsage(before);
    samples.push((d.user + d.system) / 1000);
  }
  return median(samples);
}

async function cpuMsOfAsync(fn: () => Promise<unknown>, times = 5): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const before = process.cpuUsage();
    await fn();
    const d = process.cpuUsage(before);
    samples.push((d.user + d.system) / 1000);
  }
  return median(samples);
}

function ok(stdout: string): CommandResult {
  return { exitCode: 0, stdout, stderr: '' };
}

/** The restore text of `desired` onto an empty kernel, as the agent renders it. */
async function restoreTextOf(desired: DesiredState): Promise<string> {
  const texts: string[] = [];
  const port: IpsetPort = {
    save: async () => ok(''),
    listHeaders: async () => ok(''),
    listNames: async () => ok(''),
    restore: async (text) => {
      texts.push(text);
      return ok('');
    },
  };
  await reconcileIPSets(desired, port);
  return texts.join('');
}

function stateOf(pods: number): { text: string; desired: DesiredState; members: number; gzip: Buffer; part: string } {
  const state = new ClusterState({ namespaces: 42, pods, policies: 30, parts: 8 }, mulberry32(pods));
  const v = state.snapshot();
  const part = v.parts.reduce((a, b) => (b.bytes > a.bytes ? b : a)).text;
  return { text: v.whole.text, desired: v.desired, members: v.members, gzip: gzipSync(part, { level: 6 }), part };
}

const slope = (x0: number, y0: number, x1: number, y1: number): number => (y1 - y0) / (x1 - x0);
/** Four significant digits: what the measurement can tell. */
const r3 = (v: number): number => Number(v.toPrecision(4));

interface AgentRun {
  steadyBytes: number;
  /** The highest RSS sampled between ticks' ends (the save's sawtooth). */
  tickPeakBytes: number;
  peakBytes: number;
  tickCpuMs: number;
  ticks: number;
}

/** CPU (the process and its waited-for children, ms), VmRSS and VmHWM (bytes) of `pid`, or undefined once it is gone. */
export function procStat(pid: number): { cpuMs: number; rss: number; hwm: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime stime cutime cstime are fields 14-17 (1-based) of the whole line: 11-14 after the name.
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 'NaN') * 1024;
    return { cpuMs: (ticks * 1000) / 100, rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** The built agent on `file` in a fresh namespace for `seconds`, sampled (see the module comment). */
async function runAgent(bin: string, file: string, dir: string, seconds: number): Promise<AgentRun> {
  const ns = createNamespace('ipsets-calibrate');
  try {
    const child = spawn(process.execPath, [bin, 'agent', file, '--kernel', 'linux', '--netns', ns.name, '--interval', '2s', '--no-metrics', '--lock-file', join(dir, `${ns.name}.lock`), '--log-format', 'json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    let exit = '';
    const closed = new Promise((ok) => child.once('close', (code, signal) => ok((exit = `exit ${code}, signal ${signal}`))));
    const samples: { at: number; cpuMs: number; rss: number; hwm: number; applies: number }[] = [];
    const started = Date.now();
    while (Date.now() - started < seconds * 1000) {
      await new Promise((ok) => setTimeout(ok, 100));
      const s = procStat(child.pid!);
      if (s === undefined) break;
      samples.push({ at: Date.now() - started, ...s, applies: (log.match(/apply converged/g) ?? []).length });
    }
    child.kill('SIGTERM');
    await closed;
    const afterFirst = samples.filter((s) => s.applies >= 2);
    if (afterFirst.length < 2) throw new Error(`the agent did not reach its second apply in ${seconds} s (${exit}); its output:\n${log.slice(-2000)}`);
    const first = afterFirst[0]!;
    const last = afterFirst[afterFirst.length - 1]!;
    return {
      steadyBytes: Math.min(...afterFirst.map((s) => s.rss)),
      tickPeakBytes: Math.max(...afterFirst.map((s) => s.rss)),
      peakBytes: last.hwm,
      tickCpuMs: (last.cpuMs - first.cpuMs) / Math.max(1, last.applies - first.applies),
      ticks: last.applies - first.applies,
    };
  } finally {
    ns.dispose();
  }
}

/** Measures and prints (see the module comment); resolves with the exit code. */
export async function calibrate(): Promise<number> {
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  out(`# calibration, ${new Date().toISOString()}, load average at start ${load()}`);
  const states = SIZES.map(stateOf);
  for (const [i, s] of states.entries()) out(`state ${i}: ${SIZES[i]} pods, ${s.members} members, one file ${s.text.length} bytes`);

  // --- agent rows (this process) ---
  const dir = mkdtempSync(join(tmpdir(), 'ipsets-calibrate-'));
  try {
    const file = join(dir, 'desired.json');
    writeFileSync(file, states[1]!.text);
    const readMs = cpuMsOf(() => createHash('sha256').update(readFileSync(file)).digest('base64'), 9);
    const readUsPerByte = (readMs * 1000) / states[1]!.text.length;
    const parse = states.map((s) => cpuMsOf(() => desiredStateOf(parseDesiredText(s.text, { source: 'calibration' })), 5));
    const parseUsPerByte = (slope(states[0]!.text.length, parse[0]!, states[1]!.text.length, parse[1]!) * 1000);
    const gunzipMs = cpuMsOf(() => gunzipSync(states[1]!.gzip), 9);
    const gunzipUsPerByte = (gunzipMs * 1000) / states[1]!.part.length;
    out(`agent: read+sha256 ${readMs.toFixed(2)} ms for ${states[1]!.text.length} B; loader ${parse.map((p) => p.toFixed(1)).join(' / ')} ms; gunzip ${gunzipMs.toFixed(2)} ms for ${states[1]!.part.length} B`);

    // The built command's start: a one-set file, applied once on the fake kernel.
    const bin = join(dirname(fileURLToPath(import.meta.resolve('@ipsets/cli'))), 'bin.js');
    const tiny = join(dir, 'tiny.json');
    writeFileSync(tiny, JSON.stringify({ owner: 'fleet-', sets: [{ type: 'namespace', name: 'a', members: ['10.0.0.1'] }] }));
    const startSamples: number[] = [];
    const baseRss: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      const run = spawnSync('/usr/bin/time', ['-f', '%U %S %M', process.execPath, bin, 'agent', tiny, '--once', '--kernel', 'fake', '--state', join(dir, 'state.json'), '--log-level', 'error'], { encoding: 'utf8' });
      const [u, s, m] = run.stderr.trim().split('\n').pop()!.split(' ').map(Number);
      startSamples.push((u! + s!) * 1000);
      baseRss.push(m! * 1024);
    }
    const processStartMs = median(startSamples);
    out(`agent: process start + one tiny apply ${startSamples.map((x) => x.toFixed(0)).join(' / ')} ms CPU, peak RSS ${baseRss.map((x) => (x / 2 ** 20).toFixed(0)).join(' / ')} MiB`);

    // --- kernel rows ---
    const real = await probeRealKernel();
    let kernel = DEFAULT_COST_MODEL.kernel;
    let planUsPerMember = DEFAULT_COST_MODEL.agent.planUsPerMember;
    let reconcileFixedUs = DEFAULT_COST_MODEL.agent.reconcileFixedUs;
    let memory = DEFAULT_COST_MODEL.memory;
    let kernelNote = `no real kernel (${real.reason ?? 'unavailable'}): kernel, plan and memory rows kept from the current model`;
    if (real.available) {
      const restore: number[][] = states.map(() => []);
      const save: number[][] = states.map(() => []);
      const saves: string[] = [];
      const empty: number[] = [];
      const texts = await Promise.all(states.map((s) => restoreTextOf(s.desired)));
      for (let r = 0; r < REPEAT; r++) {
        for (const [i, text] of texts.entries()) {
          const ns = createNamespace('ipsets-calibrate');
          try {
            restore[i]!.push(expectOk(await ns.ipset(['-exist', 'restore'], { input: text }), 'ipset restore').cpuMs);
            const saved = expectOk(await ns.ipset(['save'], { keepStdout: true }), 'ipset save');
            save[i]!.push(saved.cpuMs);
            saves[i] = saved.stdout;
          } finally {
            ns.dispose();
          }
        }
        const ns = createNamespace('ipsets-calibrate');
        try {
          empty.push(expectOk(await ns.ipset(['save']), 'ipset save (empty)').cpuMs);
        } finally {
          ns.dispose();
        }
      }
      const lines = texts.map((t) => t.split('\n').filter((l) => l !== '').length);
      const members = saves.map(savedMemberCount);
      // Small restores as the agent runs them (`ip netns exec NS ipset -exist restore`), 50 in
      // one shell whose `times` gives both processes' CPU (one run is below its 10 ms tick).
      const small: number[] = [];
      const ns = createNamespace('ipsets-calibrate');
      try {
        expectOk(await ns.ipset(['-exist', 'restore'], { input: 'create fleet-calibrate hash:net\n' }), 'ipset restore (create)');
        const loop = `for i in $(seq 50); do echo "add fleet-calibrate 10.1.0.$i" | ip netns exec ${ns.name} ipset -exist restore || exit 1; done; times >&2`;
        for (let r = 0; r < REPEAT; r++) {
          const run = spawnSync('bash', ['-c', loop], { encoding: 'utf8' });
          const { cpuMs } = splitTimes(run.stderr);
          if (run.status !== 0 || Number.isNaN(cpuMs)) throw new Error(`small restores failed: ${run.stderr.slice(0, 300)}`);
          small.push(cpuMs / 50);
        }
      } finally {
        ns.dispose();
      }
      const ipsetRunUs = median(small) * 1000;
      out(`kernel: a one-line restore through ip netns exec ${small.map((x) => x.toFixed(2)).join('/')} ms CPU (ip and ipset)`);
      kernel = {
        ipsetRunUs: Math.round(ipsetRunUs),
        saveUsPerMember: r3(slope(members[0]!, median(save[0]!), members[1]!, median(save[1]!)) * 1000),
        restoreUsPerLine: r3(slope(lines[0]!, median(restore[0]!), lines[1]!, median(restore[1]!)) * 1000),
      };
      out(`kernel: restore ${restore.map((s, i) => `${lines[i]} lines ${s.map((x) => x.toFixed(0)).join('/')} ms`).join('; ')}`);
      out(`kernel: save ${save.map((s, i) => `${members[i]} members ${s.map((x) => x.toFixed(0)).join('/')} ms`).join('; ')}; empty save ${empty.map((x) => x.toFixed(1)).join('/')} ms`);

      // The library's share of a converged node's reconcile, on the kernel's own save text.
      // One size after the other (their CPU windows must not overlap), after a warm-up.
      const plan: number[] = [];
      for (const [i, s] of states.entries()) {
        const port: IpsetPort = { save: async () => ok(saves[i]!), listHeaders: async () => ok(''), listNames: async () => ok(''), restore: async () => ok('') };
        const report = await reconcileIPSets(s.desired, port);
        if (!report.converged || report.linesTotal !== 0) throw new Error(`the reconcile of a converged ${members[i]}-member node planned ${report.linesTotal} lines`);
        plan.push(await cpuMsOfAsync(() => reconcileIPSets(s.desired, port), 5));
      }

      // The built agent end to end: memory, and CPU per tick against what the model charges.
      const agentRuns: AgentRun[] = [];
      for (const [i, s] of states.entries()) {
        const f = join(dir, `agent-${i}.json`);
        writeFileSync(f, s.text);
        agentRuns.push(await runAgent(bin, f, dir, 24));
      }
      const perMember = slope(members[0]!, agentRuns[0]!.steadyBytes, members[1]!, agentRuns[1]!.steadyBytes);
      const base = agentRuns[0]!.steadyBytes - perMember * members[0]!;
      // The peak above the steady state at start: the whole file parsed and the first restore rendered.
      const parseFactor = (agentRuns[1]!.peakBytes - agentRuns[1]!.steadyBytes) / states[1]!.text.length;
      memory = {
        baseBytes: Math.round(base),
        bytesPerMember: Math.round(perMember),
        parseBytesPerTextByte: r3(parseFactor),
        saveBytesPerMember: Math.round((agentRuns[1]!.tickPeakBytes - agentRuns[1]!.steadyBytes) / members[1]!),
      };
      // A converged tick of the real agent, end to end (the file check, ipset save and list -t,
      // the reconcile, its children): fixed + per member, the save's own share taken out.
      const tickPerMemberUs = slope(members[0]!, agentRuns[0]!.tickCpuMs, members[1]!, agentRuns[1]!.tickCpuMs) * 1000;
      const tickFixedUs = agentRuns[0]!.tickCpuMs * 1000 - tickPerMemberUs * members[0]!;
      planUsPerMember = r3(Math.max(0, tickPerMemberUs - kernel.saveUsPerMember - (states[1]!.text.length / members[1]!) * readUsPerByte));
      reconcileFixedUs = Math.max(0, Math.round(tickFixedUs - 2 * kernel.ipsetRunUs));
      out(`agent: reconcileIPSets alone (the library's share) ${plan.map((p, i) => `${members[i]} members ${p.toFixed(1)} ms`).join('; ')}`);
      for (const [i, run] of agentRuns.entries()) {
        out(`agent process, ${members[i]} members: steady RSS ${(run.steadyBytes / 2 ** 20).toFixed(1)} MiB, peak ${(run.peakBytes / 2 ** 20).toFixed(1)} MiB, ${run.tickCpuMs.toFixed(1)} ms CPU per tick (${run.ticks} ticks, ipset children included)`);
      }
      kernelNote = `${real.version ?? 'ipset'}; kernel rows real`;
    }
    const model: CostModel = {
      kernel,
      agent: {
        reconcileFixedUs,
        planUsPerMember,
        readUsPerByte: r3(readUsPerByte),
        parseUsPerByte: r3(parseUsPerByte),
        gunzipUsPerByte: r3(gunzipUsPerByte),
        processStartUs: Math.round(processStartMs * 1000),
      },
      memory,
      measured: `npm run simulate -- --calibrate, ${new Date().toISOString().slice(0, 10)}, load ${load()} at the end; ${kernelNote}`,
    };
    const predicted = states.map((s, i) => (reconcileCpuUs(model, s.members, 0, 0) + s.text.length * model.agent.readUsPerByte) / 1000);
    out(`model: one converged tick ${predicted.map((p, i) => `${states[i]!.members} members ${p.toFixed(1)} ms`).join('; ')}`);
    out('');
    out(JSON.stringify(model, null, 2));
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
