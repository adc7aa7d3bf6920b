import { describe, expect, it } from 'vitest';
import { cliDesiredFiles } from '../../src/cli-rows.js';

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
