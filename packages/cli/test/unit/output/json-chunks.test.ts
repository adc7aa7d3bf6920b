import { describe, expect, it } from 'vitest';
import { LazyJsonArray, jsonChunks } from '../../../src/output/json-chunks.js';

const text = (value: unknown, indent?: number) => [...jsonChunks(value, indent)].join('');

describe('jsonChunks', () => {
  const big = Array.from({ length: 500 }, (_, i) => ({ n: i, s: `x${i}`, nested: [i, [i, { deep: i % 3 === 0 ? [] : {} }]] }));
  it.each<[string, unknown]>([
    ['a number', 42],
    ['a string with quotes, newlines and non-ASCII', 'a "b"\nc\u2028é😀'],
    ['null', null],
    ['empty containers', { a: [], b: {}, c: [[]], d: [{}] }],
    ['a small nested object', { a: 1, b: [1, 2, { c: 'd' }], e: { f: null } }],
    ['a large array of objects', big],
    ['an object holding a large array', { head: 'h', items: big, tail: { counts: { a: 1 } } }],
    ['a large array of numbers in a small array', [{ section: 's', lines: Array.from({ length: 1000 }, (_, i) => i) }]],
    ['undefined, functions and symbols (left out of objects, null in arrays)', { a: undefined, b: () => 1, c: Symbol('c'), d: [undefined, () => 1, 2], e: 1, many: Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? undefined : i)) }],
    ['toJSON', { when: new Date(0), list: Array.from({ length: 100 }, (_, i) => ({ toJSON: (key: string) => `item ${key}: ${i}` })) }],
    ['an object whose only value is left out', { only: undefined, big: Array.from({ length: 100 }, () => ({ gone: undefined })) }],
  ])('writes %s as JSON.stringify does', (_name, value) => {
    expect(text(value)).toBe(JSON.stringify(value, null, 2));
    expect(text(value, 4)).toBe(JSON.stringify(value, null, 4));
  });

  it('writes nothing for a value JSON has no text for', () => {
    expect(text(undefined)).toBe('');
  });

  it('writes a lazy array as an array, making its elements only as the text reaches them', () => {
    let made = 0;
    const lazy = new LazyJsonArray(function* () {
      for (let i = 0; i < 10_000; i++) {
        made++;
        yield { line: i + 1, text: `-A s 10.0.${i >> 8}.${i & 255}` };
      }
    });
    const chunks = jsonChunks({ schemaVersion: 1, lines: lazy, after: [] });
    let seen = '';
    while (!seen.includes('"line": 3,')) seen += chunks.next().value ?? '';
    // A writer that built the whole document first would have made all 10,000 by now.
    expect(made).toBeLessThan(10);
    for (const chunk of chunks) seen += chunk;
    const eager = { schemaVersion: 1, lines: Array.from({ length: 10_000 }, (_, i) => ({ line: i + 1, text: `-A s 10.0.${i >> 8}.${i & 255}` })), after: [] };
    expect(seen).toBe(JSON.stringify(eager, null, 2));
    expect(text({ empty: new LazyJsonArray(() => []) })).toBe(JSON.stringify({ empty: [] }, null, 2));
  });
});
