import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForBrowser } from '../src/bundle.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
let out: string;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'ipsets-guard-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe('the browser bundle guard', () => {
  it('fails the bundle when an entry imports node:fs, naming the module and who imported it', async () => {
    await expect(bundleForBrowser({ entries: { bad: fixture('imports-node-fs.ts') }, outdir: out })).rejects.toThrow(
      /"node:fs" is a Node built-in, imported by .*imports-node-fs\.ts; a browser bundle must not use Node/,
    );
  });

  it('fails on a bare built-in name (path) and on a built-in subpath one module away (fs/promises)', async () => {
    await expect(bundleForBrowser({ entries: { bad: fixture('imports-bare-path.ts') }, outdir: out })).rejects.toThrow(
      /"path" is a Node built-in/,
    );
    await expect(bundleForBrowser({ entries: { bad: fixture('imports-helper-with-fs.ts') }, outdir: out })).rejects.toThrow(
      /"fs\/promises" is a Node built-in, imported by .*helper-with-fs\.ts/,
    );
  });

  it('fails on a reference to the Node global process, but not on a local variable of that name', async () => {
    await expect(bundleForBrowser({ entries: { bad: fixture('uses-process-global.ts') }, outdir: out })).rejects.toThrow(
      /refers to the Node global "process"/,
    );
    const ok = await bundleForBrowser({ entries: { ok: fixture('local-process.ts') }, outdir: out });
    expect(ok.outputs).toHaveLength(1);
  });

  it('bundles core and the fake kernel (the check page and the playground) without Node and without fast-check', async () => {
    const result = await bundleForBrowser({
      entries: {
        check: fileURLToPath(new URL('../src/browser/check.ts', import.meta.url)),
        playground: fileURLToPath(new URL('../../../examples/playground/playground.ts', import.meta.url)),
      },
      outdir: out,
    });
    expect(result.inputs.some((p) => p.startsWith('packages/core/src/'))).toBe(true);
    expect(result.inputs.some((p) => p === 'packages/fake-kernel/src/fake-kernel.ts')).toBe(true);
    expect(result.inputs.filter((p) => p.includes('fast-check') || p.includes('arbitraries'))).toEqual([]);
    for (const o of result.outputs) expect(o.bytes).toBeGreaterThan(10_000);
    console.log(`bundle sizes: ${result.outputs.map((o) => `${o.file.split('/').pop()} ${o.bytes} bytes`).join(', ')}`);
  });
});
