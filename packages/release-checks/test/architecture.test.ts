/**
 * docs/architecture.md's table "Entry points and exports" is checked against the real
 * entry points, so it cannot drift: for every entry point, the names listed in its rows
 * are exactly its runtime exports, and each row names the source file the entry
 * re-exports those names from. A failure prints the names to add or remove and the
 * rows as they should read, ready to paste.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/repo.js';

/** Every published entry point: its specifier, the package folder and its source file. */
const ENTRIES = [
  { spec: '@ipsets/core', dir: 'core', file: 'src/index.ts', load: () => import('@ipsets/core') },
  { spec: '@ipsets/fake-kernel', dir: 'fake-kernel', file: 'src/index.ts', load: () => import('@ipsets/fake-kernel') },
  { spec: '@ipsets/fake-kernel/invariants', dir: 'fake-kernel', file: 'src/invariants.ts', load: () => import('@ipsets/fake-kernel/invariants') },
  { spec: '@ipsets/fake-kernel/state-file', dir: 'fake-kernel', file: 'src/state-file.ts', load: () => import('@ipsets/fake-kernel/state-file') },
  { spec: '@ipsets/testing', dir: 'testing', file: 'src/index.ts', load: () => import('@ipsets/testing') },
  { spec: '@ipsets/testing/arbitraries', dir: 'testing', file: 'src/arbitraries.ts', load: () => import('@ipsets/testing/arbitraries') },
  { spec: '@ipsets/testing/vitest', dir: 'testing', file: 'src/vitest.ts', load: () => import('@ipsets/testing/vitest') },
  { spec: '@ipsets/exec-linux', dir: 'exec-linux', file: 'src/index.ts', load: () => import('@ipsets/exec-linux') },
  { spec: '@ipsets/exec-linux/defaults', dir: 'exec-linux', file: 'src/defaults.ts', load: () => import('@ipsets/exec-linux/defaults') },
  { spec: '@ipsets/exec-linux/testing', dir: 'exec-linux', file: 'src/testing.ts', load: () => import('@ipsets/exec-linux/testing') },
  { spec: '@ipsets/cli', dir: 'cli', file: 'src/index.ts', load: () => import('../../cli/src/index.js') },
] as const;

const DOC = join(ROOT, 'docs', 'architecture.md');
const HEADING = '## Entry points and exports';

/**
 * name → where the entry takes it from: a source file relative to the package, or the
 * package that an `export * from '@ipsets/…'` line re-exports (every other name).
 */
function sourcesOf(dir: string, file: string): (name: string) => string | undefined {
  const text = readFileSync(join(ROOT, 'packages', dir, file), 'utf8');
  const from = new Map<string, string>();
  for (const match of text.matchAll(/^export\s*\{([^}]*)\}\s*from\s*'\.\/([^']+)\.js'/gm)) {
    for (const part of match[1]!.split(',')) {
      const item = part.replace(/\/\/.*$/gm, '').trim();
      if (item === '' || item.startsWith('type ')) continue;
      const name = item.split(/\s+as\s+/).pop()!.trim();
      from.set(name, `src/${match[2]}.ts`);
    }
  }
  for (const match of text.matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([\w$]+)/gm)) from.set(match[1]!, file);
  const star = /^export\s*\*\s*from\s*'(@ipsets\/[\w/-]+)'/m.exec(text)?.[1];
  return (name) => from.get(name) ?? star;
}

/** The rows an entry's exports should have: one per source file, names sorted. */
function expectedRows(spec: string, names: readonly string[], from: (name: string) => string | undefined): string[] {
  const byFile = new Map<string, string[]>();
  for (const name of names) {
    const file = from(name) ?? '(unknown)';
    byFile.set(file, [...(byFile.get(file) ?? []), name]);
  }
  return [...byFile.keys()].sort().map((file) => `| \`${spec}\` | \`${file}\` | ${byFile.get(file)!.sort().map((n) => `\`${n}\``).join(', ')} |`);
}

/** The rows of the table in docs/architecture.md, by entry point. */
function documentedRows(): Map<string, { file: string; names: string[] }[]> {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "${HEADING}" section`);
  const rest = text.slice(start + HEADING.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  const rows = new Map<string, { file: string; names: string[] }[]>();
  for (const line of section.split('\n')) {
    const cells = /^\| `(@ipsets\/[\w/-]+)` \| `([^`]+)` \| (.*) \|$/.exec(line);
    if (cells === null) continue;
    const names = [...cells[3]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.set(cells[1]!, [...(rows.get(cells[1]!) ?? []), { file: cells[2]!, names }]);
  }
  return rows;
}

describe('docs/architecture.md lists every entry point’s exports', () => {
  const documented = documentedRows();

  it('the table has rows for exactly the published entry points', () => {
    expect([...documented.keys()].sort()).toEqual(ENTRIES.map((e) => e.spec).sort());
  });

  for (const entry of ENTRIES) {
    it(`${entry.spec}: the listed names are exactly its exports, each under the file it comes from`, async () => {
      const names = Object.keys(await entry.load()).sort();
      const from = sourcesOf(entry.dir, entry.file);
      const rows = documented.get(entry.spec) ?? [];
      const listed = rows.flatMap((row) => row.names);
      const missing = names.filter((n) => !listed.includes(n));
      const extra = listed.filter((n) => !names.includes(n));
      const misplaced = rows.flatMap((row) => row.names.filter((n) => names.includes(n) && from(n) !== row.file).map((n) => `${n} (listed under ${row.file}, comes from ${from(n) ?? '(unknown)'})`));
      const problems = [
        ...(missing.length > 0 ? [`add to the table: ${missing.join(', ')}`] : []),
        ...(extra.length > 0 ? [`remove from the table (not exported): ${extra.join(', ')}`] : []),
        ...(misplaced.length > 0 ? [`move: ${misplaced.join('; ')}`] : []),
      ];
      const message = `docs/architecture.md, section "${HEADING}", ${entry.spec}:\n  ${problems.join('\n  ')}\nits rows should read:\n${expectedRows(entry.spec, names, from).join('\n')}\n`;
      expect(problems, message).toEqual([]);
    });
  }
});
