import { describe, expect, it } from 'vitest';
import { renderRestore } from '@ipsets/core';
import { formatNotes, formatPlanCounts, headLines, headRestore, restoreTextChunks } from '../../../src/output/plan-text.js';
import { bigPlan } from '../../helpers/big-plans.js';
import { plan } from '../../helpers/output-fixtures.js';

describe('restoreTextChunks', () => {
  it.each([1, 2, 3, 7, 1000])('writes the bytes of renderRestore in pieces of %d line(s)', (lines) => {
    expect([...restoreTextChunks(plan, lines)].join('')).toBe(renderRestore(plan));
  });

  it('never holds a large plan\'s text as one string', () => {
    const big = bigPlan(4, 10_000);
    const chunks = [...restoreTextChunks(big, 4096)];
    expect(chunks.join('')).toBe(renderRestore(big));
    expect(chunks.length).toBe(Math.ceil(big.lines.length / 4096));
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(4096 * 64);
  });
});

describe('plan summaries', () => {
  it('count the lines of each operation', () => {
    expect(formatPlanCounts(plan)).toBe('create 3, add 2, del 1, destroy 1');
    expect(formatPlanCounts({ lines: [] })).toBe('nothing to do');
  });

  it('show the first notes in full and count the rest by kind', () => {
    const notes = Array.from({ length: 5 }, (_, i) => ({ set: `o-${i}`, kind: i < 3 ? ('info' as const) : ('foreign-skipped' as const), message: 'm' }));
    expect(formatNotes(notes, 2)).toEqual(['ipsets: note: o-0: info: m', 'ipsets: note: o-1: info: m', 'ipsets: … and 3 more notes (info 1, foreign-skipped 2)']);
  });

  it('show the head of a text and of a restore, folding a leading run of creates', () => {
    expect(headLines('a\nb\nc\n', 2)).toBe('a\nb\n… (1 more lines)');
    expect(headLines('a\nb\n', 5)).toBe('a\nb');
    const delta = '-N a --exist nethash\n-N b --exist nethash\n-N c --exist nethash\n-D a 1.1.1.1\n-A b 2.2.2.2\n-A b 3.3.3.3\n';
    expect(headRestore(delta, 4)).toBe('-N a --exist nethash\n… and 2 more -N … --exist lines\n-D a 1.1.1.1\n-A b 2.2.2.2\n… (1 more lines)');
    expect(headRestore('-N a --exist nethash\n-A a 1.1.1.1\n', 4)).toBe('-N a --exist nethash\n-A a 1.1.1.1');
  });
});
