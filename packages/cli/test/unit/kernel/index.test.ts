import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { DEFAULT_STATE_FILE } from '../../../src/defaults.js';
import { openKernel } from '../../../src/kernel/index.js';
import { useTempDir } from '../../../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-kernel-');

describe('the fake kernel', () => {
  it('openKernel --kernel fake persists under the working folder by default', async () => {
    const handle = await openKernel({ kernel: 'fake' }, tempDir());
    expect(handle.kind).toBe('fake');
    await handle.port.restore('-N x --exist nethash\n');
    await handle.persist();
    const json = JSON.parse(await readFile(join(tempDir(), DEFAULT_STATE_FILE), 'utf8')) as { format: string };
    expect(json.format).toMatch(/^ipsets-fake-kernel\//);
  });

  it('refuses options that do not fit the kernel', async () => {
    await expect(openKernel({ kernel: 'fake', netns: 'x' }, tempDir())).rejects.toThrow(/need --kernel linux/);
    await expect(openKernel({ kernel: 'linux', state: 'x' }, tempDir())).rejects.toThrow(/--state "x" needs --kernel fake/);
    await expect(openKernel({ kernel: 'bsd' }, tempDir())).rejects.toThrow(/unknown kernel "bsd"/);
  });
});

describe('the default kernel', () => {
  // `sudo ipsets apply node.yaml` used to "converge" into ./.ipsets-state.json.
  it('is the real one: no kind means linux, and --state alone is refused instead of meaning the fake', async () => {
    const handle = await openKernel({ ipset: '/nonexistent/ipset' }, tempDir());
    expect(handle.kind).toBe('linux');
    expect(handle.description).toBe('linux kernel (default network namespace)');
    await expect(openKernel({ state: 'k.json' }, tempDir())).rejects.toThrow(/--state "k.json" needs --kernel fake/);
  });

  it('gives restores and reads their own timeouts (a hung ipset is killed)', async () => {
    const script = join(tempDir(), 'hung-ipset');
    // Reads answer at once; a restore hangs until killed.
    await writeFile(script, '#!/bin/sh\ncase "$*" in *restore*) exec sleep 1000;; esac\nexit 0\n', { mode: 0o755 });
    const handle = await openKernel({ kernel: 'linux', ipset: script, timeoutMs: 300, readTimeoutMs: 5000 }, tempDir());
    expect((await handle.port.save()).exitCode).toBe(0);
    const started = Date.now();
    const error = await handle.port.restore('create a hash:ip\n').catch((e: unknown) => e);
    expect(isIpsetsError(error, 'TIMEOUT'), String(error)).toBe(true);
    expect((error as Error).message).toContain('ran longer than --timeout 300 ms');
    expect(Date.now() - started).toBeLessThan(4000);

    const slowReads = await openKernel({ kernel: 'linux', ipset: join(tempDir(), 'slow-save'), readTimeoutMs: 200 }, tempDir());
    await writeFile(join(tempDir(), 'slow-save'), '#!/bin/sh\nexec sleep 1000\n', { mode: 0o755 });
    await expect(slowReads.port.listNames()).rejects.toThrow(/ran longer than --read-timeout 200 ms and was killed; raise --read-timeout/);
  });
});
