/**
 * CPU profile of the agent's whole resync call of W2 (`reconcileIPSets(manager.desiredState(), port)`)
 * at one size, the state built first and left out of the profile: prints the functions
 * with the most self time and writes the profile (for DevTools) next to the working directory.
 *
 *   node --expose-gc --max-old-space-size=6144 --import tsx src/profiles/w2-profile.ts [members] [calls] [core]
 *
 * `core`: a built core to profile instead of the sources (e.g. `../core/dist/index.js`,
 * whose line numbers the profile keeps; the sources run through tsx show line 1).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import * as sources from '@ipsets/core';
import { planApply, renderRestore } from '@ipsets/core';
import type { CommandResult, IpsetPort } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { collect } from '../stats.js';
import { buildDriftedManager, buildManager, instantPort } from '../workloads.js';

const members = Number(process.argv[2] ?? 1_000_000);
const calls = Number(process.argv[3] ?? 5);
const { reconcileIPSets } = (process.argv[4] === undefined ? sources : await import(new URL(process.argv[4], `file://${process.cwd()}/`).href)) as typeof sources;
const kernel = new FakeKernel();
kernel.restore(renderRestore(planApply(buildManager(members, 'cluster'))), { exist: true });
const saveText = kernel.save().stdout;
const headersText = kernel.listHeaders().stdout;
const agent = buildDriftedManager(members);
const resultOf = (stdout: string): CommandResult => ({ exitCode: 0, stdout, stderr: '' }) as CommandResult;
const port: IpsetPort = { ...instantPort, save: () => Promise.resolve(resultOf(saveText)), listHeaders: () => Promise.resolve(resultOf(headersText)) };
await reconcileIPSets(agent.desiredState(), port);
collect();

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  positionTicks?: { line: number; ticks: number }[];
}
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
const cpu = process.cpuUsage();
for (let i = 0; i < calls; i++) await reconcileIPSets(agent.desiredState(), port);
const used = process.cpuUsage(cpu);
const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: Node[]; samples: number[] } };
writeFileSync('w2.cpuprofile', JSON.stringify(profile));
const self = new Map<string, number>();
let total = 0;
for (const n of profile.nodes) {
  const f = n.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + n.hitCount);
  total += n.hitCount;
}
console.log(`${calls} calls at ${members} members: CPU ${((used.user + used.system) / 1000 / calls).toFixed(0)} ms per call`);
for (const [key, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`);
}
const lines = new Map<string, number>();
for (const n of profile.nodes) {
  for (const t of n.positionTicks ?? []) {
    const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')} line ${t.line}`;
    lines.set(key, (lines.get(key) ?? 0) + t.ticks);
  }
}
console.log('lines:');
for (const [key, hits] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`);
}
