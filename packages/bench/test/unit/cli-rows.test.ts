import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliDesiredFiles, loadInFreshProcess } from '../../src/cli-rows.js';

describe('the W6–W8 desired file', () => {
  it('is the same sets and members as JSON and as YAML, every member distinct', () => {
    const { json, yaml } = cliDesiredFiles(3, 300);
    const doc = JSON.parse(json) as { sets: { type: string; name: string; members: string[] }[] };
    expect(doc.sets.map((s) => [s.type, s.name, s.members.length])).toEqual([
      ['namespace', 'bench-0', 300],
      ['namespace', 'bench-1', 300],
      ['namespace', 'bench-2', 300],
    ]);
    const all = doc.sets.flatMap((s) => s.members);
    expect(new Set(all).size).toBe(900);
    // The YAML form lists the same members in the same order, one block item a line.
    expect([...yaml.matchAll(/^ {6}- (\S+)$/gm)].map((m) => m[1])).toEqual(all);
    expect([...yaml.matchAll(/^ {4}name: (\S+)$/gm)].map((m) => m[1])).toEqual(['bench-0', 'bench-1', 'bench-2']);
  });
});

describe('the W7 load', () => {
  it('loads the JSON and the YAML form in a fresh process and counts their sets (was: it imported a loader the CLI entry no longer exports, so every full bench run died at W7)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipsets-bench-w7-'));
    try {
      const { json, yaml } = cliDesiredFiles(2, 5);
      writeFileSync(join(dir, 'd.json'), json);
      writeFileSync(join(dir, 'd.yaml'), yaml);
      const root = resolve(import.meta.dirname, '../../../..');
      for (const file of ['d.json', 'd.yaml']) {
        const run = await loadInFreshProcess(root, join(dir, file));
        expect(run.sets).toBe(2);
        expect(run.ms).toBeGreaterThan(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
