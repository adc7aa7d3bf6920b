/**
 * The agent's whole resync call of W2 and its parts, timed (wall and CPU) at every
 * size, optionally against a second copy of core's sources (a baseline checkout), the
 * two interleaved rep by rep. The save is the fake kernel's save of the W1 state, as
 * W2 runs without a kernel.
 *
 *   node --expose-gc --max-old-space-size=6144 --import tsx src/profiles/w2-parts.ts \
 *     [--sizes 10000,100000,1000000] [--reps 5] [--base /path/to/core/src/index.ts]
 *
 * Parts: `desiredState()`, `parseSave`, `parseListHeaders`, `planReconcile`,
 * `runRestoreSession` over an instant port; and the call itself,
 * `reconcileIPSets(manager.desiredState(), port)`.
 */
import * as current from '@ipsets/core';
import type { CommandResult, IpsetPort } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { formatMs, median, timeAsync, timeSync } from '../stats.js';
import { buildDriftedManager, buildManager, instantPort, perturb } from '../workloads.js';

type Core = typeof current;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const sizes = (option('sizes') ?? '10000,100000,1000000').split(',').map(Number);
const reps = Number(option('reps') ?? 5);
const basePath = option('base');
const cores: [string, Core][] = [['now', current]];
if (basePath !== undefined) cores.unshift(['base', (await import(basePath)) as Core]);

const resultOf = (stdout: string): CommandResult => ({ exitCode: 0, stdout, stderr: '' }) as CommandResult;
const PARTS = ['desiredState', 'parseSave', 'parseListHeaders', 'planReconcile', 'session', 'sum of parts', 'whole call'] as const;

for (const size of sizes) {
  const manager = buildManager(size, 'cluster');
  const kernel = new FakeKernel();
  kernel.restore(current.renderRestore(current.planApply(manager)), { exist: true });
  const saveText = kernel.save().stdout;
  const headersText = kernel.listHeaders().stdout;
  const { changed } = perturb(manager.desiredState());
  const agent = buildDriftedManager(size);
  const port: IpsetPort = { ...instantPort, save: () => Promise.resolve(resultOf(saveText)), listHeaders: () => Promise.resolve(resultOf(headersText)) };
  const wall = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  const record = (label: string, ms: number, cpuMs: number): void => {
    (wall.get(label) ?? wall.set(label, []).get(label)!).push(ms);
    (cpu.get(label) ?? cpu.set(label, []).get(label)!).push(cpuMs);
  };
  const rendered = new Map<string, string>();
  for (let rep = 0; rep < reps; rep++) {
    const order = rep % 2 === 0 ? cores : [...cores].reverse();
    for (const [tag, core] of order) {
      let sumWall = 0;
      let sumCpu = 0;
      const part = <T>(name: string, fn: () => T): T => {
        const { ms, cpuMs, value } = timeSync(fn);
        record(`${tag} ${name}`, ms, cpuMs);
        sumWall += ms;
        sumCpu += cpuMs;
        return value;
      };
      const desired = part('desiredState', () => agent.desiredState());
      const snapshot = part('parseSave', () => core.parseSave(saveText));
      const headers = part('parseListHeaders', () => core.parseListHeaders(headersText));
      const plan = part('planReconcile', () => core.planReconcile(desired, snapshot, headers));
      const report = await (async () => {
        const { ms, cpuMs, value } = await timeAsync(() => core.runRestoreSession(plan, port));
        record(`${tag} session`, ms, cpuMs);
        sumWall += ms;
        sumCpu += cpuMs;
        return value;
      })();
      record(`${tag} sum of parts`, sumWall, sumCpu);
      if (report.linesTotal !== changed) throw new Error(`${tag}: planned ${report.linesTotal} lines for ${changed} changes`);
      const text = core.renderRestore(plan);
      const seen = rendered.get('plan');
      if (seen === undefined) rendered.set('plan', text);
      else if (seen !== text) throw new Error(`${tag}: the plan differs from the other core's`);
      const whole = await timeAsync(() => core.reconcileIPSets(agent.desiredState(), port));
      if (!whole.value.converged || whole.value.linesTotal !== changed) throw new Error(`${tag}: the whole call planned ${whole.value.linesTotal} lines`);
      record(`${tag} whole call`, whole.ms, whole.cpuMs);
    }
  }
  console.log(`\n${size} members, ${changed} changed, ${reps} reps (medians, wall / CPU, and the least CPU):`);
  for (const p of PARTS) {
    const cells = cores.map(
      ([tag]) =>
        `${tag} ${formatMs(median(wall.get(`${tag} ${p}`)!)).padStart(8)} / ${formatMs(median(cpu.get(`${tag} ${p}`)!)).padStart(8)} (min CPU ${formatMs(Math.min(...cpu.get(`${tag} ${p}`)!)).padStart(8)})`,
    );
    console.log(`  ${p.padEnd(17)} ${cells.join('   ')}`);
  }
}
