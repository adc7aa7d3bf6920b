/**
 * W1 alone from core's sources, for `node --cpu-prof`: builds the 1M dirty manager,
 * then runs `renderRestore(planApply(manager))` a few times, printing CPU per call.
 *
 *   node --expose-gc --max-old-space-size=6144 --cpu-prof --import tsx src/profiles/w1-profile.ts [members] [reps]
 */
import { planApply, renderRestore } from '@ipsets/core';
import { collect, cpuSince } from '../stats.js';
import { buildManager } from '../workloads.js';

const members = Number(process.argv[2] ?? 1_000_000);
const reps = Number(process.argv[3] ?? 5);
const manager = buildManager(members, 'cluster');
for (let r = 0; r < reps; r++) {
  collect();
  const c0 = process.cpuUsage();
  const plan = planApply(manager);
  const planMs = cpuSince(c0);
  const c1 = process.cpuUsage();
  const text = renderRestore(plan);
  console.log(`planApply ${planMs.toFixed(0)} ms CPU, renderRestore ${cpuSince(c1).toFixed(0)} ms CPU (${text.length} characters)`);
}
