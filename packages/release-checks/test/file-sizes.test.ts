/**
 * A source file of more than {@link LIMIT} lines says at its top why it is one concept: its
 * first comment holds a paragraph starting "Why one file:". A long file without one is a
 * grab-bag until someone explains otherwise (split it, or write why it belongs together).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tsFilesUnder } from './helpers/repo.js';

const LIMIT = 400;

describe('long source files say why they are one', () => {
  const packages = join(ROOT, 'packages');
  const files = readdirSync(packages).flatMap((pkg) => {
    const src = join(packages, pkg, 'src');
    return existsSync(src) ? tsFilesUnder(src) : [];
  });

  it(`every packages/*/src file over ${LIMIT} lines has "Why one file:" in its first comment`, () => {
    expect(files.length).toBeGreaterThan(50);
    const unexplained = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length;
      if (lines <= LIMIT) return [];
      const head = /^\s*\/\*\*([\s\S]*?)\*\//.exec(text)?.[1] ?? '';
      return /\n\s*\* Why one file: /.test(head) ? [] : [`${relative(ROOT, file)} (${lines} lines)`];
    });
    expect(unexplained).toEqual([]);
  });
});
