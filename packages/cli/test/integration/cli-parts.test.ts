/**
 * The built binary on a folder of parts (no kernel needed): `plan DIR` and
 * `apply DIR --kernel fake` read the parts as one state; a gzip part that expands to
 * 1 GiB is refused within bounded memory and time (peak RSS measured by /usr/bin/time).
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ipsets, tempDir } from '../helpers/run-ipsets.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterAll(async () => {
  await cleanup?.();
});

describe('ipsets on a folder of parts', () => {
  it('plan DIR and apply DIR read every part as one desired state (a list may name sets of other parts)', async () => {
    const parts = join(dir, 'parts');
    await mkdir(parts);
    await writeFile(join(parts, 'shop.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    await writeFile(join(parts, 'web.json.gz'), gzipSync(JSON.stringify({ sets: [{ type: 'namespace', name: 'web', members: ['10.0.1.1'] }] })));
    await writeFile(join(parts, 'teams.yml'), 'sets:\n  - { type: keyLabelOfNamespace, name: team, members: [{ type: namespace, name: shop }, { type: namespace, name: web }] }\n');
    const plan = await ipsets(['plan', 'parts'], { cwd: dir });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout.match(/^-N /gm)).toHaveLength(3);
    const apply = await ipsets(['apply', 'parts', '--kernel', 'fake', '--json'], { cwd: dir });
    expect(apply.exitCode, apply.stderr).toBe(0);
    expect(JSON.parse(apply.stdout)).toMatchObject({ converged: true });
  });

  it('apply DIR refuses parts that declare the same set, naming both files (exit 2)', async () => {
    const parts = join(dir, 'clash');
    await mkdir(parts);
    await writeFile(join(parts, 'a.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    await writeFile(join(parts, 'b.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.2] }\n');
    const apply = await ipsets(['apply', 'clash', '--kernel', 'fake'], { cwd: dir });
    expect(apply.exitCode).toBe(2);
    expect(apply.stderr).toContain(`declared in both "${join(parts, 'a.yaml')}" (sets[0]) and "${join(parts, 'b.yaml')}" (sets[0])`);
  });

  it('plan, diff and apply take several FILEs as the parts of one state (a list names sets of another file); a set in two files is refused naming both', async () => {
    const files = join(dir, 'files');
    await mkdir(files);
    await writeFile(join(files, 'shop.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    await writeFile(join(files, 'web.json.gz'), gzipSync(JSON.stringify({ sets: [{ type: 'namespace', name: 'web', members: ['10.0.1.1'] }] })));
    await writeFile(join(files, 'teams'), 'sets:\n  - { type: keyLabelOfNamespace, name: team, members: [{ type: namespace, name: shop }, { type: namespace, name: web }] }\n');
    const plan = await ipsets(['plan', 'files/shop.yaml', 'files/web.json.gz', 'files/teams'], { cwd: dir });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout.match(/^-N /gm)).toHaveLength(3);
    const apply = await ipsets(['apply', 'files/shop.yaml', 'files/web.json.gz', 'files/teams', '--kernel', 'fake', '--state', 'files.state.json'], { cwd: dir });
    expect(apply.exitCode, apply.stderr).toBe(0);
    const diff = await ipsets(['diff', 'files/shop.yaml', 'files/web.json.gz', 'files/teams', '--kernel', 'fake', '--state', 'files.state.json', '--exit-code'], { cwd: dir });
    expect(diff.exitCode, diff.stdout + diff.stderr).toBe(0);
    const twice = await ipsets(['plan', 'files/shop.yaml', 'files/shop.yaml'], { cwd: dir });
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain(`declared in both "${join(files, 'shop.yaml')}" (sets[0]) and "${join(files, 'shop.yaml')}" (sets[0])`);
    const stdin = await ipsets(['plan', 'files/shop.yaml', '-'], { cwd: dir, input: 'sets: []\n' });
    expect(stdin.exitCode).toBe(2);
    expect(stdin.stderr).toMatch(/"-" \(stdin\) cannot be one of several FILEs/);
  });

  it.skipIf(!existsSync('/usr/bin/time'))('a gzip part expanding to 1 GiB is refused in bounded memory and time (exit 2, nothing read past 64 MiB)', async () => {
    const parts = join(dir, 'bomb');
    await mkdir(parts);
    await writeFile(join(parts, 'fine.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    // 16 gzip members of 64 MiB of spaces each: 1 GiB of text from about 1 MiB of gzip.
    const member = gzipSync(Buffer.alloc(64 * 2 ** 20, 0x20), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
    expect(bomb.length).toBeLessThan(2 ** 20 + 2 ** 19);
    await writeFile(join(parts, 'bomb.yaml.gz'), bomb);
    const started = performance.now();
    const run = await execa('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, BIN, 'plan', 'bomb'], { cwd: dir, reject: false, env: { NO_COLOR: '1' }, stdin: 'ignore', timeout: 60_000 });
    const ms = performance.now() - started;
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/bomb\.yaml\.gz" expands past 64(\.00)? MiB when decompressed; expected at most 64(\.00)? MiB of text/);
    const rssKb = Number(/maxrss_kb=(\d+)/.exec(run.stderr)?.[1]);
    // Node itself is about 50 MiB; the bound is 64 MiB of text: far from the 1 GiB the part expands to.
    expect(rssKb * 1024).toBeLessThan(256 * 2 ** 20);
    expect(ms).toBeLessThan(20_000);
    console.info(`[parts] 1 GiB gzip bomb (${(bomb.length / 2 ** 20).toFixed(2)} MiB on disk) refused by plan: peak RSS ${(rssKb / 1024).toFixed(0)} MiB, ${Math.round(ms)} ms wall (process start included)`);
  });
});
