/**
 * W2 today against the fused prototype (./fused-resync.ts), on the W2 state: the
 * fake kernel's save of 1,000 sets × 1,000 members and a desired state 1% away.
 * Checks that both give the same lines, then times them interleaved (wall and CPU).
 *
 *   node --expose-gc --import tsx src/prototypes/run-w2.ts [members]
 */
import { parseListHeaders, parseSave, planApply, planReconcile, renderLine, renderRestore } from '@ipsets/core';
import { FakeKernel } from '@ipsets/testing';
import { formatMs, median, timeSync } from '../stats.js';
import { buildManager, perturb } from '../workloads.js';
import { fusedResync } from './fused-resync.js';

const members = Number(process.argv[2] ?? 1_000_000);
const manager = buildManager(members, 'cluster');
const kernel = new FakeKernel();
kernel.restore(renderRestore(planApply(manager)), { exist: true });
const saveText = kernel.save().stdout;
const headers = parseListHeaders(kernel.listHeaders().stdout);
const { desired } = perturb(manager.desiredState());

const today = (): string[] => planReconcile(desired, parseSave(saveText), headers).lines.map(renderLine);
const fused = (): string[] => fusedResync(desired, saveText).map(renderLine);
const a = today().sort();
const b = fused().sort();
if (a.join('\n') !== b.join('\n')) throw new Error(`the prototype's lines differ (${a.length} vs ${b.length})`);

const wall = { today: [] as number[], fused: [] as number[] };
const cpu = { today: [] as number[], fused: [] as number[] };
for (let rep = 0; rep < 7; rep++) {
  for (const which of rep % 2 === 0 ? (['today', 'fused'] as const) : (['fused', 'today'] as const)) {
    const { ms, cpuMs } = timeSync(which === 'today' ? today : fused);
    wall[which].push(ms);
    cpu[which].push(cpuMs);
  }
}
console.log(`${members} saved members, ${a.length} lines (same from both)`);
for (const which of ['today', 'fused'] as const) {
  console.log(
    `${which === 'today' ? 'parseSave + planReconcile' : 'fused prototype          '}: wall ${formatMs(median(wall[which]))}, CPU ${formatMs(median(cpu[which]))}`,
  );
}
console.log(`speed-up (CPU medians): ${(median(cpu.today) / median(cpu.fused)).toFixed(2)}×`);
