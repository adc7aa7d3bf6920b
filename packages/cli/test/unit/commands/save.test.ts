import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { filterOwnedSave, saveCommand } from '../../../src/commands/save.js';
import { saveFakeKernel } from '../../../src/kernel/fake-state-file.js';
import { captureIo } from '../../helpers/capture-io.js';

const OWNED = 'azure-npm-343gyx4g1wf87lwlewvk';
/** Sets whose names start with the owner prefix but that core's ownership rule calls foreign. */
const LOOKALIKES = ['azure-npm-', 'azure-npm-ABC', 'azure-npm-x.y', 'azure-npm-kube_proxy'];

const kernelText = [
  `create ${OWNED} hash:net family inet hashsize 1024 maxelem 65536`,
  `add ${OWNED} 10.0.0.1`,
  ...LOOKALIKES.flatMap((name) => [`create ${name} hash:net family inet hashsize 1024 maxelem 65536`, `add ${name} 10.9.9.9`]),
  'create KUBE-FW hash:net family inet hashsize 1024 maxelem 65536',
  'add KUBE-FW 192.0.2.1',
  '',
].join('\n');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipsets-save-a4-'));
  const kernel = new FakeKernel();
  kernel.restore(kernelText);
  await saveFakeKernel(join(dir, 'state.json'), kernel);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Defect pinned: `ipsets save` selected sets by name prefix, its own copy of the
// ownership rule, so it printed sets that apply, reset and the agent call foreign
// (`azure-npm-ABC`, the bare prefix), and took any --owner, even `a`.
describe('ipsets save uses the ownership rule of every other command', () => {
  it('keeps the lines of owned sets only, by core’s isOwnedSetName', () => {
    const text = new FakeKernel();
    text.restore(kernelText);
    const owned = filterOwnedSave(text.save().stdout, 'azure-npm-');
    expect(owned).toContain(`create ${OWNED} `);
    expect(owned).toContain(`add ${OWNED} 10.0.0.1\n`);
    for (const name of [...LOOKALIKES, 'KUBE-FW']) expect(owned).not.toContain(` ${name} `);
  });

  it('prints the owned sets of the kernel, and refuses an owner prefix core refuses', async () => {
    const io = captureIo(dir);
    expect(await saveCommand({ kernel: 'fake', state: 'state.json' }, io)).toBe(0);
    expect(io.out.split('\n').filter((l) => l !== '').every((l) => l.split(' ')[1] === OWNED)).toBe(true);
    const refused = saveCommand({ kernel: 'fake', state: 'state.json', owner: 'a' }, captureIo(dir));
    await expect(refused).rejects.toSatisfy((e) => isIpsetsError(e, 'INVALID_ARGUMENT') && /invalid owner prefix "a"/.test(e.message));
  });
});
