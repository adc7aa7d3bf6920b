/**
 * docs/architecture.md's drawing "Inside core" is checked against core's imports, so it
 * cannot drift: it lists every folder (and top-level file) of packages/core/src from the
 * top layer down, and every relative import in core runs from a module to its own layer
 * or one drawn below it — no arrow back up — and no module reaches itself again through
 * its imports (no cycle, even inside one folder). A failure names the importing file, the
 * imported one and both layers.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tsFilesUnder } from './helpers/repo.js';

const SRC = join(ROOT, 'packages', 'core', 'src');
const DOC = join(ROOT, 'docs', 'architecture.md');
const HEADING = '## Inside core';

/** The layers of the drawing, top first: each a list of units (`plan/`, `errors.ts`). */
function drawnLayers(): string[][] {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "${HEADING}" section`);
  const block = /```\n([\s\S]*?)```/.exec(text.slice(start))?.[1];
  if (block === undefined) throw new Error(`"${HEADING}" has no drawing (a fenced block)`);
  const layers: string[][] = [];
  for (const line of block.split('\n')) {
    // A layer line starts with its units, separated by single spaces, then two spaces and the words.
    const units = /^((?:[\w-]+\/|[\w-]+\.ts)(?: (?:[\w-]+\/|[\w-]+\.ts))*)(?: {2,}|$)/.exec(line)?.[1];
    if (units !== undefined) layers.push(units.split(' '));
  }
  return layers;
}

/** The unit a file belongs to: its top folder (`plan/`) or, at the top, the file itself. */
function unitOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? file : file.slice(0, slash + 1);
}

/** The core files a file imports (or re-exports from), relative to src. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const targets: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*'(\.{1,2}\/[^']+)'/gm)) {
    targets.push(relative(SRC, resolve(SRC, dirname(file), match[1]!.replace(/\.js$/, '.ts'))));
  }
  return targets;
}

describe('docs/architecture.md draws core’s layers as its imports run', () => {
  const layers = drawnLayers();
  const layerOf = new Map(layers.flatMap((units, i) => units.map((unit) => [unit, i] as const)));
  const files = tsFilesUnder(SRC).map((path) => relative(SRC, path));

  it('the drawing lists every folder and top-level file of core once', () => {
    const drawn = layers.flat();
    expect(new Set(drawn).size, 'a unit is drawn twice').toBe(drawn.length);
    expect([...drawn].sort()).toEqual([...new Set(files.map(unitOf))].sort());
  });

  it('every import runs to its own layer or one below it', () => {
    const upward: string[] = [];
    for (const file of files) {
      for (const target of importsOf(file)) {
        const from = layerOf.get(unitOf(file));
        const to = layerOf.get(unitOf(target));
        if (from !== undefined && to !== undefined && to < from) {
          upward.push(`${file} (${unitOf(file)}) imports ${target} (${unitOf(target)}), drawn above it`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it('no module reaches itself through its imports', () => {
    const edges = new Map(files.map((file) => [file, importsOf(file).filter((t) => files.includes(t))]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
