/**
 * CLI bench: the costs a user pays before any kernel work — reading and validating a
 * desired-state file, building the manager, planning and rendering — for the
 * node-sized example and a generated 200,000-member file.
 *
 *   node --expose-gc --import tsx bench/run.ts
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { planReconcile, renderRestore } from '@ipsets/core';
import { desiredStateOf, parseDesiredText } from '../src/desired/file.js';

function time<T>(label: string, fn: () => T): T {
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  const result = fn();
  console.log(`${label.padEnd(44)} ${(performance.now() - start).toFixed(1).padStart(9)} ms`);
  return result;
}

function bigFile(members: number): string {
  const sets: { type: string; name: string; members: string[] }[] = [];
  for (let s = 0; s < members / 1000; s++) {
    const list: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const n = s * 1000 + i;
      list.push(`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`);
    }
    sets.push({ type: 'keyValueLabelOfPod', name: `app:bench-${s}`, members: list });
  }
  return JSON.stringify({ sets });
}

const nodeText = await readFile(fileURLToPath(new URL('../../../examples/node.json', import.meta.url)), 'utf8');
for (const [name, text, format] of [
  ['examples/node.json (cold)', nodeText, 'json'],
  ['examples/node.json (warm)', nodeText, 'json'],
  ['generated 200k members (JSON)', bigFile(200_000), 'json'],
] as const) {
  console.log(`\n${name}: ${(text.length / 1024).toFixed(0)} KiB`);
  const file = time('parse + validate (zod, SetMembers.check)', () => parseDesiredText(text, { format }));
  const desired = time('desired state (buildDesiredState)', () => desiredStateOf(file));
  const plan = time('planReconcile against an empty kernel', () => planReconcile(desired, { sets: [], problems: [] }, []));
  const restore = time('renderRestore', () => renderRestore(plan));
  console.log(`${'lines / bytes'.padEnd(44)} ${plan.lines.length} / ${restore.length}`);
}
