import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { DEFAULT_STATE_FILE } from '../../../src/defaults.js';
import { openKernel } from '../../../src/kernel/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipsets-kernel-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the fake kernel', () => {
  it('openKernel --kernel fake persists under the working folder by default', async () => {
    const handle = await openKernel({ kernel: 'fake' }, dir);
    expect(handle.kind).toBe('fake');
    await handle.port.restore('-N x --exist nethash\n');
    await handle.persist();
    const json = JSON.parse(await readFile(join(dir, DEFAULT_STATE_FILE), 'utf8')) as { format: string };
    expect(json.format).toMatch(/^ipsets-fake-kernel\//);
  });

  it('refuses options that do not fit the kernel', async () => {
    await expect(openKernel({ kernel: 'fake', netns: 'x' }, dir)).rejects.toThrow(/need --kernel linux/);
    await expect(openKernel({ kernel: 'linux', state: 'x' }, dir)).rejects.toThrow(/--state "x" needs --kernel fake/);
    await expect(openKernel({ kernel: 'bsd' }, dir)).rejects.toThrow(/unknown kernel "bsd"/);
  });
});

describe('the default kernel', () => {
  // `sudo ipsets apply node.yaml` used to "converge" into ./.ipsets-state.json.
  it('is the real one: no kind means linux, and --state alone is refused instead of meaning the fake', async () => {
    const handle = await openKernel({ ipset: '/nonexistent/ipset' }, dir);
    expect(handle.kind).toBe('linux');
    expect(handle.description).toBe('linux kernel (default network namespace)');
    await expect(openKernel({ state: 'k.json' }, dir)).rejects.toThrow(/--state "k.json" needs --kernel fake/);
  });

  it('gives restores and reads their own timeouts (a hung ipset is killed)', async () => {
    const script = join(dir, 'hung-ipset');
    // Reads answer at once; a restore hangs until killed.
    await writeFile(script, '#!/bin/sh\ncase "$*" in *restore*) exec sleep 1000;; esac\nexit 0\n', { mode: 0o755 });
    const handle = await openKernel({ kernel: 'linux', ipset: script, timeoutMs: 300, readTimeoutMs: 5000 }, dir);
    expect((await handle.port.save()).exitCode).toBe(0);
    const started = Date.now();
    const error = await handle.port.restore('create a hash:ip\n').catch((e: unknown) => e);
    expect(isIpsetsError(error, 'TIMEOUT'), String(error)).toBe(true);
    expect((error as Error).message).toContain('ran longer than --timeout 300 ms');
    expect(Date.now() - started).toBeLessThan(4000);

    const slowReads = await openKernel({ kernel: 'linux', ipset: join(dir, 'slow-save'), readTimeoutMs: 200 }, dir);
    await writeFile(join(dir, 'slow-save'), '#!/bin/sh\nexec sleep 1000\n', { mode: 0o755 });
    await expect(slowReads.port.listNames()).rejects.toThrow(/ran longer than --read-timeout 200 ms and was killed; raise --read-timeout/);
  });
});
