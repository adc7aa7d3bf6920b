/**
 * A desired state made of parts: every `*.yaml|*.yml|*.json` (and `.gz` of each) of a
 * folder — a projected volume of several ConfigMaps, or a folder a producer writes —
 * read as one desired state; per-part digests so that a change of one part re-reads
 * that part only; a bad or conflicting part keeps its last good content in force.
 */
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { DesiredParts, MAX_DECOMPRESSED_PART_BYTES, loadDesiredParts } from '../../../src/desired/parts.js';
import { writeProjectedVolume } from '../../helpers/projected-volume.js';
import { useTempDir } from '../../../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-parts-');

const nsPart = (name: string, members: readonly string[]) => `sets:\n  - type: namespace\n    name: ${name}\n    members: [${members.join(', ')}]\n`;

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isIpsetsError(error, 'INVALID_INPUT')) return error.message;
    throw error;
  }
  throw new Error('expected the parts to be refused');
}

describe('loadDesiredParts (apply, plan, diff of a folder)', () => {
  it('reads every yaml, yml, json and gzip part of a folder as one state, in name order, skipping dot-entries and other files', async () => {
    await writeFile(join(tempDir(), 'b-web.yaml'), nsPart('web', ['10.0.0.1', '10.0.0.2']));
    await writeFile(join(tempDir(), 'a-db.json'), JSON.stringify({ sets: [{ type: 'namespace', name: 'db', members: ['10.0.1.1'] }] }));
    await writeFile(join(tempDir(), 'c-lists.yml'), 'sets:\n  - type: nestedLabelOfPod\n    name: "all"\n    members:\n      - { type: namespace, name: web }\n      - { type: namespace, name: db }\n');
    await writeFile(join(tempDir(), 'd-cidr.yaml.gz'), gzipSync(nsPart('gz', ['10.0.2.1'])));
    // Not parts: a producer's temporary file, a README, kubelet's own entries.
    await writeFile(join(tempDir(), '.staged.yaml'), 'not: [valid');
    await writeFile(join(tempDir(), 'README.txt'), 'hello');
    const file = await loadDesiredParts(tempDir());
    expect(file.sets.map((s) => s.name)).toEqual(['db', 'web', 'all', 'gz']);
    expect(file.sets.find((s) => s.name === 'all')!.memberSets.map((m) => m.name)).toEqual(['web', 'db']);
    expect(file.sets.find((s) => s.name === 'gz')!.members).toEqual(['10.0.2.1']);
  });

  it('reads a kubelet volume through ..data (the visible entries are symlinks), ignoring the ..timestamp folder', async () => {
    await writeProjectedVolume(tempDir(), { 'web.yaml': nsPart('web', ['10.0.0.1']), 'db.yaml.gz': gzipSync(nsPart('db', ['10.0.1.1'])) });
    const file = await loadDesiredParts(tempDir());
    expect(file.sets.map((s) => s.name)).toEqual(['db', 'web']);
  });

  it('a set declared in two parts is refused naming both files', async () => {
    await writeFile(join(tempDir(), 'a.yaml'), nsPart('web', ['10.0.0.1']));
    await writeFile(join(tempDir(), 'b.yaml'), `sets:\n  - type: namespace\n    name: other\n  - type: namespace\n    name: web\n`);
    const message = await refusal(loadDesiredParts(tempDir()));
    expect(message).toContain(join(tempDir(), 'a.yaml'));
    expect(message).toContain(join(tempDir(), 'b.yaml'));
    expect(message).toMatch(/set "web" of type namespace .*declared in both/);
    expect(message).toContain('sets[1]');
  });

  it('parts with different owners (or schemes) are refused naming both files', async () => {
    await writeFile(join(tempDir(), 'a.yaml'), `owner: azure-npm-\n${nsPart('web', ['10.0.0.1'])}`);
    await writeFile(join(tempDir(), 'b.yaml'), nsPart('db', ['10.0.0.2']));
    const message = await refusal(loadDesiredParts(tempDir()));
    expect(message).toMatch(/owner prefix "ipsets-".*"azure-npm-"/);
    expect(message).toContain(join(tempDir(), 'a.yaml'));
    expect(message).toContain(join(tempDir(), 'b.yaml'));
    await writeFile(join(tempDir(), 'b.yaml'), `owner: azure-npm-\nscheme: fnv32\n${nsPart('db', ['10.0.0.2'])}`);
    expect(await refusal(loadDesiredParts(tempDir()))).toMatch(/naming scheme "fnv32".*"sha256-base36"/);
  });

  it('a list member set that no part declares is refused with the part and its line', async () => {
    await writeFile(join(tempDir(), 'a.yaml'), nsPart('web', ['10.0.0.1']));
    await writeFile(join(tempDir(), 'b.yaml'), 'sets:\n  - type: nestedLabelOfPod\n    name: all\n    members:\n      - { type: namespace, name: web }\n      - { type: namespace, name: nowhere }\n');
    const message = await refusal(loadDesiredParts(tempDir()));
    expect(message).toContain(join(tempDir(), 'b.yaml'));
    expect(message).toMatch(/line 6:9, sets\[0\]\.members\[1\]: member set "nowhere" of type namespace is not declared in any part/);
  });

  it('every bad part is reported, each with its own file name; a problem in a gzip part has its line in the decompressed text', async () => {
    await writeFile(join(tempDir(), 'a.yaml'), nsPart('web', ['10.0.0.1', '10.0.0.999']));
    await writeFile(join(tempDir(), 'b.yaml.gz'), gzipSync(`sets:\n  - type: namespace\n    name: db\n    members:\n      - 10.0.1.1\n      - not-an-ip\n`));
    const message = await refusal(loadDesiredParts(tempDir()));
    expect(message).toContain(`${join(tempDir(), 'a.yaml')}: 1 problem`);
    expect(message).toMatch(new RegExp(`${join(tempDir(), 'b.yaml.gz').replace(/[.]/g, '\\.')}: 1 problem; nothing was applied: line 6:9, sets\\[0\\]\\.members\\[1\\]`));
  });

  it('a folder with no parts is refused (an empty state is a part with no sets, never a missing folder)', async () => {
    await writeFile(join(tempDir(), 'notes.txt'), 'x');
    expect(await refusal(loadDesiredParts(tempDir()))).toMatch(/no desired-state parts/);
  });

  it('a part that is a FIFO or a directory is refused by the bounded reader, not waited on', async () => {
    await writeFile(join(tempDir(), 'a.yaml'), nsPart('web', ['10.0.0.1']));
    await symlink('/dev/zero', join(tempDir(), 'zero.yaml'));
    expect(await refusal(loadDesiredParts(tempDir()))).toMatch(/zero\.yaml.* is a character device; expected a regular file/);
  });

  it('gzip that is not gzip is refused with the file name', async () => {
    await writeFile(join(tempDir(), 'a.yaml.gz'), 'sets: []\n');
    expect(await refusal(loadDesiredParts(tempDir()))).toMatch(/a\.yaml\.gz.*is not valid gzip/);
  });

  it(`a gzip part that expands past the bound (${MAX_DECOMPRESSED_PART_BYTES / 2 ** 20} MiB) is refused while decompressing: a 1 GiB bomb costs neither 1 GiB nor long`, async () => {
    // 16 gzip members of 64 MiB of spaces each (gunzip reads them as one stream): 1 GiB of text from about 1 MiB.
    const member = gzipSync(Buffer.alloc(64 * 2 ** 20, 0x20), { level: 9 });
    await writeFile(join(tempDir(), 'bomb.yaml.gz'), Buffer.concat(Array.from({ length: 16 }, () => member)));
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const message = await refusal(loadDesiredParts(tempDir()));
    const ms = performance.now() - started;
    expect(message).toMatch(/bomb\.yaml\.gz.* expands past 64(\.00)? MiB when decompressed; expected at most 64(\.00)? MiB of text/);
    expect(ms).toBeLessThan(10_000);
    // Nothing near the 1 GiB the part expands to (the bound plus the stream's chunks).
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
  });
});

describe('DesiredParts (the agent following a folder of parts)', () => {
  const parts = (web: string[], db: string[]) => ({ 'web.yaml': nsPart('web', web), 'db.yaml.gz': gzipSync(nsPart('db', db)) });

  it('a ..data swap that changes one part re-reads that part only', async () => {
    await writeProjectedVolume(tempDir(), parts(['10.0.0.1'], ['10.0.1.1']));
    const source = await DesiredParts.open(tempDir());
    expect(source.file.sets.map((s) => s.name)).toEqual(['db', 'web']);
    const unchanged = await source.check();
    expect(unchanged).toMatchObject({ changed: false, reread: [], problems: [] });
    // The kubelet rewrites every file of the volume into a new ..timestamp folder.
    await writeProjectedVolume(tempDir(), parts(['10.0.0.1', '10.0.0.2'], ['10.0.1.1']));
    const result = await source.check();
    expect(result).toMatchObject({ changed: true, reread: [join(tempDir(), 'web.yaml')], problems: [] });
    expect(source.file.sets.find((s) => s.name === 'web')!.members).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('a bad part keeps its last good content; the other parts\' changes are applied; the problem names the file', async () => {
    await writeProjectedVolume(tempDir(), parts(['10.0.0.1'], ['10.0.1.1']));
    const source = await DesiredParts.open(tempDir());
    await writeProjectedVolume(tempDir(), { 'web.yaml': nsPart('web', ['10.0.0.300']), 'db.yaml.gz': gzipSync(nsPart('db', ['10.0.1.2'])) });
    const result = await source.check();
    expect(result.changed).toBe(true);
    expect(result.problems.map((p) => p.file)).toEqual([join(tempDir(), 'web.yaml')]);
    expect(result.problems[0]!.message).toMatch(/web\.yaml: 1 problem/);
    expect(source.file.sets.find((s) => s.name === 'web')!.members).toEqual(['10.0.0.1']);
    expect(source.file.sets.find((s) => s.name === 'db')!.members).toEqual(['10.0.1.2']);
    // The same bad bytes are not parsed again.
    expect((await source.check()).reread).toEqual([]);
  });

  it('a changed part that declares a set another part declares is refused naming both files; the rest stays', async () => {
    await writeProjectedVolume(tempDir(), parts(['10.0.0.1'], ['10.0.1.1']));
    const source = await DesiredParts.open(tempDir());
    await writeProjectedVolume(tempDir(), { ...parts(['10.0.0.1'], ['10.0.1.1']), 'web.yaml': `${nsPart('web', ['10.0.0.9'])}  - type: namespace\n    name: db\n` });
    const result = await source.check();
    expect(result.changed).toBe(false);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]!.file).toBe(join(tempDir(), 'web.yaml'));
    expect(result.problems[0]!.message).toContain(join(tempDir(), 'db.yaml.gz'));
    expect(result.problems[0]!.message).toMatch(/set "db" of type namespace is declared in both/);
    expect(source.file.sets.find((s) => s.name === 'web')!.members).toEqual(['10.0.0.1']);
  });

  it('a set moved from one part to another in one swap is accepted, whichever part comes first', async () => {
    await writeProjectedVolume(tempDir(), { 'a.yaml': nsPart('x', ['10.0.0.1']), 'b.yaml': nsPart('y', ['10.0.0.2']) });
    const source = await DesiredParts.open(tempDir());
    // "a" now declares y (still declared by the old b) and b drops it.
    await writeProjectedVolume(tempDir(), { 'a.yaml': `${nsPart('x', ['10.0.0.1'])}  - type: namespace\n    name: y\n    members: [10.0.0.3]\n`, 'b.yaml': 'sets: []\n' });
    const result = await source.check();
    expect(result).toMatchObject({ changed: true, problems: [] });
    expect(source.file.sets.find((s) => s.name === 'y')!.members).toEqual(['10.0.0.3']);
  });

  it('a part removed from the folder takes its sets out; an emptied folder keeps everything (reported missing)', async () => {
    await writeProjectedVolume(tempDir(), parts(['10.0.0.1'], ['10.0.1.1']));
    const source = await DesiredParts.open(tempDir());
    await writeProjectedVolume(tempDir(), { 'web.yaml': nsPart('web', ['10.0.0.1']) });
    expect(await source.check()).toMatchObject({ changed: true, problems: [] });
    expect(source.file.sets.map((s) => s.name)).toEqual(['web']);
    await writeProjectedVolume(tempDir(), {});
    const empty = await source.check();
    expect(empty.changed).toBe(false);
    expect(empty.missing).toMatch(/no desired-state parts/);
    expect(source.file.sets.map((s) => s.name)).toEqual(['web']);
  });
});
