/**
 * `ipsets agent DIR` in-process on the fake kernel: a folder of parts laid out as the
 * kubelet lays out a projected volume of several ConfigMaps. A `..data` swap that
 * changes one part re-reads that part only (one log line names it) and converges; a
 * part that declares a set another part declares is refused naming both files, the
 * other parts stay in force, and /readyz names the file.
 */
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { kernelName } from '@ipsets/core';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';
import { loadFakeKernel } from '../../src/kernel/fake-state-file.js';
import { agentDir, applied, portOf, start, testIo, useTempAgentDir } from '../helpers/agent-harness.js';
import { writeProjectedVolume } from '../helpers/projected-volume.js';

useTempAgentDir();
let dir: string;
beforeEach(() => {
  dir = agentDir.path;
});

const ns = (name: string, ...members: string[]) => `  - { type: namespace, name: ${name}, members: [${members.join(', ')}] }\n`;
const members = async (name: string) => (await loadFakeKernel(join(dir, '.ipsets-state.json'))).members(kernelName(`ns-${name}`, { owner: DEFAULT_CLI_OWNER }));

describe('agentCommand on a folder of parts', () => {
  it('applies every part, re-reads only the part a ..data swap changed, refuses a part that redeclares a set of another', async () => {
    const volume = join(dir, 'desired');
    const payload = (web: string) => ({
      'shop.yaml': `sets:\n${ns('shop', '10.0.0.1')}`,
      'web.yaml.gz': gzipSync(`sets:\n${ns('web', web)}`),
      'lists.json': JSON.stringify({ sets: [{ type: 'nestedLabelOfPod', name: 'front', members: [{ type: 'namespace', name: 'web' }, { type: 'namespace', name: 'shop' }] }] }),
    });
    await writeProjectedVolume(volume, payload('10.0.1.1'));
    const t = testIo();
    const { stop, done } = start('desired', t, { debounceMs: 50 });
    const port = await portOf(t);
    await t.waitFor(applied('start'), { fromStart: true });
    expect(await members('shop')).toEqual(['10.0.0.1']);
    expect(await members('web')).toEqual(['10.0.1.1']);
    expect(t.lines.find((l) => l.msg === 'agent started')).toMatchObject({ file: volume, parts: 3 });

    const reread = t.waitFor((l) => l.msg === 'desired part changed; re-read it');
    const converged = t.waitFor(applied('file changed'));
    await writeProjectedVolume(volume, payload('10.0.1.2'));
    expect((await reread)['part']).toBe(join(volume, 'web.yaml.gz'));
    await converged;
    expect(t.lines.filter((l) => l.msg === 'desired part changed; re-read it').map((l) => l['part'])).toEqual([join(volume, 'web.yaml.gz')]);
    expect(await members('web')).toEqual(['10.0.1.2']);

    // shop.yaml now also declares web, which web.yaml.gz declares: refused, both named.
    const refused = t.waitFor((l) => l.msg.includes('keeping the last good state'));
    await writeProjectedVolume(volume, { ...payload('10.0.1.2'), 'shop.yaml': `sets:\n${ns('shop', '10.0.0.9')}${ns('web', '10.0.9.9')}` });
    const warning = await refused;
    expect(warning).toMatchObject({ level: 'warn', problem: 'invalid' });
    expect(JSON.stringify(warning['err'])).toContain(join(volume, 'web.yaml.gz'));
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(503);
    const why = await ready.text();
    expect(why).toContain(join(volume, 'shop.yaml'));
    expect(why).toContain(join(volume, 'web.yaml.gz'));
    expect(await members('shop')).toEqual(['10.0.0.1']);
    expect(await members('web')).toEqual(['10.0.1.2']);

    const recovered = t.waitFor((l) => l.msg === 'the desired file is valid again');
    await writeProjectedVolume(volume, { ...payload('10.0.1.2'), 'shop.yaml': `sets:\n${ns('shop', '10.0.0.9')}` });
    await recovered;
    await t.waitFor(applied('file changed'));
    expect(await members('shop')).toEqual(['10.0.0.9']);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    stop('test');
    expect(await done).toBe(0);
  });

  it('refuses to start on a folder whose parts conflict, naming both files (exit 2, nothing applied)', async () => {
    const volume = join(dir, 'desired');
    await writeProjectedVolume(volume, { 'a.yaml': `sets:\n${ns('shop', '10.0.0.1')}`, 'b.yaml': `sets:\n${ns('shop', '10.0.0.2')}` });
    const t = testIo();
    const { done } = start('desired', t);
    await expect(done).rejects.toThrow(/set "shop" of type namespace is declared in both .*a\.yaml.* and .*b\.yaml/);
  });
});
