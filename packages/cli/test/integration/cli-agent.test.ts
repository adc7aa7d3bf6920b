/**
 * End-to-end: `ipsets agent` on the fake kernel — applies at start, re-applies when
 * the file changes, keeps the last good state when the file turns bad, repairs drift
 * on the interval, serves metrics on loopback, and stops cleanly on SIGTERM.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { expectExit, ipsets, jsonLines, spawnIpsets, tempDir, watchText } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

const SHOP = kernelName('ns-shop', { owner: DEFAULT_CLI_OWNER });

async function members(set: string): Promise<string[]> {
  const save = await ipsets(['save', '--kernel', 'fake'], { cwd: dir });
  return [...(parseSave(save.stdout).sets.find((s) => s.name === set)?.members ?? [])].sort();
}

describe('ipsets agent', () => {
  it('applies, follows the file, keeps the last good state, repairs drift, serves metrics and probes, stops on SIGTERM; every stderr line is JSON', async () => {
    const file = join(dir, 'desired.yaml');
    await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    const agent = spawnIpsets(['agent', '--kernel', 'fake', 'desired.yaml', '--metrics-bind-address', '127.0.0.1:0', '--interval', '1s', '--debounce', '50ms'], { cwd: dir });
    const err = watchText(agent.stderr!);
    try {
      const [, port] = await err.waitFor(/"address":"127\.0\.0\.1:(\d+)"/, true);
      await err.waitFor(/"trigger":"start","converged":true/, true);
      expect(await members(SHOP)).toEqual(['10.0.0.1']);

      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain('ipsets_converged 1');
      expect(metrics).toMatch(/ipsets_operations_total\{[^}]*operation="reconcile"[^}]*\} [1-9]/);
      expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

      // The file changes: applied after the debounce.
      await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1, 10.0.0.2] }\n');
      await err.waitFor(/"trigger":"file changed","converged":true/);
      expect(await members(SHOP)).toEqual(['10.0.0.1', '10.0.0.2']);

      // The file turns bad: reported, the last good state stays.
      await writeFile(file, 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.300] }\n');
      await err.waitFor(/keeping the last good state/);
      expect(err.text).toContain('\\"10.0.0.300\\"');
      const afterBad = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(afterBad).toContain('ipsets_file_errors_total 1');
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);

      // Drift (someone resets the kernel): repaired on the interval.
      await expectExit(ipsets(['reset', '--kernel', 'fake'], { cwd: dir }), 0);
      await err.waitFor(/"trigger":"interval","converged":true,"durationMs":\d+,"lines":[1-9]/);
      expect(await members(SHOP)).toEqual(['10.0.0.1', '10.0.0.2']);
    } finally {
      agent.kill('SIGTERM');
    }
    const result = await agent;
    expect(result.exitCode, err.text).toBe(0);
    const lines = jsonLines(err.text);
    for (const line of lines) expect(line).toMatchObject({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'stop requested; letting the apply in flight finish', signal: 'SIGTERM' }));
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped', signal: 'SIGTERM', exitCode: 0 });
  });

  it('--once applies and exits with the apply\'s code; --log-format text writes one readable line per event', async () => {
    await writeFile(join(dir, 'd.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    const run = await ipsets(['agent', '--kernel', 'fake', 'd.yaml', '--once', '--log-format', 'text'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^\S+ INFO  apply converged trigger=once converged=true/m);
    expect(await members(SHOP)).toEqual(['10.0.0.1']);
  });
});

describe('the default kernel', () => {
  // `sudo ipsets apply node.yaml` used to "converge" into ./.ipsets-state.json.
  it('is the real one: apply without --kernel runs ipset (here a missing binary) and writes no state file', async () => {
    await writeFile(join(dir, 'd.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
    // A lock file of its own: the test never takes the host's kernel lock.
    const run = await ipsets(['apply', 'd.yaml', '--ipset', '/nonexistent/ipset', '--lock-file', 'test.lock'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    expect(run.stderr + run.stdout).toContain('"/nonexistent/ipset" was not found');
    await expect(readFile(join(dir, '.ipsets-state.json'))).rejects.toThrow(/ENOENT/);
    const state = await ipsets(['apply', 'd.yaml', '--state', 'k.json'], { cwd: dir });
    expect(state.exitCode).toBe(2);
    expect(state.stderr).toContain('--state "k.json" needs --kernel fake');
  });

  it('- reads the desired file from stdin; --json carries schemaVersion 1', async () => {
    const run = await ipsets(['apply', '-', '--kernel', 'fake', '--json'], {
      cwd: dir,
      input: 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.5] }\n',
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { schemaVersion: number; converged: boolean; sets: Record<string, number> };
    expect(json.schemaVersion).toBe(1);
    expect(json.sets).toMatchObject({ created: 1, updated: 0, unchanged: 0, destroyed: 0, inUse: 0, failed: 0 });
    expect(await members(SHOP)).toEqual(['10.0.0.5']);
    const save = JSON.parse((await ipsets(['save', '--kernel', 'fake', '--json'], { cwd: dir })).stdout) as { schemaVersion: number; sets: { name: string }[] };
    expect(save.schemaVersion).toBe(1);
    expect(save.sets.map((s) => s.name)).toEqual([SHOP]);
    const diff = JSON.parse((await ipsets(['diff', '-', '--kernel', 'fake', '--json'], { cwd: dir, input: 'sets: []\n' })).stdout) as { schemaVersion: number; sets: { change: string }[] };
    expect(diff).toMatchObject({ schemaVersion: 1, sets: [{ change: 'destroy' }] });
  });
});
