/**
 * W1 piece by piece, before against after: `planApply`, `renderRestore` and the
 * session's success path (`runRestoreSession` over a port that accepts at once) of a
 * baseline build of core against core's sources, on the same dirty manager, samples
 * interleaved. Checks that both sides render the same text first.
 *
 *   node --expose-gc --max-old-space-size=6144 --import tsx src/profiles/w1-render.ts BASE_DIST [sizes] [reps]
 *
 * BASE_DIST is a copy of `packages/core/dist` made before the change (its `index.js`).
 */
import * as after from '../../../core/src/index.js';
import type { CommandResult, IpsetPort, RestorePlan } from '@ipsets/core';
import { formatMs, median, timeSync, timeAsync } from '../stats.js';
import { buildManager } from '../workloads.js';

type Core = Pick<typeof after, 'planApply' | 'renderRestore' | 'runRestoreSession'>;

const baseDist = process.argv[2];
if (baseDist === undefined) throw new Error('usage: w1-render.ts BASE_DIST [sizes] [reps]');
const before = (await import(baseDist)) as Core;
const sizes = (process.argv[3] ?? '10000,100000,1000000').split(',').map(Number);
const reps = Number(process.argv[4] ?? 5);

const ok: CommandResult = { exitCode: 0, stdout: '', stderr: '' };
const port: IpsetPort = {
  restore: () => Promise.resolve(ok),
  save: () => Promise.resolve(ok),
  listNames: () => Promise.resolve(ok),
  listHeaders: () => Promise.resolve(ok),
};

const sides: [string, Core][] = [
  ['before', before],
  ['after', after],
];

for (const size of sizes) {
  const manager = buildManager(size, 'cluster');
  const a = before.renderRestore(before.planApply(manager));
  const b = after.renderRestore(after.planApply(manager));
  if (a !== b) throw new Error(`the texts differ at ${size} (${a.length} vs ${b.length} characters)`);
  const samples = new Map<string, { ms: number[]; cpu: number[] }>();
  const record = (label: string, ms: number, cpu: number): void => {
    const s = samples.get(label) ?? { ms: [], cpu: [] };
    s.ms.push(ms);
    s.cpu.push(cpu);
    samples.set(label, s);
  };
  // One warm-up round, then `reps` rounds, the sides' order rotating.
  for (let rep = -1; rep < reps; rep++) {
    const order = rep % 2 === 0 ? sides : [...sides].reverse();
    for (const [name, core] of order) {
      const p = timeSync(() => core.planApply(manager));
      const plan: RestorePlan = p.value;
      const r = timeSync(() => core.renderRestore(plan));
      const both = timeSync(() => core.renderRestore(core.planApply(manager)));
      const s = await timeAsync(() => core.runRestoreSession(plan, port));
      if (rep < 0) continue;
      record(`${name} planApply`, p.ms, p.cpuMs);
      record(`${name} renderRestore`, r.ms, r.cpuMs);
      record(`${name} plan+render`, both.ms, both.cpuMs);
      record(`${name} session`, s.ms, s.cpuMs);
    }
  }
  for (const [label, s] of samples) {
    console.log(
      `${size}\t${label.padEnd(22)}\twall ${formatMs(median(s.ms)).padStart(9)}\tCPU ${formatMs(median(s.cpu)).padStart(9)}\t(CPU samples ${s.cpu.map((v) => v.toFixed(0)).join(' ')})`,
    );
  }
}
