/**
 * The values limit of the full YAML parser, in a file of its own: run after the alias-bomb
 * test of desired-file-strict.test.ts in one vitest worker, the 250,000-member reads below
 * took 29 s instead of 1 s (on Node 22 the refusal itself passed its 5 s bound; on 24 the
 * plain read), which neither the built command nor the same code under tsx shows.
 */
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { parseDesiredText } from '../../../src/desired/file.js';

function refused(text: string): string {
  try {
    parseDesiredText(text, { source: 'f' });
  } catch (error) {
    if (!isIpsetsError(error)) throw error;
    expect(error.code).toBe('INVALID_INPUT');
    return error.message;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

describe('YAML only the full parser reads is limited in values before it is built', () => {
  it('more than 200,000 values for the full YAML parser are refused before it builds them (500,000 took 960 MiB and 24 s); plain YAML of as many is read', () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `      10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    // An anchor and a multi-line flow list: only the full parser reads this.
    const full = (n: number) => `sets:\n  - type: &t namespace\n    name: shop\n    members: [\n${members(n).join(',\n')}\n    ]\n`;
    const started = performance.now();
    expect(refused(full(250_000))).toMatch(
      /^f: 1 problem; nothing was applied: line 199999:7, \(root\): the document holds more than 200,000 values written in a way only the full YAML parser reads/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(parseDesiredText(full(1000)).sets[0]!.members).toHaveLength(1000);
    const plain = `sets:\n  - type: namespace\n    name: shop\n    members:\n${members(250_000).map((m) => `    - ${m.trim()}`).join('\n')}\n`;
    expect(parseDesiredText(plain).sets[0]!.members).toHaveLength(250_000);
  });

});
