/**
 * Nothing untrusted reaches the kernel (real kernel, in a throwaway namespace):
 * ipset's 1,023-byte line reader measured, the save-file line injection and its
 * neighbours, the delta path after a set vanished, reset of referenced sets, and
 * ownership look-alikes. Every foreign set must be byte-identical afterwards.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import {
  IPSetManager,
  MAX_RESTORE_LINE_BYTES,
  applyIPSets,
  parseListHeaders,
  parseSave,
  planReconcile,
  prefixedName,
  reconcileIPSets,
  renderRestore,
  resetIPSets,
} from '@ipsets/core';
import type { IpsetPort, SetMetadata } from '@ipsets/core';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';

const OWNED = 'azure-npm-aaa';
const FOREIGN = ['foreign-a', 'foo', 'fw-ref', 'azure-npm-', 'azure-npm-ABC', 'azure-npm-x.y'];

/** A `-D OWNED 10.0.0.0/000…024` chunk of exactly `chunk` bytes, then `tail`. */
function paddedDelete(chunk: number, tail: string): string {
  const head = `-D ${OWNED} 10.0.0.0/`;
  return `${head}${'0'.repeat(chunk - head.length - 2)}24${tail}`;
}

describeKernel('trust boundary (real kernel, in a namespace)', () => {
  let ns: TestNamespace;
  let port: IpsetPort;

  async function ipset(args: string[], input?: string) {
    return ns.run(['ipset', ...args], input);
  }
  async function foreignSave(): Promise<string> {
    let out = '';
    for (const name of FOREIGN) {
      const r = await ipset(['save', name]);
      expect(r.exitCode).toBe(0);
      out += r.stdout;
    }
    return out;
  }

  beforeAll(async () => {
    ns = await createTestNamespace('h1-trust');
    port = createLinuxPort({ netns: ns.name });
  });
  afterAll(async () => {
    await ns?.dispose();
  });
  beforeEach(async () => {
    await ns.run(['iptables', '-F']);
    await ipset(['flush']);
    await ipset(['destroy']);
    for (const [i, name] of FOREIGN.entries()) {
      expect((await ipset(['create', name, 'hash:net'])).exitCode).toBe(0);
      expect((await ipset(['add', name, `10.9.9.${i + 1}`])).exitCode).toBe(0);
    }
    expect((await ipset(['create', OWNED, 'hash:net'])).exitCode).toBe(0);
    expect((await ipset(['add', OWNED, '10.0.0.7'])).exitCode).toBe(0);
  });

  // --- the reader limit, measured (no library code involved) ---

  it('ipset reads 1,023 bytes at a time: a 1,023-byte line is one line, a 1,024-byte line shifts later error line numbers', async () => {
    const line = (bytes: number): string => `-A ${OWNED} 10.0.0.1${' '.repeat(bytes - 1 - `-A ${OWNED} 10.0.0.1`.length)}`;
    const bad = '-A nosuch-set 1.1.1.1\n';
    const at1023 = await ipset(['-exist', 'restore'], `${line(MAX_RESTORE_LINE_BYTES)}\n${bad}`);
    expect(at1023.stderr).toContain('Error in line 2:');
    const at1024 = await ipset(['-exist', 'restore'], `${line(MAX_RESTORE_LINE_BYTES + 1)}\n${bad}`);
    expect(at1024.stderr).toContain('Error in line 3:');
  });

  it('past byte 1,023 a line is split and its tail runs as a command of its own: a -F there flushes every set, foreign ones included', async () => {
    const result = await ipset(['-exist', 'restore'], `${paddedDelete(MAX_RESTORE_LINE_BYTES, '-F')}\n`);
    expect(result.exitCode).toBe(0);
    for (const name of FOREIGN) expect((await ipset(['save', name])).stdout).not.toContain('add ');
    // One byte less and the same text is one (failing) line: nothing is flushed.
    await ipset(['add', FOREIGN[0]!, '10.9.9.1']);
    const whole = await ipset(['-exist', 'restore'], `${paddedDelete(MAX_RESTORE_LINE_BYTES - 1, '-F')}\n`);
    expect(whole.exitCode).not.toBe(0);
    expect((await ipset(['save', FOREIGN[0]!])).stdout).toContain('add foreign-a 10.9.9.1');
  });

  // --- the library: a plan from a hostile save never reads as two lines ---

  it('plans from a save whose owned member is padded to a 1,022-1,025-byte -D line with a command as tail leave every foreign set byte-identical', async () => {
    for (const chunk of [1022, 1023, 1024, 1025]) {
      for (const tail of ['-F', '-X', 'flush', 'destroy', '-']) {
        const member = paddedDelete(chunk, tail).slice(`-D ${OWNED} `.length);
        const kernelSave = (await ipset(['save'])).stdout;
        const save = `${kernelSave}add ${OWNED} ${member}\n`;
        const headers = parseListHeaders((await ipset(['list', '-t'])).stdout);
        const plan = planReconcile({ owner: 'azure-npm-', sets: [{ name: OWNED, spec: 'nethash', members: ['10.0.0.1'] }] }, parseSave(save), headers);
        const text = renderRestore(plan);
        expect(text).not.toContain(member);
        for (const l of text.split('\n')) expect(Buffer.byteLength(l) + 1).toBeLessThanOrEqual(MAX_RESTORE_LINE_BYTES);
        const before = await foreignSave();
        const result = await port.restore(text);
        expect(result.exitCode, `${chunk} ${tail}: ${result.stderr}`).toBe(0);
        expect(await foreignSave()).toBe(before);
        expect((await ipset(['save', OWNED])).stdout).toMatch(new RegExp(`^create ${OWNED} [^\\n]*\\nadd ${OWNED} 10\\.0\\.0\\.1\\n$`));
        await ipset(['add', OWNED, '10.0.0.7']);
      }
    }
  });

  // --- the delta path, reset and ownership ---

  it('a set destroyed behind the manager is recreated with all its members: {10.0.0.1, .2, .3}, not {10.0.0.3}', async () => {
    const meta: SetMetadata = { name: 'team-a', type: 'namespace' };
    const manager = new IPSetManager();
    manager.addToSets([meta], '10.0.0.1', 'pod-1');
    manager.addToSets([meta], '10.0.0.2', 'pod-2');
    expect((await applyIPSets(manager, port)).converged).toBe(true);
    const name = manager.getIPSet(prefixedName(meta))!.kernelName;
    expect((await ipset(['destroy', name])).exitCode).toBe(0);
    manager.addToSets([meta], '10.0.0.3', 'pod-3');
    const report = await applyIPSets(manager, port);
    expect(report.converged).toBe(true);
    const members = (await ipset(['save', name])).stdout
      .split('\n')
      .filter((l) => l.startsWith('add '))
      .map((l) => l.split(' ')[2])
      .sort();
    expect(members).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });

  it('reset leaves a set an iptables rule references intact (not flushed) and reports it leaked; look-alike names are foreign', async () => {
    expect((await ipset(['create', 'azure-npm-free', 'hash:net'])).exitCode).toBe(0);
    const rule = await ns.run(['iptables', '-A', 'INPUT', '-m', 'set', '--match-set', OWNED, 'src', '-j', 'ACCEPT']);
    expect(rule.exitCode, rule.stderr).toBe(0);
    const before = await foreignSave();
    const report = await resetIPSets(port);
    expect(report).toMatchObject({ found: [OWNED, 'azure-npm-free'], destroyed: ['azure-npm-free'], leaked: [OWNED] });
    expect((await ipset(['save', OWNED])).stdout).toContain(`add ${OWNED} 10.0.0.7`);
    expect(await foreignSave()).toBe(before);
  });

  it('reconcile with an empty desired state touches only owned sets; owner "f" is refused and nothing changes', async () => {
    const before = await foreignSave();
    const report = await reconcileIPSets({ owner: 'azure-npm-', sets: [] }, port);
    expect(report.converged).toBe(true);
    expect((await ipset(['list', '-n'])).stdout.split('\n').filter(Boolean).sort()).toEqual([...FOREIGN].sort());
    expect(await foreignSave()).toBe(before);
    await expect(reconcileIPSets({ owner: 'f', sets: [] }, port)).rejects.toThrow(/invalid owner prefix "f"/);
    expect(await foreignSave()).toBe(before);
  });
});
