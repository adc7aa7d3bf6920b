/**
 * Graceful stop on the real kernel: `agent.stop({ graceMs })` during a 200,000-member
 * reconcile either lets the restore finish (a long grace) or aborts it (a short one:
 * the port kills ipset, the report names the set left uncertain), and the next
 * reconcile converges either way.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DesiredState, IpsetPort } from '@ipsets/core';
import { createIpsetAgent } from '../../src/agent/create-agent.js';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';
import { desiredAsState, ownedState } from '../helpers/save.js';

const MEMBERS = 200_000;

function desired(): DesiredState {
  const members: string[] = [];
  for (let i = 0; i < MEMBERS; i++) members.push(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  return { owner: 'azure-npm-', sets: [{ name: 'azure-npm-big', spec: 'nethash maxelem 4294967295', members }] };
}

describeKernel('agent.stop({ graceMs }) during a large restore (real kernel, in a namespace)', () => {
  let ns: TestNamespace;
  const state = desired();
  const holder = { desiredState: () => state };

  beforeAll(async () => {
    ns = await createTestNamespace('h3stop');
  });
  afterAll(async () => {
    await ns?.dispose();
  });
  beforeEach(async () => {
    await ns.run(['ipset', 'flush']);
    await ns.run(['ipset', 'destroy']);
  });

  /** The Linux port, telling when a restore has started. */
  function watchedPort(): { port: IpsetPort; restoring: Promise<void> } {
    const linux = createLinuxPort({ netns: ns.name });
    let started!: () => void;
    const restoring = new Promise<void>((resolve) => (started = resolve));
    return {
      restoring,
      port: {
        ...linux,
        restore(text, call) {
          started();
          return linux.restore(text, call);
        },
      },
    };
  }

  async function kernelOwned() {
    return ownedState((await ns.run(['ipset', 'save'])).stdout, 'azure-npm-');
  }

  it('a short grace aborts the restore with a report naming the set; the next reconcile converges', async () => {
    const { port, restoring } = watchedPort();
    const agent = createIpsetAgent({ manager: holder, port });
    const running = agent.reconcile();
    await restoring;
    await new Promise((r) => setTimeout(r, 50));
    const begin = performance.now();
    const stopped = await agent.stop({ graceMs: 100 });
    const took = performance.now() - begin;
    // 200,000 lines take seconds: 100 ms of grace always runs out first.
    expect(stopped.aborted).toBe(true);
    expect(stopped.inFlight).toBe('reconcile');
    const report = await running;
    expect(report).toBe(stopped.report);
    expect(report.fatal?.code).toBe('ABORTED');
    expect(report.failedSets).toEqual(['azure-npm-big']);
    expect(took).toBeLessThan(5_000);
    console.log(`[agent stop] grace 100 ms: aborted=${stopped.aborted}, stop took ${Math.round(took)} ms`);
    const next = createIpsetAgent({ manager: holder, port: createLinuxPort({ netns: ns.name }) });
    await expect(next.reconcile()).resolves.toMatchObject({ converged: true });
    expect(await kernelOwned()).toEqual(desiredAsState(state));
  }, 120_000);

  it('a long grace lets the restore finish: converged, nothing aborted', async () => {
    const { port, restoring } = watchedPort();
    const agent = createIpsetAgent({ manager: holder, port });
    void agent.reconcile();
    await restoring;
    const stopped = await agent.stop({ graceMs: 60_000 });
    expect(stopped).toMatchObject({ inFlight: 'reconcile', aborted: false, report: { converged: true } });
    expect(await kernelOwned()).toEqual(desiredAsState(state));
    console.log(`[agent stop] grace 60 s: the restore finished, stop took ${stopped.waitedMs} ms`);
  }, 120_000);
});
