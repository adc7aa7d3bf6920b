/**
 * The agent as the person on call reads it: an empty desired file is kept out like an
 * invalid one (never counted toward --max-failures, never a restart loop), /metrics
 * carries the process's memory and the versions running, and the operator's guide's
 * metrics table lists exactly what /metrics serves.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentCommand } from '../../src/commands/agent.js';
import { cliVersion } from '../../src/program/index.js';
import { agentDir, applied, kernelMembers, portOf, shop, start, testIo, useTempAgentDir } from '../helpers/agent-harness.js';

useTempAgentDir();
let dir: string;
beforeEach(() => {
  dir = agentDir.path;
});

describe('an empty desired file that would destroy owned sets (it used to count as a failed apply on every tick: exit 5 after --max-failures)', () => {
  it('keeps the last good state, counts nothing toward --max-failures, says why on /readyz, and recovers with the next good file', async () => {
    const file = join(dir, 'd.yaml');
    await writeFile(file, shop('10.0.0.1'));
    const t = testIo();
    const { stop, done } = start('d.yaml', t, { intervalMs: 150, maxFailures: 2 });
    const port = await portOf(t);
    await t.waitFor(applied('start'), { fromStart: true });
    await writeFile(file, 'sets: []\n');
    const refused = await t.waitFor((l) => l.msg === 'the desired state was refused; keeping the last good state');
    expect(String((refused['err'] as { message: string }).message)).toContain('has no sets, and applying it would destroy 1 owned set(s)');
    // A second at a 150 ms interval is several ticks past --max-failures 2: still running, nothing counted, the kernel untouched.
    await new Promise((ok) => setTimeout(ok, 1000));
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('ipsets_consecutive_failures 0');
    expect(metrics).toContain('ipsets_desired_file_valid 0');
    expect(metrics).toContain('ipsets_file_errors_total 1');
    expect(await kernelMembers()).toEqual(['10.0.0.1']);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('has no sets');
    expect(t.lines.some((l) => l.msg.includes('consecutive-failure limit'))).toBe(false);
    // A good file again: applied, ready, valid.
    await writeFile(file, shop('10.0.0.2'));
    await t.waitFor((l) => applied()(l) && l['trigger'] !== 'start');
    await t.waitFor(applied('interval'));
    expect(await kernelMembers()).toEqual(['10.0.0.2']);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toContain('ipsets_desired_file_valid 1');
    stop('test');
    expect(await done).toBe(0);
  });

  it('--once: exit 2 (bad input), as the exit-code table says, not 1', async () => {
    await writeFile(join(dir, 'd.yaml'), shop('10.0.0.1'));
    expect(await agentCommand('d.yaml', { kernel: 'fake', intervalMs: 1000, debounceMs: 10, once: true, logFormat: 'json' }, testIo().io)).toBe(0);
    await writeFile(join(dir, 'd.yaml'), 'sets: []\n');
    expect(await agentCommand('d.yaml', { kernel: 'fake', intervalMs: 1000, debounceMs: 10, once: true, logFormat: 'json' }, testIo().io)).toBe(2);
    expect(await kernelMembers()).toEqual(['10.0.0.1']);
  });
});

/** Metric names of a Prometheus text exposition (`# TYPE name type` lines). */
function metricNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
}

describe('/metrics for the person on call (it had no process_* or nodejs_* metrics and no build info)', () => {
  it('serves process_resident_memory_bytes, nodejs_* and ipsets_build_info{version,ipset_version}', async () => {
    await writeFile(join(dir, 'd.yaml'), shop('10.0.0.1'));
    const t = testIo();
    const { stop, done } = start('d.yaml', t);
    const port = await portOf(t);
    await t.waitFor(applied('start'), { fromStart: true });
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(metricNames(text).some((n) => n.startsWith('nodejs_heap'))).toBe(true);
    // The fake kernel runs no ipset: its label says so.
    expect(text).toContain(`ipsets_build_info{version="${cliVersion()}",ipset_version="fake"} 1`);
    stop('test');
    expect(await done).toBe(0);
  });

  it('the operator\'s guide lists every metric the agent serves, and nothing it does not (the table cannot drift)', async () => {
    await writeFile(join(dir, 'd.yaml'), shop('10.0.0.1'));
    const t = testIo();
    const { stop, done } = start('d.yaml', t);
    const port = await portOf(t);
    await t.waitFor(applied('start'), { fromStart: true });
    const served = metricNames(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    stop('test');
    expect(await done).toBe(0);
    const guide = await readFile(new URL('../../../../docs/operating.md', import.meta.url), 'utf8');
    const table = guide.slice(guide.indexOf('### Metrics'), guide.indexOf('Alerts worth having'));
    // Rows start with the metric's name in backticks; labels in braces are the metric's labels.
    const listed = [...table.matchAll(/^\| `([a-z_]+)(?:\{[^}]*\})?`/gm)].map((m) => m[1]!);
    const ours = served.filter((n) => n.startsWith('ipsets_'));
    expect([...listed].filter((n) => n.startsWith('ipsets_')).sort()).toEqual([...ours].sort());
    // prom-client's defaults are one row: the guide names the families, and each is served.
    expect(table).toMatch(/`process_\*`, `nodejs_\*`/);
    expect(served.some((n) => n.startsWith('process_'))).toBe(true);
    expect(served.some((n) => n.startsWith('nodejs_'))).toBe(true);
    expect(served.filter((n) => !n.startsWith('ipsets_') && !n.startsWith('process_') && !n.startsWith('nodejs_'))).toEqual([]);
  });
});
