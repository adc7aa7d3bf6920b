/**
 * End-to-end: the agent reads its desired file through the same bounded reader as
 * `apply`. Defect pinned: the agent read the file with a plain `readFile`, so a FIFO in
 * its place hung it forever (with `/readyz` still 200, and a start on a FIFO ignored
 * SIGTERM), a 300 MB file was read whole (1 GB of RSS, above the DaemonSet's limit),
 * non-UTF-8 bytes were accepted, and a deeply nested YAML flow list was built by the
 * parser before its depth was checked.
 */
import { execFile } from 'node:child_process';
import { readFile, rename, rm, truncate, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { ipsets, jsonLines, spawnIpsets, tempDir, watchText } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

const run = promisify(execFile);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

const SHOP = kernelName('ns-shop', { owner: DEFAULT_CLI_OWNER });
const GOOD = 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n';

async function members(): Promise<string[]> {
  const save = await ipsets(['save', '--kernel', 'fake'], { cwd: dir });
  return [...(parseSave(save.stdout).sets.find((s) => s.name === SHOP)?.members ?? [])].sort();
}

/** The message `apply` refuses the file with (on a kernel of its own: the agent's is not touched). */
async function applyMessage(file: string): Promise<string> {
  const result = await ipsets(['apply', '--kernel', 'fake', '--state', 'apply-only.json', file], { cwd: dir });
  expect(result.exitCode, result.stderr).toBe(2);
  const m = /^ipsets: error: (.*)$/m.exec(result.stderr);
  expect(m, result.stderr).not.toBeNull();
  return m![1]!;
}

/** Peak resident set size of a process, in MiB (Linux `VmHWM`). */
async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

const DEEP_LEVELS = 1_000_000;

/** Ways a desired file can be unfit, each put in the file's place. */
const BAD_FILES: { name: string; put: (path: string) => Promise<void>; reason: RegExp; applyReason?: RegExp }[] = [
  { name: 'a FIFO', put: async (path) => void (await run('mkfifo', [path])), reason: /is a FIFO \(named pipe\); expected a regular file/ },
  // `apply DIR` reads a folder as the parts of one state (here: none); the agent, given a file, wants a file.
  { name: 'a directory', put: (path) => mkdir(path), reason: /is a directory; expected a regular file/, applyReason: /no desired-state parts in/ },
  {
    name: 'a 300 MB file',
    put: async (path) => {
      await writeFile(path, GOOD);
      await truncate(path, 300 * 1024 * 1024);
    },
    reason: /is 300.00 MiB; expected at most 256.00 MiB/,
  },
  { name: 'non-UTF-8 text', put: (path) => writeFile(path, Buffer.from('sets:\n  - { type: namespace, name: sh\xffop, members: [10.0.0.1] }\n', 'latin1')), reason: /is not valid UTF-8: byte 0xff/ },
  { name: 'deep YAML flow nesting (2 MB)', put: (path) => writeFile(path, `sets: ${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}\n`), reason: /nests more than 64 levels deep/ },
];

describe('ipsets agent: the input limits apply has', () => {
  it('refuses a FIFO, a directory, a 300 MB file, non-UTF-8 and deep YAML with the message apply gives; /readyz 503 names it; the last good state stays; peak RSS stays low; SIGTERM exits promptly', async () => {
    const file = join(dir, 'desired.yaml');
    await writeFile(file, GOOD);
    const agent = spawnIpsets(['agent', '--kernel', 'fake', 'desired.yaml', '--metrics-bind-address', '127.0.0.1:0', '--interval', '1s', '--debounce', '50ms'], { cwd: dir });
    const err = watchText(agent.stderr!);
    try {
      const [, port] = await err.waitFor(/"address":"127\.0\.0\.1:(\d+)"/, true);
      await err.waitFor(/"trigger":"start","converged":true/, true);
      const readyz = async () => {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        return { status: response.status, body: await response.text() };
      };
      expect((await readyz()).status).toBe(200);
      for (const bad of BAD_FILES) {
        await rm(file, { recursive: true, force: true });
        const reported = err.waitFor(/the desired file cannot be read; keeping the last good state|the desired file is invalid; keeping the last good state/);
        await bad.put(file);
        await reported;
        const message = await applyMessage('desired.yaml');
        expect(message, bad.name).toMatch(bad.applyReason ?? bad.reason);
        const probe = await readyz();
        expect(probe.status, bad.name).toBe(503);
        if (bad.applyReason === undefined) expect(probe.body, bad.name).toContain(message);
        else expect(probe.body, bad.name).toMatch(bad.reason);
        expect(await members(), bad.name).toEqual(['10.0.0.1']);
        // Good again: a staged file renamed over the bad one.
        const recovered = err.waitFor(/the desired file is valid again/);
        await writeFile(join(dir, '.staged'), GOOD);
        await rm(file, { recursive: true, force: true });
        await rename(join(dir, '.staged'), file);
        await recovered;
      }
      // The deep file again, left in place for the stop.
      const reported = err.waitFor(/keeping the last good state/);
      await BAD_FILES.at(-1)!.put(`${file}.deep`);
      await rename(`${file}.deep`, file);
      await reported;
      // The 300 MB file was never read and the deep list never built (the agent alone is ~70 MiB).
      expect(await peakRssMiB(agent.pid!)).toBeLessThan(200);
      expect((await readyz()).status).toBe(503);
      expect(await members()).toEqual(['10.0.0.1']);
    } finally {
      agent.kill('SIGTERM');
    }
    const stopAsked = Date.now();
    const result = await agent;
    expect(Date.now() - stopAsked).toBeLessThan(5000);
    expect(result.exitCode, err.text).toBe(0);
    const lines = jsonLines(err.text);
    expect(lines.filter((l) => l['msg'] === 'apply failed')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped', signal: 'SIGTERM', exitCode: 0 });
  }, 120_000);

  it('started on a FIFO: refused at once with the message apply gives (exit 2), never waiting for a writer', async () => {
    const file = join(dir, 'desired.yaml');
    await run('mkfifo', [file]);
    const started = Date.now();
    const result = await ipsets(['agent', '--kernel', 'fake', 'desired.yaml', '--no-metrics'], { cwd: dir });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain(await applyMessage('desired.yaml'));
    expect(await members()).toEqual([]);
  });
});
