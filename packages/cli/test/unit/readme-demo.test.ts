/**
 * The README's demo excerpt is the demo's own output: it had drifted (3,849 lines and 43
 * sets where the demo printed 7,675 lines and 71 sets). Every line of the excerpt must be
 * a line the demo prints today, durations aside (they vary from run to run).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/commands/demo.js';

/** A line with its durations (`486 ms`, `1.5 ms`, `2.1 s`) replaced, so runs compare equal. */
const withoutDurations = (line: string) => line.replace(/\b\d+(?:\.\d+)? (?:ms|s)\b/g, '<duration>');

describe('packages/cli/README.md: the demo excerpt', () => {
  it('is, line for line, what `ipsets demo` prints', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## The demo'));
    const excerpt = /```\n([\s\S]*?)```/.exec(section)![1]!.split('\n').filter(Boolean);
    expect(excerpt.length).toBeGreaterThan(8);
    let out = '';
    const result = await runDemo({ write: (text: string) => void (out += text) });
    expect(result.ok).toBe(true);
    const printed = new Set(out.split('\n').map(withoutDurations));
    for (const line of excerpt) expect(printed.has(withoutDurations(line)), line).toBe(true);
  });
});
