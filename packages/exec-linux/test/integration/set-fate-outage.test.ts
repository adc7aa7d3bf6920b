/**
 * One set-fate policy on every path (issue 23), on the real kernel: a set an iptables
 * rule references (`-m set --match-set S src -j ACCEPT`, inside the namespace) keeps
 * every member that stays desired while an apply runs, with a prober testing
 * membership continuously (../helpers/prober.ts): 0 misses when
 *
 * (a) the delta path destroys the referenced set (it was `-F` then `-X`: the refused
 *     destroy left the set empty under the rule) — the set keeps its members, is
 *     reported in use, and is destroyed once the rule goes;
 * (b) the kernel holds a member not in the form `ipset save` prints (it was flushed in
 *     place and refilled);
 * (c) the set outgrows its maxelem through `applyIPSets` (growth was reconcile's only);
 * (d) a restore dies part-way (killed), and the next apply runs (it resent the delta
 *     blind; now the set is rebuilt through a temporary set and swap);
 * (e) the temporary a rebuild would use is held by a rule (it blocked the set forever:
 *     its rebuild's first line failed "in use" every time).
 *
 * The control — flush, then add every member — misses in the same test, so the
 * prober demonstrably sees an outage.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { IPSetManager, applyIPSets, applyIPSetsWithSave, parseListHeaders, parseSave, planReconcile, reconcileIPSets } from '@ipsets/core';
import type { ApplyReport, CommandResult, IpsetPort, SetMetadata } from '@ipsets/core';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';
import { startProber } from '../helpers/prober.js';
import type { ProbeCount } from '../helpers/prober.js';

const SIZE = 16_000;

function ip(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

describeKernel('set fates under a live iptables rule (real kernel, in a namespace, with a prober)', () => {
  let ns: TestNamespace;
  let port: IpsetPort;
  const meta: SetMetadata = { name: 'web', type: 'namespace' };
  const members = Array.from({ length: SIZE }, (_, i) => ip(i));
  // Members every desired state of the tests keeps; probed.
  const probed = members.filter((_, i) => i % 32 === 0);
  const counts: Record<string, ProbeCount> = {};

  beforeAll(async () => {
    ns = await createTestNamespace('i23-fate');
    port = createLinuxPort({ netns: ns.name });
  });
  afterAll(async () => {
    console.log(`set-fate prober counts: ${JSON.stringify(counts)}`);
    await ns?.dispose();
  });
  beforeEach(async () => {
    await ns.run(['iptables', '-F']);
    await ns.run(['ipset', 'destroy']);
  });

  async function probe<T>(label: string, set: string, run: () => Promise<T>, watched: readonly string[] = probed): Promise<T> {
    const prober = startProber(ns.name, set, watched);
    await prober.started;
    const result = await run();
    counts[label] = await prober.stop();
    return result;
  }

  async function rule(set: string, action: '-A' | '-D'): Promise<void> {
    expect((await ns.run(['iptables', action, 'INPUT', '-m', 'set', '--match-set', set, 'src', '-j', 'ACCEPT'])).exitCode).toBe(0);
  }

  async function entries(set: string): Promise<number | undefined> {
    const listed = await ns.run(['ipset', 'list', '-t', set]);
    if (listed.exitCode !== 0) return undefined;
    return Number(/Number of entries: (\d+)/.exec(listed.stdout)?.[1]);
  }

  /** A manager whose set `of` (SIZE members) is applied and referenced by an iptables rule. */
  async function applied(config: ConstructorParameters<typeof IPSetManager>[0] = {}, of: SetMetadata = meta, all: readonly string[] = members): Promise<{ manager: IPSetManager; set: string }> {
    const manager = new IPSetManager(config);
    all.forEach((m, i) => manager.addToSets([of], m, `pod-${i}`));
    expect((await applyIPSets(manager, port)).converged).toBe(true);
    const set = manager.desiredState().sets[0]!.name;
    await rule(set, '-A');
    return { manager, set };
  }

  /** The control: flush, then add every member again (what the planners used to do). */
  async function control(set: string, all: readonly string[] = members, watched: readonly string[] = probed): Promise<void> {
    const text = `-F ${set}\n${all.map((m) => `-A ${set} ${m}\n`).join('')}`;
    await probe('control-flush-then-add', set, async () => {
      expect((await port.restore(text)).exitCode).toBe(0);
    }, watched);
    expect(counts['control-flush-then-add']!.misses, 'the prober sees the outage of a flush and refill').toBeGreaterThan(0);
  }

  it('(a) the delta path destroying a referenced set: kept with its members, reported in use, destroyed once the rule goes', async () => {
    const { manager, set } = await applied();
    manager.deleteIPSet('ns-web', 'force');
    const report = await probe('a-destroy-referenced', set, () => applyIPSets(manager, port));
    expect(report.plan.lines.map((l) => l.op)).toEqual(['destroy']);
    expect(report.inUseSets).toEqual([set]);
    expect(await entries(set)).toBe(SIZE);
    expect(counts['a-destroy-referenced']!.misses).toBe(0);
    await control(set);
    await rule(set, '-D');
    const released = await applyIPSets(manager, port);
    expect(released.converged).toBe(true);
    expect(await entries(set)).toBeUndefined();
  }, 120_000);

  it('(b) unreadable kernel contents: rebuilt through a temporary set and swap by apply-with-save and reconcile, never flushed', async () => {
    const ports: SetMetadata = { name: 'serve', type: 'namedPorts' };
    const all = members.map((m) => `${m},tcp:80`);
    const watched = probed.map((m) => `${m},tcp:80`);
    const { manager, set } = await applied({}, ports, all);
    // A member added by hand in a form ipset save prints differently from the canonical one.
    expect((await ns.run(['ipset', 'add', set, '10.99.0.1,icmp:echo-request'])).exitCode).toBe(0);
    manager.addToSets([ports], '10.200.0.1,tcp:80', 'late');
    const withSave = await probe('b-unreadable-apply-with-save', set, () => applyIPSetsWithSave(manager, port), watched);
    expect(withSave.notes.map((n) => n.kind)).toContain('unreadable-members-rebuilt');
    expect(withSave.converged).toBe(true);
    expect(withSave.plan.lines.some((l) => l.op === 'flush')).toBe(false);
    expect(counts['b-unreadable-apply-with-save']!.misses).toBe(0);
    expect(await entries(set)).toBe(SIZE + 1);
    // Again through reconcile.
    expect((await ns.run(['ipset', 'add', set, '10.99.0.2,icmp:echo-request'])).exitCode).toBe(0);
    const reconciled = await probe('b-unreadable-reconcile', set, () => reconcileIPSets(manager.desiredState(), port), watched);
    expect(reconciled.notes.map((n) => n.kind)).toContain('unreadable-members-rebuilt');
    expect(reconciled.converged).toBe(true);
    expect(reconciled.plan.lines.some((l) => l.op === 'flush')).toBe(false);
    expect(counts['b-unreadable-reconcile']!.misses).toBe(0);
    expect(await entries(set)).toBe(SIZE + 1);
    await control(set, all, watched);
  }, 120_000);

  it('(c) growth through applyIPSets: a set that outgrows its maxelem is rebuilt with a larger one, 0 misses', async () => {
    const { manager, set } = await applied({ capacity: { namespace: { maxelem: 16384 } } });
    for (let i = 0; i < 1000; i++) manager.addToSets([meta], ip(SIZE + i), `more-${i}`);
    const report = await probe('c-growth-apply', set, () => applyIPSets(manager, port));
    expect(report.converged).toBe(true);
    expect(report.notes.map((n) => n.message).join('\n')).toMatch(/grown to maxelem 32768/);
    expect((await ns.run(['ipset', 'list', '-t', set])).stdout).toMatch(/maxelem 32768 [^]*\nReferences: 1\nNumber of entries: 17000\n/);
    expect(counts['c-growth-apply']!.misses).toBe(0);
    expect((await ns.run(['ipset', 'list', '-n'])).stdout.trim().split('\n')).toEqual([set]);
    await control(set);
  }, 120_000);

  it('(d) a restore killed part-way, then the next apply: the set is rebuilt (not the same delta resent blind), 0 misses', async () => {
    const { manager, set } = await applied();
    for (let i = 0; i < 200; i++) manager.removeFromSets([meta], ip(i * 32 + 1), `pod-${i * 32 + 1}`);
    for (let i = 0; i < 200; i++) manager.addToSets([meta], ip(SIZE + i), `more-${i}`);
    // A port whose restores run their first half for real, then die as if killed.
    const killing: IpsetPort = Object.assign(Object.create(port) as IpsetPort, {
      restore: async (text: string): Promise<CommandResult> => {
        const lines = text.split('\n');
        await port.restore(lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n');
        return { exitCode: 137, stdout: '', stderr: '', signal: 'SIGKILL' };
      },
    });
    const killed: ApplyReport = await probe('d-killed', set, () => applyIPSets(manager, killing, { countFailures: false }));
    expect(killed.fatal).toBeDefined();
    const next = await probe('d-next-apply', set, () => applyIPSets(manager, port));
    expect(next.converged).toBe(true);
    expect(next.plan.lines.some((l) => l.op === 'swap' && l.to === set)).toBe(true);
    expect(next.plan.lines.some((l) => l.op === 'flush')).toBe(false);
    expect(await entries(set)).toBe(SIZE);
    expect(counts['d-killed']!.misses).toBe(0);
    expect(counts['d-next-apply']!.misses).toBe(0);
    await control(set);
  }, 120_000);

  it('(e) a temporary of the chosen name held by a rule: the set still rebuilds (maxelem applied, drift repaired); the stuck temporary is reported, and removed once free', async () => {
    const { manager, set } = await applied();
    const desired = manager.desiredState();
    const resized = { ...desired, sets: desired.sets.map((s) => ({ ...s, maxelem: 131072, members: [...s.members.slice(1), '10.200.0.9'] })) };
    // The temporary a rebuild of the set would use first, made by hand and held by a rule.
    const [{ stdout: saveText }, { stdout: listText }] = [await ns.run(['ipset', 'save']), await ns.run(['ipset', 'list', '-t'])];
    const preview = planReconcile(resized, parseSave(saveText), parseListHeaders(listText));
    const stuck = preview.lines.find((l) => l.op === 'create' && l.subject === set)!.set;
    expect((await ns.run(['ipset', 'create', stuck, 'hash:net'])).exitCode).toBe(0);
    await rule(stuck, '-A');
    const report = await probe('e-stuck-temporary', set, () => reconcileIPSets(resized, port), probed.slice(1));
    expect(report.plan.lines.some((l) => l.op === 'swap' && l.to === set && l.set !== stuck)).toBe(true);
    expect(report.inUseSets).toEqual([stuck]);
    expect(report.failedSets).toEqual([]);
    const header = (await ns.run(['ipset', 'list', '-t', set])).stdout;
    expect(header).toMatch(/maxelem 131072 [^]*\nNumber of entries: 16000\n/);
    expect((await ns.run(['ipset', 'test', set, '10.200.0.9'])).exitCode).toBe(0);
    expect((await ns.run(['ipset', 'test', set, members[0]!])).exitCode).not.toBe(0);
    expect(counts['e-stuck-temporary']!.misses).toBe(0);
    await rule(stuck, '-D');
    const freed = await reconcileIPSets(resized, port);
    expect(freed.converged).toBe(true);
    expect((await ns.run(['ipset', 'list', '-n'])).stdout.trim().split('\n')).toEqual([set]);
  }, 120_000);
});
