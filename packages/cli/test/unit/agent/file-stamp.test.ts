/**
 * The agent's interval check reads its desired file (or each part of a folder) only when
 * its stat stamp says the content may have changed (src/file-stamp.ts). Defect pinned:
 * every tick read and digested the whole file, 14 MB and ~60 ms at a million members,
 * to learn that nothing had changed.
 */
import { stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesiredState } from '@ipsets/core';
import { DesiredSource } from '../../../src/agent/desired-source.js';
import { DesiredParts } from '../../../src/desired/parts.js';
import { SETTLE_MS, settledStamp } from '../../../src/file-stamp.js';
import * as boundedRead from '../../../src/bounded-read.js';
import { useTempDir } from '../../../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-stamp-');

vi.mock('../../../src/bounded-read.js', async (original) => {
  const actual = await original<typeof import('../../../src/bounded-read.js')>();
  return { ...actual, readInputText: vi.fn(actual.readInputText), readInputFile: vi.fn(actual.readInputFile) };
});
const readsOfText = vi.mocked(boundedRead.readInputText);
const readsOfFile = vi.mocked(boundedRead.readInputFile);

afterEach(() => {
  readsOfText.mockClear();
  readsOfFile.mockClear();
});

/** A clock far enough ahead that every file written so far lies settled in the past. */
const later = (): number => Date.now() + 2 * SETTLE_MS;

async function openSource(path: string, now: () => number, changes: string[]): Promise<DesiredSource> {
  return DesiredSource.open({
    path,
    debounceMs: 10,
    load: (text): DesiredState => ({ owner: `${(JSON.parse(text) as { v: string }).v}-`, sets: [] }),
    onChange: (state) => changes.push(state.owner),
    onProblem: () => undefined,
    onRecovered: () => undefined,
    watch: false,
    now,
  });
}

describe('settledStamp (when a read vouches for the file it read)', () => {
  it('only for a file last changed more than SETTLE_MS before the read started', async () => {
    const path = join(tempDir(), 'f');
    await writeFile(path, 'x');
    const s = await stat(path, { bigint: true });
    const stamp = { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
    const changed = Number(s.ctimeNs) / 1e6;
    expect(settledStamp(stamp, changed + SETTLE_MS / 2)).toBeUndefined();
    expect(settledStamp(stamp, changed + SETTLE_MS + 1)).toBe(stamp);
    expect(settledStamp(undefined, changed + 10 * SETTLE_MS)).toBeUndefined();
  });
});

describe('DesiredSource: reading only what may have changed', () => {
  it('an unchanged, settled file is not read again at the next checks', async () => {
    const path = join(tempDir(), 'desired.json');
    await writeFile(path, '{"v":"a"}');
    const source = await openSource(path, later, []);
    readsOfText.mockClear();
    await source.check();
    await source.check();
    expect(readsOfText).not.toHaveBeenCalled();
    source.close();
  });

  it('a file changed within SETTLE_MS of its read is read at every check (a write in the same time tick would keep its times)', async () => {
    const path = join(tempDir(), 'desired.json');
    await writeFile(path, '{"v":"a"}');
    const source = await openSource(path, Date.now, []);
    readsOfText.mockClear();
    await source.check();
    await source.check();
    expect(readsOfText).toHaveBeenCalledTimes(2);
    source.close();
  });

  it('a write of the same size, even with its old times put back, is read and applied', async () => {
    const path = join(tempDir(), 'desired.json');
    await writeFile(path, '{"v":"a"}');
    const changes: string[] = [];
    const source = await openSource(path, later, changes);
    const before = await stat(path);
    await writeFile(path, '{"v":"b"}');
    // touch -d: the modification time as it was (the change time cannot be set back).
    await utimes(path, before.atime, before.mtime);
    await source.check();
    expect(changes).toEqual(['b-']);
    source.close();
  });

  it('a file replaced by a rename (an editor, a ConfigMap swap) is read and applied', async () => {
    const dir = tempDir();
    const path = join(dir, 'desired.json');
    await writeFile(path, '{"v":"a"}');
    const changes: string[] = [];
    const source = await openSource(path, later, changes);
    await writeFile(join(dir, 'next.json'), '{"v":"c"}');
    const { rename } = await import('node:fs/promises');
    await rename(join(dir, 'next.json'), path);
    await source.check();
    expect(changes).toEqual(['c-']);
    source.close();
  });
});

describe('DesiredParts: reading only the parts that may have changed', () => {
  const part = (name: string, member: string): string => `sets:\n  - type: namespace\n    name: ${name}\n    members: [${member}]\n`;

  it('re-reads only the part whose stamp changed, and applies it', async () => {
    const dir = tempDir();
    await writeFile(join(dir, 'a.yaml'), part('a', '10.0.0.1'));
    await writeFile(join(dir, 'b.yaml'), part('b', '10.0.0.2'));
    const parts = await DesiredParts.open(dir, { now: later });
    expect(readsOfFile).toHaveBeenCalledTimes(2);
    expect((await parts.check()).changed).toBe(false);
    expect(readsOfFile).toHaveBeenCalledTimes(2);
    await writeFile(join(dir, 'b.yaml'), part('b', '10.0.0.3'));
    const result = await parts.check();
    expect(result.changed).toBe(true);
    expect(result.reread).toEqual([join(dir, 'b.yaml')]);
    expect(readsOfFile).toHaveBeenCalledTimes(3);
    expect(parts.file.sets.find((s) => s.name === 'b')?.members).toEqual(['10.0.0.3']);
  });

  it('a bad part that stays bad is not read again, and its problem stays reported', async () => {
    const dir = tempDir();
    await writeFile(join(dir, 'a.yaml'), part('a', '10.0.0.1'));
    const parts = await DesiredParts.open(dir, { now: later });
    await writeFile(join(dir, 'a.yaml'), 'sets: [');
    const first = await parts.check();
    expect(first.problems).toHaveLength(1);
    const reads = readsOfFile.mock.calls.length;
    const second = await parts.check();
    expect(second.problems).toEqual(first.problems);
    expect(readsOfFile).toHaveBeenCalledTimes(reads);
  });
});
