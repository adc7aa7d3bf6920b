/**
 * The reasons stay in the repository. Comments cite the two behaviour documents as
 * `docs/<file>.md §X` (several sections may follow one file name: `§d.1–§d.2`,
 * `§g.2.9/§g.2.11`, `§f, §d.3`); every such reference must name a file of `docs/` that
 * has section X: a heading (`## a.`, `### d.1`, `## 2.`, `### 2.4`) or, for the last
 * number, an item of the numbered list under its parent's heading (`§g.2.9` is item 9
 * under `### g.2`). A `§` that follows no file name points nowhere a reader can go.
 *
 * Source and user-facing files (READMEs, docs/, help text, CLI messages) also never name
 * the design notes or specifications kept outside a clone, nor call the reference
 * implementation "the seed".
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/repo.js';

const SKIP_DIRS = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'fixtures']);
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const THIS_FILE = fileURLToPath(import.meta.url);

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

const packageDirs = readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name));

/** Every source file: packages' src, test and bench folders, the examples and the root scripts. */
const sourceFiles = [
  ...packageDirs.flatMap((dir) => ['src', 'test', 'bench'].flatMap((sub) => walk(join(dir, sub), (p) => SOURCE.test(p)))),
  ...walk(join(ROOT, 'examples'), (p) => SOURCE.test(p)),
  ...walk(join(ROOT, 'scripts'), (p) => SOURCE.test(p)),
].filter((path) => path !== THIS_FILE);

/** READMEs, docs/, BENCHMARKS.md and the changesets, which become the CHANGELOGs (help text and CLI messages are in the sources). */
const userFacingFiles = [
  join(ROOT, 'README.md'),
  join(ROOT, 'BENCHMARKS.md'),
  ...walk(join(ROOT, 'docs'), (p) => p.endsWith('.md')),
  ...packageDirs.map((dir) => join(dir, 'README.md')),
  ...walk(join(ROOT, 'examples'), (p) => p.endsWith('README.md')),
  ...walk(join(ROOT, '.changeset'), (p) => p.endsWith('.md') && !p.endsWith('README.md')),
].filter((path) => existsSync(path));

const SECTION = '§[a-z0-9]+(?:\\.[0-9]+)*';
const SEPARATOR = '(?:\\s*(?:/|,|–|-|and|or|;)\\s*)';
const CHAIN = new RegExp(`docs/([\\w-]+\\.md) ((?:${SECTION}${SEPARATOR})*${SECTION})`, 'g');

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `doc` has section `id` (`d.1`, `2.4`, `g.2.9`, …), see the module comment. */
function hasSection(doc: string, id: string): boolean {
  if (new RegExp(`^#{1,6} ${escape(id)}(?:\\.|\\s|$)`, 'm').test(doc)) return true;
  const cut = id.lastIndexOf('.');
  if (cut < 0) return false;
  const parent = id.slice(0, cut);
  const item = id.slice(cut + 1);
  const heading = new RegExp(`^#{1,6} ${escape(parent)}(?:\\.|\\s|$).*$`, 'm').exec(doc);
  if (heading === null) return false;
  // The items of a section come before its first subsection.
  const rest = doc.slice(heading.index + heading[0].length);
  const next = /^#{1,6} /m.exec(rest);
  const body = next === null ? rest : rest.slice(0, next.index);
  return new RegExp(`^${escape(item)}\\. `, 'm').test(body);
}

interface Problem {
  where: string;
  problem: string;
}

function where(path: string, text: string, index: number): string {
  return `${relative(ROOT, path)}:${text.slice(0, index).split('\n').length}`;
}

describe('references from the sources into docs/', () => {
  const docs = new Map<string, string>();
  function doc(name: string): string | undefined {
    if (!docs.has(name)) {
      const path = join(ROOT, 'docs', name);
      if (existsSync(path)) docs.set(name, readFileSync(path, 'utf8'));
    }
    return docs.get(name);
  }

  it('finds the sources and some references (the scan itself works)', () => {
    expect(sourceFiles.length).toBeGreaterThan(100);
    const cited = sourceFiles.filter((path) => CHAIN.test(readFileSync(path, 'utf8')));
    CHAIN.lastIndex = 0;
    expect(cited.length).toBeGreaterThan(10);
  });

  it('every `docs/<file>.md §X` names an existing file and a section it has; no § stands alone', () => {
    const problems: Problem[] = [];
    for (const path of sourceFiles) {
      const text = readFileSync(path, 'utf8');
      const covered = new Set<number>();
      for (const match of text.matchAll(CHAIN)) {
        const [, name, chain] = match as unknown as [string, string, string];
        const chainStart = match.index + match[0].length - chain.length;
        for (const section of chain.matchAll(new RegExp(SECTION, 'g'))) {
          covered.add(chainStart + section.index);
          const id = section[0].slice(1);
          const content = doc(name);
          if (content === undefined) problems.push({ where: where(path, text, match.index), problem: `docs/${name} does not exist` });
          else if (!hasSection(content, id)) problems.push({ where: where(path, text, match.index), problem: `docs/${name} has no section ${id}` });
        }
      }
      for (const match of text.matchAll(/§/g)) {
        if (!covered.has(match.index)) {
          problems.push({ where: where(path, text, match.index), problem: `a § that follows no docs/<file>.md: ${JSON.stringify(text.slice(match.index, match.index + 12))}` });
        }
      }
    }
    expect(problems.map((p) => `${p.where}: ${p.problem}`)).toEqual([]);
  });

  it('hasSection reads headings and numbered items (so the check above can fail)', () => {
    const sample = '## a. Model\n### a.1 Types\n### g.2 Weaknesses\n\n1. **One.**\n2. **Two.**\n### g.3 History\n3. other\n';
    expect(hasSection(sample, 'a')).toBe(true);
    expect(hasSection(sample, 'a.1')).toBe(true);
    expect(hasSection(sample, 'a.2')).toBe(false);
    expect(hasSection(sample, 'g.2.2')).toBe(true);
    expect(hasSection(sample, 'g.2.3')).toBe(false);
  });
});

// Built from parts so that this file does not trip its own check.
const FORBIDDEN: ReadonlyArray<[RegExp, string]> = [
  [new RegExp(['\\.\\.', 'shared'].join('/')), 'a folder outside the repository'],
  [new RegExp(['DES', 'IGN'].join('')), 'the design notes kept outside the repository'],
  [new RegExp(['spec', 'azure-npm\\.md'].join('/')), 'a specification outside the repository (docs/reference-behaviour.md)'],
  [new RegExp(['spec', 'ipset-semantics\\.md'].join('/')), 'a specification outside the repository (docs/ipset-semantics.md)'],
  [new RegExp(`\\bthe ${'se' + 'ed'}\\b|\\b${'se' + 'ed'}['’]s\\b`, 'i'), 'the reference implementation by another name (say "the reference implementation (Azure NPM)")'],
];

describe('sources and user-facing files name only what a clone has', () => {
  it('no file mentions a folder, note or specification outside the repository, or calls the reference "the seed"', () => {
    const problems: string[] = [];
    for (const path of [...sourceFiles, ...userFacingFiles]) {
      const text = readFileSync(path, 'utf8');
      for (const [pattern, what] of FORBIDDEN) {
        const global = new RegExp(pattern.source, `${pattern.flags}g`);
        for (const match of text.matchAll(global)) problems.push(`${where(path, text, match.index)}: ${JSON.stringify(match[0])} — ${what}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
