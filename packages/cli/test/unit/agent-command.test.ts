/**
 * `agentCommand` in-process (the e2e test drives the built binary): applies at start,
 * follows file changes, keeps the last good state, serves metrics, stops on its signal.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kernelName } from '@ipsets/core';
import { agentCommand } from '../../src/commands/agent.js';
import type { CliIo } from '../../src/cli-io.js';
import { loadFakeKernel } from '../../src/kernel.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipsets-agent-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function testIo() {
  let err = '';
  let out = '';
  const waiters: { re: RegExp; ok: (m: RegExpMatchArray) => void }[] = [];
  const io: CliIo = {
    stdout: { write: (t: string) => (out += t) },
    stderr: {
      write: (t: string) => {
        err += t;
        for (const w of [...waiters]) {
          const m = err.match(w.re);
          if (m) {
            waiters.splice(waiters.indexOf(w), 1);
            w.ok(m);
          }
        }
        return true;
      },
    },
    env: {},
    cwd: dir,
    now: () => performance.now(),
  };
  return {
    io,
    get err() {
      return err;
    },
    get out() {
      return out;
    },
    waitFor(re: RegExp): Promise<RegExpMatchArray> {
      const m = err.match(re);
      if (m) return Promise.resolve(m);
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`timed out waiting for ${re} in:\n${err}`)), 20_000);
        waiters.push({ re, ok: (x) => (clearTimeout(timer), ok(x)) });
      });
    },
  };
}

const SHOP = kernelName('ns-shop');

describe('agentCommand', () => {
  it('applies, follows the file, keeps the last good state, serves metrics and stops', async () => {
    const file = join(dir, 'd.yaml');
    await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    const t = testIo();
    let stop!: (why: string) => void;
    const stopSignal = new Promise<string>((ok) => (stop = ok));
    const done = agentCommand('d.yaml', { intervalMs: 60_000, debounceMs: 20, metrics: '127.0.0.1:0', stopSignal }, t.io);

    const [, port] = await t.waitFor(/metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/);
    await t.waitFor(/apply \(start\): converged/);
    expect((await loadFakeKernel(join(dir, '.ipsets-state.json'))).members(SHOP)).toEqual(['10.0.0.1']);

    await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.2] }\n');
    await t.waitFor(/apply \(file changed\): converged/);
    expect((await loadFakeKernel(join(dir, '.ipsets-state.json'))).members(SHOP)).toEqual(['10.0.0.2']);

    await writeFile(file, 'sets: [{ type: nope, name: shop }]\n');
    await t.waitFor(/keeping the last good state/);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('ipsets_file_errors_total 1');
    expect(metrics).toContain('ipsets_converged 1');
    expect((await fetch(`http://127.0.0.1:${port}/nope`)).status).toBe(404);

    stop('test');
    expect(await done).toBe(0);
    expect(t.err).toContain('stopping (test)');
    expect(t.err.trimEnd().endsWith('stopped')).toBe(true);
    // The server is closed once the agent has stopped.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('refuses a non-loopback metrics address before touching anything', async () => {
    await writeFile(join(dir, 'd.yaml'), 'sets: []\n');
    const t = testIo();
    await expect(agentCommand('d.yaml', { intervalMs: 1000, debounceMs: 10, metrics: '0.0.0.0:9464' }, t.io)).rejects.toThrow(/not loopback/);
  });
});
