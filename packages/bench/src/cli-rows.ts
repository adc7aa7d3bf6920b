/**
 * W6–W8: the path users run, the built `ipsets` command on a desired file of
 * 1,000,000 members (100 sets × 10,000), against the real kernel in namespaces this
 * process creates and deletes (never the default namespace).
 *
 * - W6 `ipsets apply FILE.json --kernel linux --netns NS` end to end vs a bare
 *   `ipset restore` of the same sets (their `ipset save` text) in another fresh namespace.
 * - W7 loading the YAML form of the file vs loading the JSON form (`loadDesiredFile`).
 * - W8 the agent's steady RSS at 1,000,000 members: `ipsets agent` on the JSON file,
 *   sampled after the first apply and after a few interval ticks.
 *
 * The command is the built one (`packages/cli/dist`): it is what users run, and a
 * build older than the sources is refused rather than measured.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BARS } from './bars.js';
import { createNamespace, expectOk, splitTimes } from './kernel.js';
import type { ResultRow } from './report.js';
import { formatCount, formatMs } from './stats.js';

/** Sets and members per set of the W6–W8 file (the issue's 100 × 10,000). */
export const CLI_SETS = 100;
export const CLI_PER_SET = 10_000;

/** The comparison `run.ts` turns into a row (its own `compare`). */
export interface CliComparison {
  workload: string;
  ours: string;
  reference: string;
  bar: string;
  limit: number | undefined;
  missing?: string;
}

/** What `run.ts` lends these rows: its sample store and row maker. */
export interface CliBenchContext {
  readonly root: string;
  readonly reps: number;
  /** Whether the real kernel can be used, and why not. */
  readonly real: { available: boolean; reason?: string };
  readonly record: (label: string, ms: number, cpuMs?: number) => void;
  readonly med: (label: string) => number;
  readonly compare: (c: CliComparison) => ResultRow;
  readonly log: (line: string) => void;
  readonly wants: (workload: string) => boolean;
}

/** The rows and the method lines of W6–W8, and W6's peak RSS. */
export interface CliRows {
  rows: ResultRow[];
  method: string[];
  /** The largest peak RSS of W6's `ipsets apply` runs (NaN when W6 did not run). */
  peakRssMb: number;
}

/** The desired file of W6–W8 as JSON (compact, as a generator would write it) and as block-style YAML. */
export function cliDesiredFiles(sets = CLI_SETS, perSet = CLI_PER_SET): { json: string; yaml: string } {
  const jsonSets: string[] = [];
  const yaml: string[] = ['sets:'];
  for (let s = 0; s < sets; s++) {
    const members: string[] = [];
    for (let m = 0; m < perSet; m++) {
      const n = s * perSet + m;
      members.push(`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`);
    }
    jsonSets.push(`{"type":"namespace","name":"bench-${s}","members":[${members.map((m) => `"${m}"`).join(',')}]}`);
    yaml.push(`  - type: namespace`, `    name: bench-${s}`, `    members:`, ...members.map((m) => `      - ${m}`));
  }
  return { json: `{"sets":[${jsonSets.join(',')}]}\n`, yaml: `${yaml.join('\n')}\n` };
}

/** Reports the peak RSS of the measured node process on stderr when it exits (however it exits). */
const PEAK_RSS_PRELOAD =
  'data:text/javascript,import{writeSync}from"node:fs";process.on("exit",()=>{writeSync(2,"\\nipsets-bench-maxrss-kb "+process.resourceUsage().maxRSS+"\\n")})';
const PEAK_RSS = /\nipsets-bench-maxrss-kb (\d+)\n/;

/** One run of a node child: wall time, CPU of it and its children (a shell's `times`), its peak RSS. */
interface NodeRun {
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

function runNode(args: readonly string[]): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('bash', ['-c', '"$@"; status=$?; times >&2; exit $status', 'node', process.execPath, '--import', PEAK_RSS_PRELOAD, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => {
      const ms = performance.now() - started;
      const { stderr, cpuMs } = splitTimes(Buffer.concat(err).toString('utf8'));
      const rss = PEAK_RSS.exec(stderr);
      resolve({
        ms,
        cpuMs,
        peakRssMb: rss === null ? Number.NaN : Number(rss[1]) / 1024,
        exitCode,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: rss === null ? stderr : stderr.replace(PEAK_RSS, '\n'),
      });
    });
  });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Why the built command cannot be measured (missing, or older than a source it is built from), or undefined. */
function staleBuild(root: string): string | undefined {
  for (const pkg of ['cli', 'core', 'exec-linux']) {
    const dist = join(root, 'packages', pkg, 'dist');
    let built: number;
    try {
      built = newestMtime(dist);
    } catch {
      return `packages/${pkg} is not built (pnpm build)`;
    }
    if (newestMtime(join(root, 'packages', pkg, 'src')) > built) return `packages/${pkg}/dist is older than its sources (pnpm build)`;
  }
  return undefined;
}

const w6Ours = 'W6 ipsets apply (JSON)';
const w6Ref = 'W6 bare ipset restore';
const w7Json = 'W7 load JSON';
const w7Yaml = 'W7 load YAML';

/**
 * Loads a desired file with the CLI's `loadDesiredFile` (from its sources, through tsx:
 * the built library entry does not export it), in a fresh process whose heap is the
 * load's alone.
 */
const LOAD_SCRIPT =
  'const [lib,file]=process.argv.slice(-2);const m=await import(lib);const c=process.cpuUsage();const t=performance.now();' +
  'const f=await m.loadDesiredFile(file);const ms=performance.now()-t;const u=process.cpuUsage(c);' +
  'console.log(JSON.stringify({ms,cpuMs:(u.user+u.system)/1000,sets:f.sets.length}))';

/** One W7 measurement: the load's own time and CPU, the sets it read, the process's peak RSS. */
export interface LoadRun {
  ms: number;
  cpuMs: number;
  sets: number;
  peakRssMb: number;
}

/** Loads `file` as W7 does (see {@link LOAD_SCRIPT}). @throws Error when the load fails. */
export async function loadInFreshProcess(root: string, file: string): Promise<LoadRun> {
  const lib = pathToFileURL(join(root, 'packages', 'cli', 'src', 'desired', 'file.ts')).href;
  const run = await runNode(['--import', 'tsx', '--input-type=module', '-e', LOAD_SCRIPT, lib, file]);
  if (run.exitCode !== 0) throw new Error(`loading ${file} exited ${String(run.exitCode)}: ${run.stderr.trim().slice(0, 300)}`);
  return { ...(JSON.parse(run.stdout) as { ms: number; cpuMs: number; sets: number }), peakRssMb: run.peakRssMb };
}

/** Measures W6–W8 (those `wants` selects) and returns their rows. */
export async function runCliRows(ctx: CliBenchContext): Promise<CliRows> {
  const rows: ResultRow[] = [];
  const method: string[] = [];
  const members = CLI_SETS * CLI_PER_SET;
  const stale = staleBuild(ctx.root);
  const bin = join(ctx.root, 'packages', 'cli', 'dist', 'bin.js');
  const missing = stale === undefined ? undefined : `n/a (${stale})`;
  if (stale !== undefined) ctx.log(`W6–W8 skipped: ${stale}`);
  const dir = mkdtempSync(join(tmpdir(), 'ipsets-bench-cli-'));
  let peakRss = Number.NaN;
  let yamlPeakRss = Number.NaN;
  let steady: AgentRss = { rss: [], peak: Number.NaN };
  let fast: AgentRss = { rss: [], peak: Number.NaN };
  let defaults: AgentRss = { rss: [], peak: Number.NaN };
  try {
    const files = cliDesiredFiles();
    const jsonFile = join(dir, 'desired.json');
    const yamlFile = join(dir, 'desired.yaml');
    writeFileSync(jsonFile, files.json);
    writeFileSync(yamlFile, files.yaml);
    const lock = join(dir, 'kernel.lock');
    const sizes = `${(files.json.length / 1e6).toFixed(1)} MB JSON, ${(files.yaml.length / 1e6).toFixed(1)} MB YAML`;

    if (stale === undefined && ctx.wants('W6') && ctx.real.available) {
      let saveText = '';
      for (let rep = 0; rep < ctx.reps; rep++) {
        const ours = async (): Promise<void> => {
          const ns = createNamespace();
          try {
            const run = await runNode([bin, 'apply', jsonFile, '--kernel', 'linux', '--netns', ns.name, '--lock-file', lock, '--log-level', 'warn']);
            if (run.exitCode !== 0) throw new Error(`ipsets apply exited ${String(run.exitCode)}: ${run.stderr.trim().slice(0, 300)}`);
            ctx.record(w6Ours, run.ms, run.cpuMs);
            peakRss = Number.isNaN(peakRss) ? run.peakRssMb : Math.max(peakRss, run.peakRssMb);
            if (saveText === '') saveText = expectOk(await ns.ipset(['save'], { keepStdout: true }), 'ipset save').stdout;
          } finally {
            ns.dispose();
          }
        };
        const reference = async (): Promise<void> => {
          if (saveText === '') return;
          const ns = createNamespace();
          try {
            const run = expectOk(await ns.ipset(['restore'], { input: saveText }), 'ipset restore of the W6 sets');
            ctx.record(w6Ref, run.ms, run.cpuMs);
          } finally {
            ns.dispose();
          }
        };
        // The reference needs the sets' text, which the first apply makes: ours first in the first repetition.
        for (const step of rep % 2 === 0 ? [ours, reference] : [reference, ours]) await step();
      }
      ctx.log(`W6 (${sizes}): ipsets apply ${formatMs(ctx.med(w6Ours))}, bare restore ${formatMs(ctx.med(w6Ref))}, peak RSS ${peakRss.toFixed(0)} MB`);
    }

    if (stale === undefined && ctx.wants('W7')) {
      for (let rep = 0; rep < ctx.reps; rep++) {
        for (const [label, file] of rep % 2 === 0 ? [[w7Json, jsonFile], [w7Yaml, yamlFile]] : [[w7Yaml, yamlFile], [w7Json, jsonFile]]) {
          const run = await loadInFreshProcess(ctx.root, file!);
          if (run.sets !== CLI_SETS) throw new Error(`loading ${file!} gave ${run.sets} sets`);
          ctx.record(label!, run.ms, run.cpuMs);
          if (label === w7Yaml) yamlPeakRss = Number.isNaN(yamlPeakRss) ? run.peakRssMb : Math.max(yamlPeakRss, run.peakRssMb);
        }
      }
      ctx.log(`W7: load YAML ${formatMs(ctx.med(w7Yaml))} (peak RSS ${yamlPeakRss.toFixed(0)} MB), JSON ${formatMs(ctx.med(w7Json))}`);
    }

    if (stale === undefined && ctx.wants('W8') && ctx.real.available) {
      const shipped = imageNodeOptions(ctx.root);
      steady = await agentRss(bin, jsonFile, lock, ctx.log, W8_STEADY, shipped);
      fast = await agentRss(bin, jsonFile, lock, ctx.log, W8_FAST, shipped);
      defaults = await agentRss(bin, jsonFile, lock, ctx.log, W8_STEADY, undefined);
      const mbs = (r: AgentRss): string => r.rss.map((mb) => mb.toFixed(0)).join(', ');
      ctx.log(
        `W8 (NODE_OPTIONS=${shipped}): agent RSS after each apply at --interval ${W8_STEADY.interval}: ${mbs(steady)} MB; at --interval ${W8_FAST.interval}: ${mbs(fast)} MB, peak ${fast.peak.toFixed(0)} MB; ` +
          `with Node's defaults at --interval ${W8_STEADY.interval}: ${mbs(defaults)} MB`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const kernelMissing = ctx.real.available ? missing : `n/a (${ctx.real.reason ?? 'no kernel'})`;
  if (ctx.wants('W6')) {
    const row = ctx.compare({
      workload: `W6 \`ipsets apply FILE.json --kernel linux --netns NS\` of ${formatCount(members)} members (${formatCount(CLI_SETS)} sets × ${formatCount(CLI_PER_SET)}), the built command end to end, vs bare \`ipset restore\` of the same sets; peak RSS ${Number.isFinite(peakRss) ? `${peakRss.toFixed(0)} MB` : 'n/a'}`,
      ours: w6Ours,
      reference: w6Ref,
      bar: `≤ ${BARS.w6} × the bare restore, wall and CPU, and peak RSS ≤ ${BARS.w6PeakRssMb} MB`,
      limit: BARS.w6,
      ...(kernelMissing === undefined ? {} : { missing: kernelMissing }),
    });
    rows.push(row.met === 'yes' && !(peakRss <= BARS.w6PeakRssMb) ? { ...row, met: 'no' } : row);
  }
  if (ctx.wants('W7')) {
    rows.push(
      ctx.compare({
        workload: `W7 loading the YAML form of the W6 file (\`loadDesiredFile\`: read, parse, validate; peak RSS ${Number.isFinite(yamlPeakRss) ? `${yamlPeakRss.toFixed(0)} MB` : 'n/a'}) vs loading its JSON form`,
        ours: w7Yaml,
        reference: w7Json,
        bar: `YAML ≤ ${BARS.w7} × JSON`,
        limit: BARS.w7,
        ...(missing === undefined ? {} : { missing }),
      }),
    );
  }
  if (ctx.wants('W8')) {
    // Steady: the ticks after the first apply (which also read and load the file).
    const worstOf = (r: AgentRss): number => (r.rss.length < 2 ? Number.NaN : Math.max(...r.rss.slice(1)));
    const worst = worstOf(steady);
    const measured = Number.isFinite(worst) && Number.isFinite(fast.peak);
    rows.push({
      workload: `W8 agent RSS at ${formatCount(members)} members (\`ipsets agent FILE.json --kernel linux --netns NS\`, run as the image and the systemd unit run it: \`NODE_OPTIONS=${imageNodeOptions(ctx.root)}\`): steady, after the first apply and ${W8_STEADY.ticks} ticks at \`--interval ${W8_STEADY.interval}\`; peak (VmHWM) over ${W8_FAST.ticks} ticks at \`--interval ${W8_FAST.interval}\``,
      ours: measured
        ? `steady ${worst.toFixed(0)} MB (first apply ${steady.rss[0]!.toFixed(0)}, ticks ${steady.rss.slice(1).map((mb) => mb.toFixed(0)).join(', ')}), peak ${fast.peak.toFixed(0)} MB; with Node's defaults steady ${worstOf(defaults).toFixed(0)} MB`
        : 'n/a',
      reference: '—',
      ratio: '—',
      cpuRatio: '—',
      bar: `steady ≤ ${BARS.w8SteadyRssMb} MB, peak ≤ ${BARS.w8PeakRssMb} MB`,
      met: measured ? (worst <= BARS.w8SteadyRssMb && fast.peak <= BARS.w8PeakRssMb ? 'yes' : 'no') : 'n/a',
    });
  }
  method.push(
    `W6: the built \`ipsets apply\` (\`node packages/cli/dist/bin.js\`) of a generated ${formatCount(CLI_SETS)} × ${formatCount(CLI_PER_SET)}-member JSON file in a fresh namespace, against a bare \`ip netns exec NS ipset restore\` of the \`ipset save\` text of the applied sets in another fresh namespace; CPU of ours is the command and its ipset child (a shell's \`times\`), peak RSS the command's own (\`process.resourceUsage().maxRSS\` at exit).`,
    'W7: `loadDesiredFile` of the built command on the same file as JSON and as block-style YAML, each load in a fresh node process; the times are of the load alone (not the process start).',
    `W8: \`ipsets agent\` on the W6 JSON file, three times, each in a fresh namespace, the first two with the \`NODE_OPTIONS\` that deploy/image/Containerfile and the systemd unit set (a young generation of at most 3 × 16 MiB: with Node's defaults it grows to 3 × 64 MiB on this machine while the agent loads the file, and keeps it), the third with Node's defaults (shown, not judged): with \`--interval ${W8_STEADY.interval}\`, VmRSS of the agent process after its first apply (which also reads and loads the file) and after each of the next ${W8_STEADY.ticks} interval ticks (each a full save, parse and reconcile), the steady figure the worst of the ticks; with \`--interval ${W8_FAST.interval}\`, its VmHWM (peak RSS) after ${W8_FAST.ticks} ticks (the sawtooth of a tick a second).`,
  );
  return { rows, method, peakRssMb: peakRss };
}

function withoutNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...rest } = env;
  return rest;
}

/** One W8 run: the agent's interval and the ticks read after its first apply. */
interface AgentRun {
  readonly interval: string;
  readonly ticks: number;
}

/** The steady reading, at the interval the bar names. */
const W8_STEADY: AgentRun = { interval: '10s', ticks: 3 };

/**
 * The peak reading: enough ticks a second for the peak to show the sawtooth (after three
 * VmHWM read 385 MB; the same agent passed 500 MB by its eighth).
 */
const W8_FAST: AgentRun = { interval: '1s', ticks: 10 };

/** One W8 run's readings, MB: VmRSS after the first apply and after each tick; VmHWM after the last. */
interface AgentRss {
  rss: number[];
  peak: number;
}

/** The `NODE_OPTIONS` the image's runtime stage sets (the systemd unit sets the same; a release check holds them equal). */
function imageNodeOptions(root: string): string {
  const m = /^ENV NODE_OPTIONS=(\S+)$/m.exec(readFileSync(join(root, 'deploy/image/Containerfile'), 'utf8'));
  if (m === null) throw new Error('deploy/image/Containerfile sets no NODE_OPTIONS');
  return m[1]!;
}

/**
 * Runs the agent until its first apply and `run.ticks` ticks are logged, reading its
 * memory (see {@link AgentRss}); with `nodeOptions` as its `NODE_OPTIONS` (else none).
 */
async function agentRss(bin: string, file: string, lock: string, log: (line: string) => void, run: AgentRun, nodeOptions: string | undefined): Promise<AgentRss> {
  const ticks = run.ticks;
  const ns = createNamespace();
  const samples: number[] = [];
  let peak = Number.NaN;
  try {
    const child = spawn(
      process.execPath,
      [bin, 'agent', file, '--kernel', 'linux', '--netns', ns.name, '--lock-file', lock, '--no-metrics', '--interval', run.interval, '--log-format', 'json'],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...withoutNodeOptions(process.env), ...(nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions }) } },
    );
    const pid = child.pid;
    if (pid === undefined) throw new Error('ipsets agent did not start');
    const status = (field: 'VmRSS' | 'VmHWM'): number => {
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m === null ? Number.NaN : Number(m[1]) / 1024;
    };
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`ipsets agent: ${samples.length} of ${ticks + 1} applies within 5 minutes`));
      }, 300_000);
      child.stderr.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) !== -1) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          let entry: { msg?: string; trigger?: string; converged?: boolean };
          try {
            entry = JSON.parse(line) as typeof entry;
          } catch {
            continue;
          }
          // Samples stop at the stop request: an apply in flight then is not a steady tick.
          if (samples.length > ticks || entry.trigger === undefined || typeof entry.msg !== 'string' || !/apply/.test(entry.msg)) continue;
          if (entry.converged !== true) log(`W8: agent apply did not converge: ${line.slice(0, 200)}`);
          samples.push(status('VmRSS'));
          if (samples.length > ticks) {
            peak = status('VmHWM');
            clearTimeout(timer);
            child.kill('SIGTERM');
          }
        }
      });
      child.on('error', reject);
      child.on('close', () => {
        clearTimeout(timer);
        if (samples.length > ticks) resolve();
        else reject(new Error(`ipsets agent exited after ${samples.length} applies`));
      });
    });
  } finally {
    ns.dispose();
  }
  return { rss: samples, peak };
}
