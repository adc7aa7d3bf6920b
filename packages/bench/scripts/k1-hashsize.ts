/**
 * K1 by hand on the shape where the project's text names a hashsize: 100 hash:net sets
 * × 10,000 members (1,000,000), which the project creates with `hashsize 4096`. Restores,
 * each in a fresh network namespace (never the default one), the order rotating every
 * repetition: (a) the project's text, (b) the `ipset save` text of the same sets at the
 * same hashsize, (c) the project's text with its hashsize removed (the kernel's 1024,
 * grown as the sets fill). Prints the medians of wall and CPU time (ipset's user + sys).
 *
 *   cd packages/bench && node --expose-gc --import tsx scripts/k1-hashsize.ts [REPS=3]
 */
import { IPSetManager, planApply, renderRestore } from '@ipsets/core';
import { createNamespace, expectOk } from '../src/kernel.js';
import { createHashsizes, restoreSideBySide, withHashsizes, withoutHashsize } from '../src/kernel-text.js';
import { formatMs, median } from '../src/stats.js';
import { podIp, setMeta } from '../src/workloads.js';

const reps = Number(process.argv[2] ?? 3);
const [sets, perSet] = [100, 10_000];
const manager = new IPSetManager();
for (let s = 0; s < sets; s++) for (let i = 0; i < perSet; i++) manager.addToSets(setMeta(s), podIp(s * perSet + i), `ns/pod-${s * perSet + i}`);
const ours = renderRestore(planApply(manager));

const ns = createNamespace();
let save: string;
try {
  expectOk(await ns.ipset(['-exist', 'restore'], { input: ours }), 'restore');
  save = expectOk(await ns.ipset(['save'], { keepStdout: true }), 'save').stdout;
} finally {
  ns.dispose();
}
const hashsizes = createHashsizes(ours);
const sides = [
  { label: `(a) project text, hashsize ${[...new Set(hashsizes.values())].join('/')}`, text: ours },
  { label: '(b) ipset save text, equal hashsize', text: withHashsizes(save, hashsizes) },
  { label: '(c) project text without hashsize', text: withoutHashsize(ours) },
];
const wall = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
await restoreSideBySide(sides, reps, sets * perSet, (label, ms, cpuMs) => {
  wall.set(label, [...(wall.get(label) ?? []), ms]);
  cpu.set(label, [...(cpu.get(label) ?? []), cpuMs ?? Number.NaN]);
});
const [a, b] = sides.map((s) => s.label);
for (const { label } of sides) {
  const w = wall.get(label)!;
  const c = cpu.get(label)!;
  console.log(`${label}: wall ${formatMs(median(w))}, CPU ${formatMs(median(c))} (wall ${w.map((x) => x.toFixed(0)).join('/')} ms; CPU ${c.map((x) => x.toFixed(0)).join('/')} ms)`);
}
const ratio = (m: Map<string, number[]>): string => (median(m.get(a!)!) / median(m.get(b!)!)).toFixed(3);
console.log(`(a)/(b): wall ${ratio(wall)}, CPU ${ratio(cpu)}; ${reps} repetitions, medians`);
