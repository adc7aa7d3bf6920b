import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { IpsetsError, isIpsetsError } from '@ipsets/core';
import type { ApplyReport, DesiredState, IpsetPort, ResetReport } from '@ipsets/core';
import { createIpsetAgent } from '../../src/agent/create-agent.js';
import type { AgentClock, AgentDrivers, AgentLogger, AgentManager } from '../../src/agent/api.js';
import { report } from '../helpers/agent-report.js';

function resetReport(leaked: string[] = []): ResetReport {
  return {
    owner: 'azure-npm-',
    converged: true,
    found: ['azure-npm-7', 'azure-npm-8', ...leaked],
    destroyed: ['azure-npm-7', 'azure-npm-8'],
    vanished: [],
    leaked,
    failed: [],
    lists: report(true),
    flush: report(true),
    destroy: report(true),
    problems: [],
  };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

class FakeManager implements AgentManager {
  version = 0;
  gcCalls = 0;
  state: DesiredState = {
    owner: 'azure-npm-',
    sets: [
      { name: 'azure-npm-1', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2'] },
      { name: 'azure-npm-2', spec: 'setlist', members: ['azure-npm-1'] },
    ],
  };
  desiredState(): DesiredState {
    return this.state;
  }
  reconcile(): void {
    this.gcCalls += 1;
  }
}

const port: IpsetPort = {
  restore: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  save: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  listNames: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  listHeaders: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
};

function recordingLogger() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => {
    lines.push({ level, obj, msg });
  };
  const logger: AgentLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

function fakeClock() {
  let now = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const clock: AgentClock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id) => {
      timers.delete(id as number);
    },
  };
  return {
    clock,
    pending: () => timers.size,
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...timers]) {
        if (t.at <= now) {
          timers.delete(id);
          t.fn();
        }
      }
    },
    tick(ms: number) {
      now += ms;
    },
  };
}

async function metric(registry: Registry, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const json = await registry.getMetricsAsJSON();
  const found = json.find((m) => m.name === name);
  return (found?.values ?? []) as { labels: Record<string, string | number>; value: number }[];
}

describe('createIpsetAgent: serialised applies', () => {
  it('never runs two driver calls at once; a call made during one waits and applies the newer delta', async () => {
    const manager = new FakeManager();
    const gates = [deferred<void>(), deferred<void>()];
    const seen: number[] = [];
    let running = 0;
    let maxRunning = 0;
    const drivers: Partial<AgentDrivers<FakeManager>> = {
      apply: async (m) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        seen.push(m.version);
        await gates[seen.length - 1]!.promise;
        running -= 1;
        return report(true);
      },
    };
    const agent = createIpsetAgent({ manager, port, drivers });
    manager.version = 1;
    const first = agent.apply();
    await Promise.resolve();
    manager.version = 2;
    const second = agent.apply();
    const third = agent.apply(); // joins the queued second apply
    expect(third).toBe(second);
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([1]);
    manager.version = 3;
    gates[0]!.resolve();
    await first;
    gates[1]!.resolve();
    await second;
    expect(seen).toEqual([1, 3]);
    expect(maxRunning).toBe(1);
  });

  it('reconcile and reset queue behind a running apply', async () => {
    const manager = new FakeManager();
    const gate = deferred<void>();
    const order: string[] = [];
    const agent = createIpsetAgent({
      manager,
      port,
      drivers: {
        apply: async () => {
          order.push('apply:start');
          await gate.promise;
          order.push('apply:end');
          return report(true);
        },
        reconcile: async (desired) => {
          order.push(`reconcile:${desired.sets.length}`);
          return report(true);
        },
        reset: async (_port, options) => {
          order.push(`reset:${options.owner}`);
          return resetReport();
        },
      },
    });
    const a = agent.apply();
    const r = agent.reconcile();
    const z = agent.reset();
    await new Promise((res) => setTimeout(res, 5));
    expect(order).toEqual(['apply:start']);
    gate.resolve();
    await Promise.all([a, r, z]);
    expect(order).toEqual(['apply:start', 'apply:end', 'reconcile:2', 'reset:azure-npm-']);
  });

  it('a failing operation does not block the queue', async () => {
    const agent = createIpsetAgent({
      manager: new FakeManager(),
      port,
      drivers: {
        reconcile: async () => {
          throw new IpsetsError('KERNEL_READ_FAILED', 'save failed');
        },
        apply: async () => report(true),
      },
    });
    await expect(agent.reconcile()).rejects.toMatchObject({ code: 'KERNEL_READ_FAILED' });
    await expect(agent.apply()).resolves.toMatchObject({ converged: true });
  });
});

describe('createIpsetAgent: consecutive failures', () => {
  it('counts non-converged applies, resets on success, and surfaces MAX_CONSECUTIVE_FAILURES at the limit', async () => {
    const results = [false, false, true, false, false, false];
    const fatals: IpsetsError[] = [];
    const { logger, lines } = recordingLogger();
    const agent = createIpsetAgent({
      manager: new FakeManager(),
      port,
      logger,
      maxConsecutiveFailures: 3,
      onFatal: (e) => fatals.push(e),
      drivers: { apply: async () => report(results.shift()!) },
    });
    await expect(agent.apply()).resolves.toMatchObject({ converged: false });
    expect(agent.consecutiveFailures).toBe(1);
    await agent.apply();
    expect(agent.consecutiveFailures).toBe(2);
    await agent.apply();
    expect(agent.consecutiveFailures).toBe(0);
    await agent.apply();
    await agent.apply();
    const error = await agent.apply().catch((e: unknown) => e);
    expect(isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')).toBe(true);
    expect((error as IpsetsError).message).toContain('3 applies and reconciles in a row did not converge (maxConsecutiveFailures 3)');
    expect(agent.fatalError).toBe(error);
    expect(fatals).toEqual([error]);
    expect(lines.some((l) => l.level === 'error' && l.msg.includes('3 applies and reconciles in a row'))).toBe(true);
    // Sticky: the next call rejects without running the driver.
    await expect(agent.apply()).rejects.toBe(error);
    expect(results).toHaveLength(0);
    agent.clearFatal();
    expect(agent.consecutiveFailures).toBe(0);
    expect(agent.fatalError).toBeUndefined();
  });

  it('an apply with nothing to do (no attempts) leaves the failure count alone, as in the reference', async () => {
    const results = [report(false), report(true, { attempts: [], linesTotal: 0, linesApplied: 0 }), report(false)];
    const agent = createIpsetAgent({ manager: new FakeManager(), port, drivers: { apply: async () => results.shift()! } });
    await agent.apply();
    await agent.apply();
    expect(agent.consecutiveFailures).toBe(1);
    await agent.apply();
    expect(agent.consecutiveFailures).toBe(2);
  });

  it('a driver that throws counts as a failure and the error propagates', async () => {
    const agent = createIpsetAgent({
      manager: new FakeManager(),
      port,
      maxConsecutiveFailures: 2,
      drivers: {
        apply: async () => {
          throw new IpsetsError('INVALID_ARGUMENT', 'bad plan');
        },
      },
    });
    await expect(agent.apply()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(agent.consecutiveFailures).toBe(1);
    await expect(agent.apply()).rejects.toMatchObject({ code: 'MAX_CONSECUTIVE_FAILURES' });
  });

  it('a MAX_CONSECUTIVE_FAILURES thrown by the driver becomes the agent fatal error', async () => {
    const thrown = new IpsetsError('MAX_CONSECUTIVE_FAILURES', 'manager limit');
    const agent = createIpsetAgent({
      manager: new FakeManager(),
      port,
      drivers: {
        apply: async () => {
          throw thrown;
        },
      },
    });
    await expect(agent.apply()).rejects.toBe(thrown);
    expect(agent.fatalError).toBe(thrown);
  });

  it('apply() on a plain desired-state holder rejects with INVALID_ARGUMENT (reconcile() is the way)', async () => {
    const agent = createIpsetAgent({ manager: { desiredState: () => ({ owner: 'azure-npm-', sets: [] }) }, port });
    await expect(agent.apply()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('rejects bad options', () => {
    expect(() => createIpsetAgent({ manager: new FakeManager(), port, maxConsecutiveFailures: 0 })).toThrow(/maxConsecutiveFailures "0"/);
    expect(() => createIpsetAgent({ manager: new FakeManager(), port, reconcileIntervalMs: -1 })).toThrow(/reconcileIntervalMs "-1"/);
    expect(() => createIpsetAgent({ manager: new FakeManager(), port }).start()).toThrow(/needs reconcileIntervalMs/);
  });
});

describe('createIpsetAgent: metrics', () => {
  it('registers on the given registry only, never the global one', async () => {
    const { register } = await import('prom-client');
    const before = (await register.getMetricsAsJSON()).length;
    const registry = new Registry();
    createIpsetAgent({ manager: new FakeManager(), port, registry });
    expect((await register.getMetricsAsJSON()).length).toBe(before);
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual([
      'ipsets_consecutive_failures',
      'ipsets_entries',
      'ipsets_failures_total',
      'ipsets_in_use_sets',
      'ipsets_leaked_sets',
      'ipsets_operation_duration_seconds',
      'ipsets_operations_total',
      'ipsets_restore_attempts',
      'ipsets_sets',
    ]);
  });

  it('two agents can share a registry when their prefixes differ', () => {
    const registry = new Registry();
    createIpsetAgent({ manager: new FakeManager(), port, registry });
    expect(() => createIpsetAgent({ manager: new FakeManager(), port, registry, metricPrefix: 'other_' })).not.toThrow();
  });

  it('reports sets, entries, durations, attempts, failures by kind and leaked sets', async () => {
    const manager = new FakeManager();
    const { clock, tick } = fakeClock();
    const failing = report(false, {
      attempts: [
        { attempt: 1, lineIndices: [0, 1], exitCode: 1, action: 'skip-line', error: { kind: 'set-missing', side: 'kernel', line: 1, message: 'x', transient: false } },
        { attempt: 2, lineIndices: [1], exitCode: 1, action: 'abort', error: { kind: 'syntax', side: 'userspace', line: 1, message: 'y', transient: false } },
      ],
    });
    const agent = createIpsetAgent({
      manager,
      port,
      clock,
      drivers: {
        apply: async () => {
          tick(250);
          return failing;
        },
        reconcile: async () => report(true, { inUseSets: ['azure-npm-9'] }),
        reset: async () => resetReport(['azure-npm-5', 'azure-npm-6']),
      },
    });
    await agent.apply();
    await agent.reconcile();
    await agent.reset();
    const registry = agent.registry;
    expect(await metric(registry, 'ipsets_sets')).toEqual([{ labels: {}, value: 2 }]);
    expect(await metric(registry, 'ipsets_entries')).toEqual([{ labels: {}, value: 3 }]);
    const failures = await metric(registry, 'ipsets_failures_total');
    expect(failures).toEqual(
      expect.arrayContaining([
        { labels: { kind: 'set-missing' }, value: 1 },
        { labels: { kind: 'syntax' }, value: 1 },
      ]),
    );
    const duration = await metric(registry, 'ipsets_operation_duration_seconds');
    const applySum = duration.find((v) => (v as { metricName?: string }).metricName === 'ipsets_operation_duration_seconds_sum' && v.labels['operation'] === 'apply');
    expect(applySum?.value).toBeCloseTo(0.25);
    const attempts = await metric(registry, 'ipsets_restore_attempts');
    const applyAttempts = attempts.find((v) => (v as { metricName?: string }).metricName === 'ipsets_restore_attempts_sum' && v.labels['operation'] === 'apply');
    expect(applyAttempts?.value).toBe(2);
    expect(await metric(registry, 'ipsets_leaked_sets')).toEqual([{ labels: {}, value: 2 }]);
    expect(await metric(registry, 'ipsets_in_use_sets')).toEqual([{ labels: {}, value: 1 }]);
    // The failed apply counted 1; the converged reconcile after it reset the count.
    expect(await metric(registry, 'ipsets_consecutive_failures')).toEqual([{ labels: {}, value: 0 }]);
    const ops = await metric(registry, 'ipsets_operations_total');
    expect(ops).toEqual(
      expect.arrayContaining([
        { labels: { operation: 'apply', outcome: 'not-converged' }, value: 1 },
        { labels: { operation: 'reconcile', outcome: 'converged' }, value: 1 },
        { labels: { operation: 'reset', outcome: 'converged' }, value: 1 },
      ]),
    );
    manager.state = { owner: 'azure-npm-', sets: [] };
    expect(await metric(registry, 'ipsets_sets')).toEqual([{ labels: {}, value: 0 }]);
  });

  it('counts a port failure reported as report.fatal by its code', async () => {
    const agent = createIpsetAgent({
      manager: new FakeManager(),
      port,
      drivers: { apply: async () => report(false, { attempts: [], fatal: { code: 'TIMEOUT', message: 'killed' } }) },
    });
    await agent.apply();
    expect(await metric(agent.registry, 'ipsets_failures_total')).toEqual([{ labels: { kind: 'TIMEOUT' }, value: 1 }]);
  });
});

describe('createIpsetAgent: logging', () => {
  it('is silent by default and logs through a pino-shaped logger', async () => {
    const { logger, lines } = recordingLogger();
    const agent = createIpsetAgent({ manager: new FakeManager(), port, logger, drivers: { apply: async () => report(false) } });
    await agent.apply();
    const warn = lines.find((l) => l.level === 'warn');
    expect(warn?.msg).toBe('apply did not converge');
    expect(warn?.obj).toMatchObject({ converged: false, failedSets: ['azure-npm-1'], consecutiveFailures: 1 });
    const quiet = createIpsetAgent({ manager: new FakeManager(), port, drivers: { apply: async () => report(false) } });
    await expect(quiet.apply()).resolves.toBeDefined();
  });
});

describe('createIpsetAgent: reconcile loop', () => {
  it('each tick applies the pending delta then reconciles; stop() ends it', async () => {
    const manager = new FakeManager();
    const fc = fakeClock();
    const calls: string[] = [];
    const agent = createIpsetAgent({
      manager,
      port,
      clock: fc.clock,
      reconcileIntervalMs: 1000,
      garbageCollect: true,
      drivers: {
        apply: async () => {
          calls.push('apply');
          return report(true);
        },
        reconcile: async () => {
          calls.push('reconcile');
          return report(true);
        },
      },
    });
    agent.start();
    expect(agent.started).toBe(true);
    fc.advance(999);
    expect(calls).toEqual([]);
    fc.advance(1);
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toEqual(['apply', 'reconcile']);
    expect(manager.gcCalls).toBe(1);
    expect(fc.pending()).toBe(1);
    fc.advance(1000);
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toEqual(['apply', 'reconcile', 'apply', 'reconcile']);
    await agent.stop();
    expect(agent.started).toBe(false);
    expect(fc.pending()).toBe(0);
    fc.advance(5000);
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toHaveLength(4);
  });

  it('a loop over a plain desired-state holder reconciles on every tick', async () => {
    // Defect pinned: the tick began with an apply that only an IPSetManager can make; its
    // INVALID_ARGUMENT ended the tick before the reconcile, so such a loop never ran one.
    const fc = fakeClock();
    let reconciles = 0;
    const agent = createIpsetAgent({
      manager: new FakeManager(),
      port,
      clock: fc.clock,
      reconcileIntervalMs: 10,
      drivers: {
        reconcile: async () => {
          reconciles += 1;
          return report(true);
        },
      },
    });
    agent.start();
    fc.advance(10);
    await new Promise((r) => setTimeout(r, 5));
    fc.advance(10);
    await new Promise((r) => setTimeout(r, 5));
    expect(reconciles).toBe(2);
    expect(agent.consecutiveFailures).toBe(0);
    await agent.stop();
  });

  it('the loop survives a failing tick and stops itself at the failure limit (apply and reconcile both count)', async () => {
    const fc = fakeClock();
    let applies = 0;
    const agent = createIpsetAgent({
      manager: new FakeManager(),
      port,
      clock: fc.clock,
      reconcileIntervalMs: 10,
      maxConsecutiveFailures: 3,
      drivers: {
        apply: async () => {
          applies += 1;
          return report(false);
        },
        reconcile: async () => {
          throw new Error('reconcile broke');
        },
      },
    });
    agent.start();
    fc.advance(10);
    await new Promise((r) => setTimeout(r, 5));
    expect(applies).toBe(1);
    expect(agent.consecutiveFailures).toBe(2);
    expect(agent.started).toBe(true);
    fc.advance(10);
    await new Promise((r) => setTimeout(r, 5));
    expect(applies).toBe(2);
    expect(agent.fatalError?.code).toBe('MAX_CONSECUTIVE_FAILURES');
    expect(agent.started).toBe(false);
    expect(fc.pending()).toBe(0);
    expect(() => agent.start()).toThrow(agent.fatalError!);
  });
});

describe('reset forgets the manager whatever the kernel outcome (as the reference)', () => {
  it('a reset whose kernel side throws still resets the manager; the error reaches the caller', async () => {
    let resets = 0;
    const manager: AgentManager = { desiredState: () => ({ owner: 'azure-npm-', sets: [] }), reset: () => void (resets += 1) };
    const port = {} as IpsetPort;
    const agent = createIpsetAgent({
      manager,
      port,
      drivers: {
        reset: async () => {
          throw new IpsetsError('KERNEL_READ_FAILED', 'ipset list -n failed (exit 1)');
        },
      },
    });
    await expect(agent.reset()).rejects.toMatchObject({ code: 'KERNEL_READ_FAILED' });
    expect(resets).toBe(1);
  });

  it('resetManager: false leaves the manager alone, whatever the outcome', async () => {
    let resets = 0;
    const manager: AgentManager = { desiredState: () => ({ owner: 'azure-npm-', sets: [] }), reset: () => void (resets += 1) };
    const agent = createIpsetAgent({ manager, port: {} as IpsetPort, resetManager: false, drivers: { reset: async () => resetReport() } });
    await agent.reset();
    expect(resets).toBe(0);
  });
});
