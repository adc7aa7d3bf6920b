/**
 * End-to-end: `ipsets agent` on the fake kernel — applies at start, re-applies when
 * the file changes, keeps the last good state when the file turns bad, repairs drift
 * on the interval, serves metrics on loopback, and stops cleanly on SIGTERM.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { expectExit, ipsets, spawnIpsets, tempDir } from '../helpers/run-ipsets.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

const SHOP = kernelName('ns-shop');

/** Collects a stream's text and resolves when a pattern shows up (or rejects after a timeout). */
function watchText(stream: NodeJS.ReadableStream) {
  let text = '';
  const waiters: { re: RegExp; from: number; ok: (m: RegExpMatchArray) => void }[] = [];
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of [...waiters]) {
      const m = text.slice(w.from).match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(m);
      }
    }
  });
  return {
    get text() {
      return text;
    },
    /** Waits for `re` in output that arrives after this call (or already present when `fromStart`). */
    waitFor(re: RegExp, fromStart = false, ms = 20_000): Promise<RegExpMatchArray> {
      const from = fromStart ? 0 : text.length;
      const m = text.slice(from).match(re);
      if (m) return Promise.resolve(m);
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`timed out waiting for ${re} in:\n${text}`)), ms);
        waiters.push({ re, from, ok: (x) => (clearTimeout(timer), ok(x)) });
      });
    },
  };
}

async function members(set: string): Promise<string[]> {
  const save = await ipsets(['save'], { cwd: dir });
  return (parseSave(save.stdout).sets.find((s) => s.name === set)?.members ?? []).slice().sort();
}

describe('ipsets agent', () => {
  it('applies, follows the file, keeps the last good state, repairs drift, serves metrics, stops on SIGTERM', async () => {
    const file = join(dir, 'desired.yaml');
    await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    const agent = spawnIpsets(['agent', 'desired.yaml', '--metrics', '127.0.0.1:0', '--interval', '1s', '--debounce', '50ms'], { cwd: dir });
    const err = watchText(agent.stderr!);
    try {
      const [, port] = await err.waitFor(/metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/, true);
      await err.waitFor(/apply \(start\): converged/, true);
      expect(await members(SHOP)).toEqual(['10.0.0.1']);

      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain('ipsets_converged 1');
      expect(metrics).toMatch(/ipsets_operations_total\{[^}]*operation="reconcile"[^}]*\} [1-9]/);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

      // The file changes: applied after the debounce.
      await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1, 10.0.0.2] }\n');
      await err.waitFor(/apply \(file changed\): converged/);
      expect(await members(SHOP)).toEqual(['10.0.0.1', '10.0.0.2']);

      // The file turns bad: reported, the last good state stays.
      await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.300] }\n');
      await err.waitFor(/was not applied, keeping the last good state/);
      expect(err.text).toContain('"10.0.0.300"');
      const afterBad = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(afterBad).toContain('ipsets_file_errors_total 1');

      // Drift (someone resets the kernel): repaired on the interval.
      await expectExit(ipsets(['reset'], { cwd: dir }), 0);
      await err.waitFor(/apply \(interval\): converged, [1-9]/);
      expect(await members(SHOP)).toEqual(['10.0.0.1', '10.0.0.2']);
    } finally {
      agent.kill('SIGTERM');
    }
    const result = await agent;
    expect(result.exitCode, err.text).toBe(0);
    expect(err.text).toContain('stopping (SIGTERM)');
    expect(err.text).toContain('stopped');
  });

  it('--once applies and exits with the apply\'s code', async () => {
    await writeFile(join(dir, 'd.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    const run = await ipsets(['agent', 'd.yaml', '--once'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('apply (once): converged');
    expect(await members(SHOP)).toEqual(['10.0.0.1']);
  });
});
