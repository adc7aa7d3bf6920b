import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IpsetsError } from '@ipsets/core';
import type { DesiredState } from '@ipsets/core';
import { DesiredSource } from '../../../src/agent/desired-source.js';
import { useTempDir } from '../../../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-a6-source-');

/** Every string reachable from the source's own fields (one level of arrays and objects). */
function heldStrings(source: object): string[] {
  const out: string[] = [];
  for (const value of Object.values(source)) {
    if (typeof value === 'string') out.push(value);
  }
  return out;
}

describe('DesiredSource', () => {
  it('keeps no copy of the file text between checks, good or bad (a million members is 14 MB each)', async () => {
    // Defect pinned: the last good text, and the last bad one with its "unsettled" twin,
    // were kept whole to compare with the next read.
    const path = join(tempDir(), 'desired.json');
    const big = JSON.stringify({ sets: [{ name: 'x', members: Array.from({ length: 5000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`) }] });
    await writeFile(path, big);
    let loads = 0;
    const load = (text: string): DesiredState => {
      loads += 1;
      if (text.startsWith('bad')) throw new IpsetsError('INVALID_INPUT', 'bad file');
      return { owner: 'azure-npm-', sets: [] };
    };
    const problems: string[] = [];
    const source = await DesiredSource.open(
      { path, debounceMs: 10, load, onChange: () => undefined, onProblem: (_kind, message) => problems.push(message), onRecovered: () => undefined, watch: false },
    );
    expect(loads).toBe(1);
    await source.check();
    // Unchanged bytes: not loaded again.
    expect(loads).toBe(1);
    expect(heldStrings(source).every((s) => s.length < 100)).toBe(true);
    await writeFile(path, `bad${big}`);
    await source.check();
    await new Promise((r) => setTimeout(r, 50));
    await source.check();
    expect(problems).toEqual(['bad file']);
    expect(heldStrings(source).every((s) => s.length < 100), heldStrings(source).map((s) => s.length).join(',')).toBe(true);
    source.close();
  });

  it('a change that lands between the first read and the start of watching is applied at start, not at the next interval tick', async () => {
    // Defect pinned: the agent read the file, set up its metrics server and only then
    // watched the folder; a ConfigMap swap in between waited for the interval tick
    // (seen in CI: the release check's running agent never applied the changed file).
    const path = join(tempDir(), 'desired.json');
    await writeFile(path, '{"v":1}');
    const changes: string[] = [];
    const source = await DesiredSource.open(
      {
        path,
        debounceMs: 10,
        load: (text) => ({ owner: `v${(JSON.parse(text) as { v: number }).v}-`, sets: [] }),
        onChange: (state) => changes.push(state.owner),
        onProblem: () => undefined,
        onRecovered: () => undefined,
      },
    );
    await writeFile(join(tempDir(), '.staged'), '{"v":2}');
    await rename(join(tempDir(), '.staged'), path);
    await source.start();
    expect(changes).toEqual(['v2-']);
    expect(source.desired.owner).toBe('v2-');
    source.close();
  });
});
