/**
 * Hitless rebuilds on the real kernel: while an apply rebuilds a 100,000-member set
 * that an iptables rule references — contents unknown (apply), then a maxelem change,
 * then growth past 65,536 (reconcile) — a prober in the same namespace keeps testing
 * members that are in both the old and the new desired state and must find none
 * missing. The same prober against the old route (flush, then add every member) finds
 * misses, which is the window the rebuild closes.
 *
 * The prober (../helpers/prober.ts) is an interactive `ipset -` session.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IPSetManager, applyIPSets, planApply, reconcileIPSets } from '@ipsets/core';
import type { ApplyReport, DesiredState, IpsetPort, SetMetadata } from '@ipsets/core';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';
import { PROBE_BATCH, startProber } from '../helpers/prober.js';
import type { ProbeCount } from '../helpers/prober.js';

const SIZE = 100_000;

function ip(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

describeKernel('hitless rebuilds (real kernel, in a namespace, with a prober)', () => {
  let ns: TestNamespace;
  let port: IpsetPort;
  const meta: SetMetadata = { name: 'big', type: 'namespace' };
  const members = Array.from({ length: SIZE }, (_, i) => ip(i));
  // Members in every desired state of the test; probed.
  const probed = members.filter((_, i) => i % Math.floor(SIZE / PROBE_BATCH) === 0).slice(0, PROBE_BATCH);
  const counts: Record<string, ProbeCount> = {};

  beforeAll(async () => {
    ns = await createTestNamespace('h8-hitless');
    port = createLinuxPort({ netns: ns.name });
  });
  afterAll(async () => {
    console.log(`hitless prober counts: ${JSON.stringify(counts)}`);
    await ns?.dispose();
  });

  async function probed_(label: string, set: string, run: () => Promise<ApplyReport | void>): Promise<ApplyReport | void> {
    const prober = startProber(ns.name, set, probed);
    await prober.started;
    const report = await run();
    counts[label] = await prober.stop();
    return report;
  }

  async function header(set: string): Promise<string> {
    const listed = await ns.run(['ipset', 'list', '-t', set]);
    return listed.stdout;
  }

  it('rebuilds a referenced 100,000-member set three ways with 0 misses; flush-then-add misses', async () => {
    const manager = new IPSetManager({ capacity: { namespace: { maxelem: 131072 } } });
    members.forEach((m, i) => manager.addToSets([meta], m, `pod-${i}`));
    const first = await applyIPSets(manager, port);
    expect(first.converged).toBe(true);
    const set = manager.desiredState().sets.find((s) => s.label === 'ns-big')!.name;
    expect((await ns.run(['iptables', '-A', 'INPUT', '-m', 'set', '--match-set', set, 'src', '-j', 'ACCEPT'])).exitCode).toBe(0);
    expect(await header(set)).toMatch(/References: 1\n/);

    // 1. Contents unknown: a plan that failed after the set changed since planning.
    manager.addToSets([meta], '10.200.0.1', 'pod-late');
    const failedPlan = planApply(manager);
    manager.removeFromSets([meta], '10.200.0.1', 'pod-late');
    manager.commit({ converged: false, plan: failedPlan, attempts: [], linesTotal: failedPlan.lines.length, linesApplied: 0, skipped: [], failedSets: [set], inUseSets: [], notes: [] });
    expect(planApply(manager).lines.some((l) => l.op === 'swap')).toBe(true);
    const unknown = (await probed_('contents-unknown', set, () => applyIPSets(manager, port))) as ApplyReport;
    expect(unknown.converged).toBe(true);
    expect(counts['contents-unknown']!.misses).toBe(0);

    // 2. A maxelem change (the kernel refuses `-N --exist` with another maxelem; destroy is refused: referenced).
    const desired: DesiredState = manager.desiredState();
    const changed: DesiredState = { ...desired, sets: desired.sets.map((s) => (s.name === set ? { ...s, maxelem: 200000 } : s)) };
    const resized = (await probed_('maxelem-change', set, () => reconcileIPSets(changed, port))) as ApplyReport;
    expect(resized.converged).toBe(true);
    expect(resized.notes.map((n) => n.message).join('\n')).toMatch(/rebuild \(maxelem 131072 → 200000\)/);
    expect(await header(set)).toMatch(/maxelem 200000 [^]*\nReferences: 1\n/);

    // 3. Growth past 65,536: the default maxelem with 100,001 members grows to 131072.
    const grownDesired: DesiredState = {
      ...desired,
      sets: desired.sets.map((s) => (s.name === set ? { name: s.name, spec: s.spec, members: [...s.members, '10.200.0.2'] } : s)),
    };
    const grown = (await probed_('growth', set, () => reconcileIPSets(grownDesired, port))) as ApplyReport;
    expect(grown.converged).toBe(true);
    expect(grown.notes.map((n) => n.message).join('\n')).toMatch(/grown to maxelem 131072/);
    expect(await header(set)).toMatch(/maxelem 131072 [^]*\nReferences: 1\nNumber of entries: 100001\n/);
    const owned = (await ns.run(['ipset', 'list', '-n'])).stdout.trim().split('\n');
    expect(owned).toEqual([set]);

    // The old route: flush, then add every member again.
    const text = `-F ${set}\n${[...members, '10.200.0.2'].map((m) => `-A ${set} ${m}\n`).join('')}`;
    await probed_('flush-then-add', set, async () => {
      expect((await port.restore(text)).exitCode).toBe(0);
    });
    expect(counts['flush-then-add']!.misses).toBeGreaterThan(0);
    for (const label of ['contents-unknown', 'maxelem-change', 'growth']) expect(counts[label]!.misses, label).toBe(0);
  }, 300_000);
});
