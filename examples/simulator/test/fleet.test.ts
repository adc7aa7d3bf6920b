import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IpsetAgent } from '@ipsets/exec-linux';

/**
 * What the library agents of the run were asked to do (starts, triggers) and which
 * ticks they ran; `dropTrigger` makes their `trigger()` ignore one reason.
 */
const seen = vi.hoisted(() => ({ starts: 0, triggers: [] as string[], ticks: [] as string[], dropTrigger: undefined as string | undefined }));

vi.mock('@ipsets/exec-linux', async (importOriginal) => {
  const original = await importOriginal<typeof import('@ipsets/exec-linux')>();
  return {
    ...original,
    createIpsetAgent: (options: Parameters<typeof original.createIpsetAgent>[0]): IpsetAgent => {
      const agent = original.createIpsetAgent({
        ...options,
        onTick: (tick) => {
          seen.ticks.push(tick.why);
          options.onTick?.(tick);
        },
      });
      return Object.assign(Object.create(agent) as IpsetAgent, {
        start: () => {
          seen.starts++;
          agent.start();
        },
        trigger: (why?: string) => {
          seen.triggers.push(why ?? 'trigger');
          if (why !== seen.dropTrigger) agent.trigger(why);
        },
      });
    },
  };
});
import { mulberry32 } from '../src/prng.js';
import { ClusterState } from '../src/fleet/cluster-state.js';
import { DEFAULT_COST_MODEL, DELIVERY_MODES, MAX_DECOMPRESSED_PART_BYTES } from '../src/fleet/cost-model.js';
import { simulateFleet } from '../src/fleet/fleet.js';
import type { FleetConfig, FleetReport } from '../src/fleet/fleet.js';
import { formatFleetReport } from '../src/fleet/fleet-report.js';
import { renderFleetChart } from '../src/fleet/fleet-chart.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(root, 'dist', 'cli.js');

const small: FleetConfig = { scenario: 'policy-change', nodes: 40, delivery: 'parts', seed: 3, shape: { pods: 600, namespaces: 12, parts: 4 } };

/** The report without the simulation's own bookkeeping (timers fired differ when nothing else does). */
function figures(r: FleetReport): unknown {
  const { work: _work, config, ...rest } = r;
  const { exact: _exact, ...settings } = config;
  return { ...rest, settings };
}

afterEach(() => {
  vi.restoreAllMocks();
  Object.assign(seen, { starts: 0, triggers: [], ticks: [], dropTrigger: undefined });
});

describe('the fleet simulation runs the real agent scheduling code', () => {
  it('every node runs the library agent’s own loop: one start per agent process, and its triggers and ticks are the ones the report counts', async () => {
    const report = await simulateFleet(small);
    expect(seen.starts).toBe(small.nodes);
    expect(seen.triggers.filter((w) => w === 'start')).toHaveLength(small.nodes);
    // Every node saw the one change on its volume and asked for an apply for it.
    expect(seen.triggers.filter((w) => w === 'file changed').length).toBeGreaterThanOrEqual(small.nodes);
    expect(seen.ticks.filter((w) => w === 'interval').length).toBeGreaterThan(small.nodes);
    expect(report.notConverged).toBe(0);
  });

  it('changes when the real scheduler changes (no copy of it): dropping its file-change triggers leaves each node to its next interval tick', async () => {
    const normal = await simulateFleet(small);
    seen.dropTrigger = 'file changed';
    const ticksOnly = await simulateFleet(small);
    expect(ticksOnly.notConverged).toBe(0);
    // A swap now waits for the node's next tick: up to one interval more for every node.
    expect(ticksOnly.nodeConvergence.p50).toBeGreaterThan(normal.nodeConvergence.p50 + 10_000);
    expect(ticksOnly.nodeConvergence.max).toBeLessThanOrEqual(normal.nodeConvergence.max + 60_000 + 1_000);
  });

  it('has no scheduler, interval or timer of its own: only the virtual clock sets timers', () => {
    const dir = join(root, 'src', 'fleet');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/class \w*Scheduler|setInterval\(/);
      // The real-time measurements (the cost model's calibration, the delivery modes on the real kernel) are not the simulation.
      if (file !== 'virtual-clock.ts' && file !== 'calibrate.ts' && file !== 'measure-delivery.ts') expect(text, file).not.toMatch(/(?<![.\w])setTimeout\(/);
    }
  });
});

describe('simulateFleet', () => {
  it('gives the same bytes for the same seed (whatever ran before it in the process) and other bytes for another seed', async () => {
    const a = formatFleetReport([await simulateFleet({ ...small, scenario: 'steady-churn', durationMs: 120_000 })]);
    const b = formatFleetReport([await simulateFleet({ ...small, scenario: 'steady-churn', durationMs: 120_000 })]);
    expect(b).toBe(a);
    const c = formatFleetReport([await simulateFleet({ ...small, scenario: 'steady-churn', durationMs: 120_000, seed: 4 })]);
    expect(c).not.toBe(a);
  });

  it('the per-class reconcile cache gives what a fake kernel per node gives, and every node’s kernel ends equal to its version', async () => {
    const config: FleetConfig = { ...small, scenario: 'steady-churn', nodes: 6, durationMs: 150_000, publishEveryMs: 5_000, churnPerSecond: 1 };
    const cached = await simulateFleet(config);
    const exact = await simulateFleet({ ...config, exact: true });
    expect(exact.kernelProblems).toBe(0);
    expect(exact.publishes).toBeGreaterThan(10);
    expect(figures(exact)).toEqual(figures(cached));
  });

  it('converges every node within one kubelet sync (plus the fan-out and the agent’s own work) of a policy change, in every mode', async () => {
    for (const delivery of ['one-file', 'parts', 'gzip-parts'] as const) {
      const r = await simulateFleet({ ...small, delivery, syncPeriodMs: 20_000, syncJitter: 0 });
      expect(r.publishes).toBe(1);
      expect(r.notConverged).toBe(0);
      expect(r.nodeConvergence.count).toBe(small.nodes);
      expect(r.fleetConvergence.max).toBeLessThan(20_000 + 1_000);
      expect(r.nodeConvergence.p50).toBeGreaterThan(200);
      expect(r.restoresPerNodeHour).toBeGreaterThan(0);
    }
  });

  it('sends only the changed ConfigMaps: parts send less than the whole file, gzip parts less again', async () => {
    const [one, parts, gz] = await Promise.all((['one-file', 'parts', 'gzip-parts'] as const).map((delivery) => simulateFleet({ ...small, delivery })));
    // The whole file (a little larger after the change) to every node.
    expect(one!.watchBytesPerUpdate).toBeGreaterThan((one!.state.oneFileBytes + 600) * small.nodes);
    expect(one!.watchBytesPerUpdate).toBeLessThan((one!.state.oneFileBytes + 600) * small.nodes * 1.05);
    expect(parts!.watchBytesPerUpdate).toBeLessThan(one!.watchBytesPerUpdate);
    expect(gz!.watchBytesPerUpdate).toBeLessThan(parts!.watchBytesPerUpdate / 3);
  });

  it('refuses a one-file state past the 1 MiB ConfigMap limit, and takes it in parts', async () => {
    const big: FleetConfig = { ...small, nodes: 2, shape: { pods: 12_000, parts: 16 }, delivery: 'one-file' };
    await expect(simulateFleet(big)).rejects.toThrow(/past the API server's 1 MiB object limit/);
    const parts = await simulateFleet({ ...big, delivery: 'parts' });
    expect(parts.notConverged).toBe(0);
  });

  it('rolls out a new agent version in waves of maxUnavailable, each node counted after its first converged apply and minReady', async () => {
    const r = await simulateFleet({ ...small, scenario: 'rollout', nodes: 20, maxUnavailable: 0.25, minReadyMs: 30_000, restartMs: 5_000 });
    // Four waves of five nodes, each at least restart + minReady long.
    expect(r.rolloutMs).toBeGreaterThanOrEqual(4 * 35_000);
    expect(r.rolloutMs).toBeLessThan(4 * 45_000);
    expect(r.notConverged).toBe(0);
  });

  it('refuses bad settings with the value quoted', async () => {
    await expect(simulateFleet({ ...small, nodes: 0 })).rejects.toThrow(/nodes must be a positive integer, got 0/);
    await expect(simulateFleet({ ...small, delivery: 'zip' as never })).rejects.toThrow(/unknown delivery "zip"/);
    await expect(simulateFleet({ ...small, maxUnavailable: 2 })).rejects.toThrow(/maxUnavailable must be in \(0, 1\], got 2/);
  });
});

describe('the delivery modes (the model of the desired state in parts)', () => {
  const state = new ClusterState({ namespaces: 12, pods: 600, policies: 5, parts: 4 }, mulberry32(9));
  const v0 = state.snapshot();
  state.churnPod();
  const v1 = state.snapshot();

  it('a check after a swap reads and hashes every file but parses only the parts whose digest changed', () => {
    expect(v1.changedParts.length).toBeGreaterThanOrEqual(1);
    expect(v1.changedParts.length).toBeLessThan(4);
    const parts = DELIVERY_MODES.parts.check(v0, v1, DEFAULT_COST_MODEL);
    expect(parts.parsed).toBe(v1.changedParts.length);
    const again = DELIVERY_MODES.parts.check(v1, v1, DEFAULT_COST_MODEL);
    expect(again.parsed).toBe(0);
    // Reading and hashing every file is still paid when nothing changed.
    const allBytes = v1.parts.reduce((n, p) => n + p.bytes, 0);
    expect(again.cpuUs).toBeCloseTo(allBytes * DEFAULT_COST_MODEL.agent.readUsPerByte, 6);
    const one = DELIVERY_MODES['one-file'].check(v0, v1, DEFAULT_COST_MODEL);
    expect(one.parsed).toBe(1);
    expect(one.cpuUs).toBeGreaterThan(parts.cpuUs);
    // A start knows nothing: every part is parsed.
    expect(DELIVERY_MODES['gzip-parts'].check(undefined, v1, DEFAULT_COST_MODEL).parsed).toBe(4);
  });

  it('gzip parts are hashed compressed and decompressed under a bound: a part past it is refused', () => {
    const gz = DELIVERY_MODES['gzip-parts'];
    expect(gz.fileBytes(v1.parts[0]!)).toBe(v1.parts[0]!.gzipBytes);
    expect(v1.parts[0]!.gzipBytes).toBeLessThan(v1.parts[0]!.bytes / 4);
    const bomb = { ...v1, parts: v1.parts.map((p, i) => (i === 0 ? { ...p, changedIn: 99, bytes: MAX_DECOMPRESSED_PART_BYTES + 1 } : p)) };
    expect(() => gz.check(v1, bomb, DEFAULT_COST_MODEL)).toThrow(/past the 67108864-byte bound/);
  });
});

describe('ipsets-simulate (the built command)', () => {
  it('prints the policy-change table for 5,000 nodes in parts within a minute, with the same bytes for the same seed', async () => {
    const args = [CLI, '--scenario', 'policy-change', '--nodes', '5000', '--delivery', 'parts'];
    const first = await run(process.execPath, args, { timeout: 60_000 });
    for (const row of ['publish → node converged, p50', 'publish → every node converged, max', 'API watch bytes per update', 'API watch bytes per hour', 'CPU-seconds per node', 'peak memory per node', 'restores per node per hour']) {
      expect(first.stdout).toContain(row);
    }
    expect(first.stdout).toMatch(/policy-change, 5,000 nodes/);
    const second = await run(process.execPath, args, { timeout: 60_000 });
    expect(second.stdout).toBe(first.stdout);
  }, 130_000);

  it('draws docs/fleet-convergence.svg as it is checked in (the guide’s chart matches the model)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'ipsets-fleet-chart-')), 'chart.svg');
    await run(process.execPath, [CLI, '--scenario', 'policy-change', '--chart', out], { timeout: 180_000 });
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(root, '..', '..', 'docs', 'fleet-convergence.svg'), 'utf8'));
  }, 200_000);

  it('refuses a bad flag with exit 2 and the usage', async () => {
    const failed = await run(process.execPath, [CLI, '--scenario', 'policy-change', '--delivery', 'zip'], { timeout: 30_000 }).catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toMatch(/--delivery expects one of one-file, parts, gzip-parts or all, got "zip"/);
  });

  it('keeps the reference loop as the default scenario', async () => {
    const { stdout } = await run(process.execPath, [CLI, '--nodes', '2', '--events', '200', '--workers', '1'], { timeout: 60_000 });
    expect(stdout).toContain('final check: every node converged');
  });
});

describe('the chart', () => {
  it('draws convergence time against nodes, one line per mode (with the house chart code)', async () => {
    const byNodes = new Map<number, FleetReport[]>();
    for (const nodes of [10, 40]) byNodes.set(nodes, await Promise.all((['one-file', 'parts'] as const).map((delivery) => simulateFleet({ ...small, nodes, delivery }))));
    const svg = renderFleetChart('policy-change', byNodes);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('one-file: every node');
    expect(svg).toContain('parts: median node');
    expect(svg).toMatch(/40 nodes, \d/);
    expect(svg).not.toContain('members,');
  });
});
