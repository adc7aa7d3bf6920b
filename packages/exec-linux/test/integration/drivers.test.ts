/**
 * The core drivers (apply, reconcile, reset) and the agent over the Linux port, against
 * the real kernel inside a throwaway network namespace.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { applyIPSets, IPSetManager, prefixedName, reconcileIPSets, resetIPSets } from '@ipsets/core';
import type { IpsetPort, SetMetadata } from '@ipsets/core';
import { Registry } from 'prom-client';
import { createIpsetAgent } from '../../src/agent/create-agent.js';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';
import { desiredAsState, normalisedText, ownedState } from '../helpers/save.js';

const OWNER = 'azure-npm-';
const nsA: SetMetadata = { name: 'team-a', type: 'namespace' };
const nsB: SetMetadata = { name: 'team-b', type: 'namespace' };
const app: SetMetadata = { name: 'app:web', type: 'keyValueLabelOfPod' };
const ports: SetMetadata = { name: 'serve', type: 'namedPorts' };
const cidr: SetMetadata = { name: 'policy-1-in-0', type: 'cidrBlocks' };
const nsList: SetMetadata = { name: 'env', type: 'keyLabelOfNamespace' };

function ip(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

describeKernel('drivers over the Linux port (real kernel, in a namespace)', () => {
  let ns: TestNamespace;
  let port: IpsetPort;

  async function kernelSave(): Promise<string> {
    const saved = await ns.run(['ipset', 'save']);
    expect(saved.exitCode).toBe(0);
    return saved.stdout;
  }

  async function expectConverged(manager: IPSetManager): Promise<void> {
    expect(ownedState(await kernelSave(), OWNER)).toEqual(desiredAsState(manager.desiredState()));
  }

  beforeAll(async () => {
    ns = await createTestNamespace('drivers');
    port = createLinuxPort({ netns: ns.name });
  });
  afterAll(async () => {
    await ns?.dispose();
  });
  beforeEach(async () => {
    await ns.run(['iptables', '-F']);
    await ns.run(['ipset', 'flush']);
    await ns.run(['ipset', 'destroy']);
  });

  function populated(): IPSetManager {
    const manager = new IPSetManager();
    manager.createIPSets([nsA, nsB, app, ports, cidr]);
    manager.addToSets([nsA, app], '10.0.0.1', 'pod-1');
    manager.addToSets([nsA], '10.0.0.2', 'pod-2');
    manager.addToSets([nsB], '10.1.0.7', 'pod-3');
    manager.addToSets([ports], '10.0.0.1,tcp:8080', 'pod-1');
    manager.addToSets([cidr], '192.168.0.0/16', '');
    manager.addToSets([cidr], '192.168.4.0/24 nomatch', '');
    manager.addToLists([nsList], [nsA, nsB]);
    return manager;
  }

  it('applyIPSets converges, then applies a delta (removals, deletions) and converges again', async () => {
    const manager = populated();
    const first = await applyIPSets(manager, port);
    expect(first.converged).toBe(true);
    expect(first.skipped).toEqual([]);
    await expectConverged(manager);
    expect(manager.hasDirtyChanges).toBe(false);

    manager.removeFromSets([nsA, app], '10.0.0.1', 'pod-1');
    manager.addToSets([nsB], '10.1.0.8', 'pod-4');
    manager.removeFromList(nsList, [nsB]);
    expect(manager.deleteIPSet('podlabel-app:web')).toBe(true);
    const second = await applyIPSets(manager, port);
    expect(second.converged).toBe(true);
    await expectConverged(manager);
  });

  it('reconcileIPSets repairs drift and leaves foreign sets byte-identical', async () => {
    const manager = populated();
    expect((await applyIPSets(manager, port)).converged).toBe(true);
    const desired = manager.desiredState();
    const first = desired.sets.find((s) => s.name === manager.getIPSet(prefixedName(nsA))!.kernelName);
    const second = desired.sets.find((s) => s.name === manager.getIPSet(prefixedName(cidr))!.kernelName);
    // Drift: an extra member, a missing member, a destroyed set, an undesired owned set, a foreign set.
    const drift = [
      `add ${first!.name} 10.9.9.9`,
      `del ${first!.name} ${first!.members[0]}`,
      `destroy ${second!.name}`,
      'create azure-npm-stale hash:net',
      'add azure-npm-stale 10.66.0.0/16',
      'create foreign-set hash:ip',
      'add foreign-set 172.16.0.1',
      '',
    ].join('\n');
    expect(await ns.run(['ipset', 'restore'], drift)).toMatchObject({ exitCode: 0, stderr: '' });
    const foreignBefore = (await ns.run(['ipset', 'save', 'foreign-set'])).stdout;

    const report = await reconcileIPSets(desired, port);
    expect(report.converged).toBe(true);
    expect(ownedState(await kernelSave(), OWNER)).toEqual(desiredAsState(desired));
    expect((await ns.run(['ipset', 'save', 'foreign-set'])).stdout).toBe(foreignBefore);
  });

  it('a set referenced by an iptables --match-set rule is reported, not destroyed; reset lists it as leaked', async () => {
    const manager = populated();
    expect((await applyIPSets(manager, port)).converged).toBe(true);
    const nsB_kernel = manager.getIPSet('ns-team-b')!.kernelName;
    const rule = await ns.run(['iptables', '-A', 'INPUT', '-m', 'set', '--match-set', nsB_kernel, 'src', '-j', 'ACCEPT']);
    expect(rule).toMatchObject({ exitCode: 0, stderr: '' });

    manager.removeFromList(nsList, [nsB]);
    manager.removeFromSets([nsB], '10.1.0.7', 'pod-3');
    expect(manager.deleteIPSet('ns-team-b')).toBe(true);
    const report = await applyIPSets(manager, port);
    expect(report.inUseSets).toEqual([nsB_kernel]);
    expect(report.skipped.map((s) => [s.set, s.kind, s.outcome])).toContainEqual([nsB_kernel, 'set-in-use', 'in-use']);
    const names = (await ns.run(['ipset', 'list', '-n'])).stdout.split('\n');
    expect(names).toContain(nsB_kernel);
    expect((await ns.run(['ipset', 'list', nsB_kernel])).stdout).toMatch(/References: 1\n/);

    await ns.run(['ipset', 'create', 'foreign-set', 'hash:ip']);
    const reset = await resetIPSets(port, { owner: OWNER });
    expect(reset.converged).toBe(true);
    expect(reset.leaked).toEqual([nsB_kernel]);
    expect(reset.failed).toEqual([]);
    const left = (await ns.run(['ipset', 'list', '-n'])).stdout.split('\n').filter(Boolean).sort();
    expect(left).toEqual(['foreign-set', nsB_kernel].sort());
  });

  it('a restore killed mid-way (abort) is followed by an apply that converges', async () => {
    const manager = new IPSetManager();
    const sets: SetMetadata[] = Array.from({ length: 20 }, (_, k) => ({ name: `big-${k}`, type: 'namespace' as const }));
    manager.createIPSets(sets);
    for (let i = 0; i < 150_000; i += 1) manager.addToSets([sets[i % 20]!], ip(i), `pod-${i}`);
    const controller = new AbortController();
    let started = 0;
    // Abort once ipset is really running (planning happens before the first restore).
    const watched: IpsetPort = {
      ...port,
      restore: (text, options) => {
        started += 1;
        setTimeout(() => controller.abort(new Error('test abort')), 150);
        return port.restore(text, options);
      },
    };
    const aborted = await applyIPSets(manager, watched, { signal: controller.signal });
    expect(started).toBe(1);
    expect(aborted.converged).toBe(false);
    expect(aborted.fatal?.code).toBe('ABORTED');
    const partial = ownedState(await kernelSave(), OWNER);
    const partialCount = Object.values(partial).reduce((n, s) => n + s.members.length, 0);
    expect(partialCount).toBeLessThan(150_000);
    expect(manager.hasDirtyChanges).toBe(true);

    const again = await applyIPSets(manager, port);
    expect(again.converged).toBe(true);
    await expectConverged(manager);
  });

  it('10,000-member sets apply correctly', async () => {
    const manager = new IPSetManager();
    const sets: SetMetadata[] = [
      { name: 'ten-k-a', type: 'namespace' },
      { name: 'ten-k-b', type: 'keyLabelOfPod' },
      { name: 'ten-k-c', type: 'cidrBlocks' },
    ];
    manager.createIPSets(sets);
    for (let i = 0; i < 10_000; i += 1) {
      manager.addToSets([sets[0]!, sets[1]!], ip(i), `pod-${i}`);
      manager.addToSets([sets[2]!], `${ip(i * 256)}/24`, '');
    }
    const report = await applyIPSets(manager, port);
    expect(report.converged).toBe(true);
    const state = ownedState(await kernelSave(), OWNER);
    for (const set of Object.values(state)) expect(set.members).toHaveLength(10_000);
    expect(state).toEqual(desiredAsState(manager.desiredState()));
  });

  it('a 100,000-line plan applies correctly', async () => {
    const manager = new IPSetManager();
    const sets: SetMetadata[] = Array.from({ length: 10 }, (_, k) => ({ name: `hundred-k-${k}`, type: 'namespace' as const }));
    manager.createIPSets(sets);
    for (let i = 0; i < 100_000; i += 1) manager.addToSets([sets[i % 10]!], ip(i), `pod-${i}`);
    const report = await applyIPSets(manager, port);
    expect(report.converged).toBe(true);
    expect(report.linesTotal).toBeGreaterThanOrEqual(100_000);
    expect(report.attempts).toHaveLength(1);
    await expectConverged(manager);
  });

  it('the agent applies, reconciles and resets against the kernel, with metrics', async () => {
    const registry = new Registry();
    const manager = populated();
    const agent = createIpsetAgent({ manager, port, registry });
    const [a, b] = await Promise.all([agent.apply(), agent.apply()]);
    expect(a.converged && b.converged).toBe(true);
    await expectConverged(manager);
    await ns.run(['ipset', 'add', manager.getIPSet('ns-team-a')!.kernelName, '10.99.0.1']);
    expect((await agent.reconcile()).converged).toBe(true);
    await expectConverged(manager);
    const metrics = await registry.getMetricsAsJSON();
    const sets = metrics.find((m) => m.name === 'ipsets_sets')?.values[0]?.value;
    expect(sets).toBe(manager.desiredState().sets.length);
    const reset = await agent.reset();
    expect(reset.converged).toBe(true);
    expect(normalisedText(await kernelSave())).toBe('');
  });
});
