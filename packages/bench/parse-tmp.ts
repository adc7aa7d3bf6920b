import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { parseSave, planApply, renderRestore } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { buildManager } from './src/workloads.ts';
const file = '/tmp/save1m.txt';
if (!existsSync(file)) {
  const k = new FakeKernel();
  k.restore(renderRestore(planApply(buildManager(1_000_000, 'cluster'))), { exist: true });
  writeFileSync(file, k.save().stdout);
}
const text = readFileSync(file, 'utf8');
const core = await import('@ipsets/core') as Record<string, unknown>;
const Reader = core.SaveReader as undefined | (new () => { push(c: string): void; end(): ReturnType<typeof parseSave> });
const t: number[] = []; const s: number[] = [];
for (let i = 0; i < 12; i++) {
  let a = performance.now(); const snap = parseSave(text); t.push(performance.now() - a);
  if (i === 0) console.log('sets', snap.sets.length, 'members', snap.sets.reduce((n, x) => n + x.members.length, 0), 'bytes', text.length);
  if (Reader) { a = performance.now(); const r = new Reader(); for (let p = 0; p < text.length; p += 65536) r.push(text.slice(p, p + 65536)); r.end(); s.push(performance.now() - a); }
}
t.sort((a, b) => a - b); s.sort((a, b) => a - b);
console.log('parseSave min', t[0]!.toFixed(1), 'median', t[6]!.toFixed(1), Reader ? `streamed 64K min ${s[0]!.toFixed(1)} median ${s[6]!.toFixed(1)}` : '');
