import { describe, expect, it } from 'vitest';
import { IPSetManager } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { assertConverged } from '@ipsets/fake-kernel/invariants';
import { applyEvent, formatReport, generateTrace, simulate, simulateNodes, summarize } from '../src/index.js';
import type { SimulationConfig } from '../src/index.js';

const small: SimulationConfig = { seed: 7, nodes: 4, events: 600, faultRate: 0.3, applyIntervalUs: 100_000 };

describe('simulate', () => {
  it('every node converges under planted faults of every kind, and the faults really hit restores', async () => {
    const report = await simulate(small);
    expect(report.total.notConverged).toEqual([]);
    for (const node of report.nodes) {
      expect(node.problems).toEqual([]);
      expect(node.converged).toBe(true);
    }
    for (const kind of ['userspace', 'kernel', 'busy', 'crash'] as const) expect(report.total.faults[kind]).toBeGreaterThan(0);
    expect(report.total.failedRestores).toBeGreaterThan(0);
    expect(report.total.failedApplies).toBeGreaterThan(0);
    expect(report.total.attempts).toBeGreaterThan(report.total.applies);
    expect(formatReport(report)).toContain('final check: every node converged');
  });

  it('gives the same report bytes for the same seed, and a different report for another seed', async () => {
    const a = await simulate(small);
    const b = await simulate(small);
    expect(formatReport(b)).toBe(formatReport(a));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const c = await simulate({ ...small, seed: 8 });
    expect(formatReport(c)).not.toBe(formatReport(a));
  });

  it('gives the same report when the nodes are simulated in separate parts (as the command line does over workers)', async () => {
    const whole = formatReport(await simulate(small));
    const odd = await simulateNodes(small, [1, 3]);
    const even = await simulateNodes(small, [2, 0]);
    expect(formatReport(summarize(small, [...odd, ...even]))).toBe(whole);
    expect(() => summarize(small, odd)).toThrow(/one run per node 0\.\.3, got nodes 1, 3/);
  });

  it('in cluster scope every node ends with the same kernel, whatever its delays and faults', async () => {
    const report = await simulate({ ...small, scope: 'cluster' });
    expect(report.total.notConverged).toEqual([]);
    expect(report.total.kernelsDiffering).toEqual([]);
    expect(new Set(report.nodes.map((n) => n.kernelDigest)).size).toBe(1);
    // Different delays and faults, same events: the nodes' histories did differ.
    expect(new Set(report.nodes.map((n) => n.attempts)).size).toBeGreaterThan(1);
  });

  it('converges in on-need mode too', async () => {
    const report = await simulate({ ...small, mode: 'on-need', scope: 'cluster' });
    expect(report.total.notConverged).toEqual([]);
    expect(report.total.kernelsDiffering).toEqual([]);
  });

  it('reports nodes that never converge instead of hiding them (a kernel fault in every apply)', async () => {
    const report = await simulate({ ...small, nodes: 2, events: 100, faultRate: 1, faultKinds: ['kernel'], settleApplies: 3 });
    expect(report.total.notConverged).toEqual([0, 1]);
    for (const node of report.nodes) {
      expect(node.converged).toBe(false);
      expect(node.problems.join('\n')).toMatch(/not converged after 3 applies/);
    }
    expect(formatReport(report)).toContain('final check: 2 nodes did NOT converge: 0, 1');
  });

  it('rejects a bad configuration with a message naming the value', async () => {
    await expect(simulate({ ...small, nodes: -1 })).rejects.toThrow(/nodes must be a non-negative integer, got -1/);
    await expect(simulate({ ...small, faultRate: 2 })).rejects.toThrow(/faultRate must be between 0 and 1, got 2/);
  });
});

describe('the trace and the controller', () => {
  it('the same seed gives the same trace; pods reuse freed IPs under new pod keys', () => {
    const a = generateTrace({ seed: 3, events: 2000 });
    expect(generateTrace({ seed: 3, events: 2000 })).toEqual(a);
    const owners = new Map<string, Set<string>>();
    for (const e of a) if (e.kind === 'pod-create') (owners.get(e.pod.ip) ?? owners.set(e.pod.ip, new Set()).get(e.pod.ip)!).add(e.pod.key);
    expect([...owners.values()].some((keys) => keys.size > 1)).toBe(true);
    const kinds = new Set(a.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['namespace-create', 'namespace-relabel', 'pod-create', 'pod-delete', 'pod-relabel', 'policy-create', 'policy-delete']);
  });

  it("one node's manager, applied with no faults, puts exactly the cluster's pods into the namespace sets", async () => {
    const trace = generateTrace({ seed: 5, events: 1500 });
    const manager = new IPSetManager();
    for (const e of trace) applyEvent(manager, e);
    const live = new Map<string, string>();
    for (const e of trace) {
      if (e.kind === 'pod-create') live.set(e.pod.key, e.pod.ip);
      if (e.kind === 'pod-delete') live.delete(e.pod.key);
    }
    const members = ['team0', 'team1', 'team2', 'team3', 'team4', 'team5', 'team6', 'team7'].flatMap(
      (ns) => manager.getIPSet(`ns-${ns}`)?.members ?? [],
    );
    expect(members.sort()).toEqual([...live.values()].sort());
    // The independent oracle agrees with a plain apply of the same manager.
    const kernel = new FakeKernel();
    const { applyIPSets } = await import('@ipsets/core');
    const { createFakePort } = await import('@ipsets/fake-kernel');
    const report = await applyIPSets(manager, createFakePort(kernel));
    expect(report.converged).toBe(true);
    assertConverged(kernel, manager.desiredState());
  });
});
