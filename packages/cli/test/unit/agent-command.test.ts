/**
 * `agentCommand` in-process on the fake kernel (the e2e tests drive the built binary):
 * applies at start, follows the file however it is replaced (Kubernetes ConfigMap
 * `..data` symlink swaps included), re-reads it on every tick, keeps the last good
 * state, answers /livez and /readyz honestly, logs JSON lines, stops on its signal.
 */
import { mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentCommand } from '../../src/commands/agent.js';
import { agentDir, applied, kernelMembers, portOf, shop, start, testIo, useTempAgentDir } from '../helpers/agent-harness.js';

useTempAgentDir();
let dir: string;
beforeEach(() => {
  dir = agentDir.path;
});

describe('agentCommand', () => {
  it('applies, follows the file, keeps the last good state, serves metrics and probes, and stops', async () => {
    const file = join(dir, 'd.yaml');
    await writeFile(file, shop('10.0.0.1'));
    const t = testIo();
    const { stop, done } = start('d.yaml', t);
    const port = await portOf(t);
    const url = (p: string) => `http://127.0.0.1:${port}${p}`;
    await t.waitFor(applied('start'), { fromStart: true });
    expect(await kernelMembers()).toEqual(['10.0.0.1']);
    expect((await fetch(url('/livez'))).status).toBe(200);
    expect((await fetch(url('/readyz'))).status).toBe(200);

    await writeFile(file, shop('10.0.0.2'));
    await t.waitFor(applied('file changed'));
    expect(await kernelMembers()).toEqual(['10.0.0.2']);

    // Written outside the watched folder and renamed into place (one watch event, as a
    // ConfigMap swap is): an in-place write truncates first, and on a loaded machine the
    // 20 ms debounce could read the empty file between the truncate and the write,
    // counting two errors. The wait starts before the rename: the agent may log before
    // this test is scheduled again.
    const staged = join(dir, '..', `${basename(dir)}-bad.yaml`);
    await writeFile(staged, 'sets: [{ type: nope, name: shop }]\n');
    const refused = t.waitFor((l) => l.msg.includes('keeping the last good state'));
    await rename(staged, file);
    const bad = await refused;
    expect(bad).toMatchObject({ level: 'warn', problem: 'invalid' });
    const metrics = await (await fetch(url('/metrics'))).text();
    expect(metrics).toContain('ipsets_file_errors_total 1');
    expect(metrics).toContain('ipsets_desired_file_valid 0');
    expect(metrics).toContain('ipsets_converged 1');
    const ready = await fetch(url('/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/desired file is not usable/);
    // A bad file is no reason to restart the pod.
    expect((await fetch(url('/livez'))).status).toBe(200);
    expect((await fetch(url('/nope'))).status).toBe(404);

    await writeFile(file, shop('10.0.0.3'));
    await t.waitFor(applied('file changed'));
    expect((await fetch(url('/readyz'))).status).toBe(200);
    expect(await (await fetch(url('/metrics'))).text()).toContain('ipsets_desired_file_valid 1');

    stop('test');
    expect(await done).toBe(0);
    expect(t.lines.at(-1)).toMatchObject({ msg: 'stopped', signal: 'test', exitCode: 0 });
    await expect(fetch(url('/metrics'))).rejects.toThrow();
  });

  it('applies a Kubernetes ConfigMap update (..data symlink swap) within the debounce plus one second', async () => {
    // The layout the kubelet writes: desired.yaml -> ..data/desired.yaml, ..data -> ..<timestamp>.
    const cm = join(dir, 'cm');
    await mkdir(join(cm, '..2026_12_01_10_00_00.000000001'), { recursive: true });
    await writeFile(join(cm, '..2026_12_01_10_00_00.000000001', 'desired.yaml'), shop('10.0.0.1'));
    await symlink('..2026_12_01_10_00_00.000000001', join(cm, '..data'));
    await symlink('..data/desired.yaml', join(cm, 'desired.yaml'));
    const t = testIo();
    const { stop, done } = start('cm/desired.yaml', t, { debounceMs: 200 });
    await t.waitFor(applied('start'), { fromStart: true });
    expect(await kernelMembers()).toEqual(['10.0.0.1']);

    // An update: a new timestamped folder, a new ..data_tmp link renamed over ..data.
    await mkdir(join(cm, '..2026_12_01_10_05_00.000000002'));
    await writeFile(join(cm, '..2026_12_01_10_05_00.000000002', 'desired.yaml'), shop('10.0.0.1', '10.0.0.9'));
    await symlink('..2026_12_01_10_05_00.000000002', join(cm, '..data_tmp'));
    const swapped = performance.now();
    await rename(join(cm, '..data_tmp'), join(cm, '..data'));
    await rm(join(cm, '..2026_12_01_10_00_00.000000001'), { recursive: true });
    await t.waitFor(applied('file changed'));
    const took = performance.now() - swapped;
    expect(took).toBeLessThan(200 + 1000);
    expect(await kernelMembers()).toEqual(['10.0.0.1', '10.0.0.9']);
    stop('test');
    expect(await done).toBe(0);
  });

  it('a missed file event is caught by the next interval tick', async () => {
    const file = join(dir, 'd.yaml');
    await writeFile(file, shop('10.0.0.1'));
    const t = testIo();
    // No watcher at all: every event is "missed".
    const { stop, done } = start('d.yaml', t, { watch: false, intervalMs: 500 });
    await t.waitFor(applied('start'), { fromStart: true });
    const tmp = join(dir, 'd.yaml.tmp');
    await writeFile(tmp, shop('10.0.0.7'));
    await rename(tmp, file);
    await t.waitFor((l) => l.msg === 'apply converged' && l['lines'] !== 0, { ms: 3000 });
    expect(await kernelMembers()).toEqual(['10.0.0.7']);
    stop('test');
    expect(await done).toBe(0);
  });

  it('a file that disappears keeps the last good state, counted once, and /readyz says why', async () => {
    const file = join(dir, 'd.yaml');
    await writeFile(file, shop('10.0.0.1'));
    const t = testIo();
    const { stop, done } = start('d.yaml', t, { intervalMs: 300 });
    const port = await portOf(t);
    await t.waitFor(applied('start'), { fromStart: true });
    await unlink(file);
    const missing = await t.waitFor((l) => l['problem'] === 'missing');
    expect(missing.msg).toBe('the desired file is missing; keeping the last good state');
    // Several ticks later: still one error, the kernel still holds the last good state.
    await t.waitFor(applied('interval'));
    await t.waitFor(applied('interval'));
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('ipsets_file_errors_total 1');
    expect(await kernelMembers()).toEqual(['10.0.0.1']);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('cannot read');
    stop('test');
    expect(await done).toBe(0);
  });

  it('binds any address given explicitly, and refuses a malformed one before touching anything', async () => {
    await writeFile(join(dir, 'd.yaml'), shop('10.0.0.1'));
    const t = testIo();
    await expect(agentCommand('d.yaml', { kernel: 'fake', intervalMs: 1000, debounceMs: 10, metricsBindAddress: '0.0.0.0' }, t.io)).rejects.toThrow(/has no port/);
    const { stop, done } = start('d.yaml', t, { metricsBindAddress: '0.0.0.0:0' });
    const line = await t.waitFor((l) => l.msg === 'serving /metrics, /livez and /readyz', { fromStart: true });
    expect(String(line['address'])).toMatch(/^0\.0\.0\.0:\d+$/);
    stop('test');
    expect(await done).toBe(0);
  });

  it('refuses "-" (stdin): the agent must be able to re-read its file', async () => {
    const t = testIo();
    await expect(agentCommand('-', { kernel: 'fake', intervalMs: 1000, debounceMs: 10 }, t.io)).rejects.toThrow(/needs a FILE it can re-read/);
  });
});
