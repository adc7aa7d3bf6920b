/**
 * The agent as a node process runs it: one failure policy for applies and
 * reconciles, graceful stop, health for /livez and /readyz, one structured log line
 * per operation (a real pino logger), and the kernel lock around every operation.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IpsetsError, isIpsetsError } from '@ipsets/core';
import type { AbortSignalLike, ApplyReport, DesiredState, IpsetPort } from '@ipsets/core';
import { createIpsetAgent } from '../../src/agent/create-agent.js';
import type { AgentClock, AgentManager } from '../../src/agent/api.js';
import { acquireKernelLock } from '../../src/kernel-lock.js';
import { startFixture } from '../helpers/child.js';
import type { Child } from '../helpers/child.js';
import { report as oneAttemptReport } from '../helpers/agent-report.js';

/** The shared one-attempt report, over four lines (two applied when not converged). */
function report(converged: boolean, extra: Partial<ApplyReport> = {}): ApplyReport {
  return oneAttemptReport(converged, { linesTotal: 4, linesApplied: converged ? 4 : 2, ...extra });
}

const manager: AgentManager = {
  desiredState: (): DesiredState => ({ owner: 'azure-npm-', sets: [{ name: 'azure-npm-1', spec: 'nethash', members: ['10.0.0.1'] }] }),
};

const port: IpsetPort = {
  restore: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  save: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  listNames: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  listHeaders: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
};

/** A driver that runs until its signal aborts, then ends as the port would: an ABORTED report. */
function untilAborted(started: () => void) {
  return (_desired: DesiredState, _port: IpsetPort, o: { signal?: AbortSignalLike }): Promise<ApplyReport> =>
    new Promise((resolve) => {
      started();
      o.signal?.addEventListener('abort', () =>
        resolve(report(false, { failedSets: ['azure-npm-1', 'azure-npm-2'], fatal: { code: 'ABORTED', message: 'ipset restore could not be run: aborted' } })),
      );
    });
}

function manualClock() {
  let now = 0;
  const clock: AgentClock = { now: () => now, setTimeout: () => 0, clearTimeout: () => undefined };
  return { clock, add: (ms: number) => (now += ms) };
}

async function metricValue(agent: { registry: { getSingleMetricAsString(name: string): Promise<string> } }, name: string): Promise<string> {
  return (await agent.registry.getSingleMetricAsString(name)).split('\n').filter((l) => !l.startsWith('#')).join('\n');
}

describe('agent: one consecutive-failure policy for applies and reconciles', () => {
  it('reconcile counts: ipsets_consecutive_failures rises on the way and the limit turns the agent fatal', async () => {
    // Defect pinned: reconcile() never counted, so the gauge stayed 0 and the limit never fired
    // for an agent that only reconciles (as the ipsets agent command does).
    const fatals: IpsetsError[] = [];
    const agent = createIpsetAgent({
      manager,
      port,
      maxConsecutiveFailures: 3,
      onFatal: (e) => fatals.push(e),
      drivers: { reconcile: async () => report(false) },
    });
    await agent.reconcile();
    expect(await metricValue(agent, 'ipsets_consecutive_failures')).toBe('ipsets_consecutive_failures 1');
    await agent.reconcile();
    expect(await metricValue(agent, 'ipsets_consecutive_failures')).toBe('ipsets_consecutive_failures 2');
    const error = await agent.reconcile().catch((e: unknown) => e);
    expect(isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')).toBe(true);
    expect(fatals).toEqual([error]);
    expect(await metricValue(agent, 'ipsets_consecutive_failures')).toBe('ipsets_consecutive_failures 3');
    await expect(agent.reconcile()).rejects.toBe(error);
    await expect(agent.apply()).rejects.toBe(error);
  });

  it('a converged reconcile resets the count that failed applies built up; an aborted one leaves it', async () => {
    const results = [report(false), report(false), report(false, { fatal: { code: 'ABORTED', message: 'stopped' } }), report(true)];
    const agent = createIpsetAgent({
      manager,
      port,
      drivers: { apply: async () => results.shift()!, reconcile: async () => results.shift()! },
    });
    await agent.apply();
    await agent.reconcile();
    expect(agent.consecutiveFailures).toBe(2);
    await agent.reconcile();
    expect(agent.consecutiveFailures).toBe(2);
    await agent.reconcile();
    expect(agent.consecutiveFailures).toBe(0);
  });
});

describe('agent: stop({ graceMs })', () => {
  it('lets the operation in flight finish within the grace period and reports it', async () => {
    let finish!: () => void;
    const agent = createIpsetAgent({
      manager,
      port,
      drivers: { reconcile: () => new Promise<ApplyReport>((resolve) => (finish = () => resolve(report(true)))) },
    });
    const running = agent.reconcile();
    await new Promise((r) => setTimeout(r, 5));
    const stopping = agent.stop({ graceMs: 10_000 });
    setTimeout(() => finish(), 50);
    const result = await stopping;
    expect(result).toMatchObject({ inFlight: 'reconcile', aborted: false, report: { converged: true } });
    await expect(running).resolves.toMatchObject({ converged: true });
  });

  it('aborts the operation after graceMs (the port kills ipset) and returns its report naming the uncertain sets', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = { debug() {}, info: (o: Record<string, unknown>) => lines.push(o), warn: (o: Record<string, unknown>) => lines.push(o), error() {} };
    let started = false;
    const agent = createIpsetAgent({ manager, port, logger, drivers: { reconcile: untilAborted(() => (started = true)) } });
    const running = agent.reconcile();
    await new Promise((r) => setTimeout(r, 5));
    expect(started).toBe(true);
    const queued = agent.reconcile();
    const begin = performance.now();
    const result = await agent.stop({ graceMs: 100 });
    expect(performance.now() - begin).toBeGreaterThanOrEqual(90);
    expect(result.aborted).toBe(true);
    expect(result.inFlight).toBe('reconcile');
    const aborted = result.report as ApplyReport;
    expect(aborted.fatal?.code).toBe('ABORTED');
    expect(aborted.failedSets).toEqual(['azure-npm-1', 'azure-npm-2']);
    await expect(running).resolves.toBe(aborted);
    // Work queued behind it never starts once the agent is stopping.
    await expect(queued).rejects.toMatchObject({ code: 'ABORTED', message: expect.stringContaining('the agent is stopping') });
    expect(agent.consecutiveFailures).toBe(0);
    expect(lines.at(-1)).toMatchObject({ operation: 'stop', inFlight: 'reconcile', aborted: true, graceMs: 100 });
    // The agent can be used again after a stop.
    const fresh = createIpsetAgent({ manager, port, drivers: { reconcile: async () => report(true) } });
    await fresh.stop();
    await expect(fresh.reconcile()).resolves.toMatchObject({ converged: true });
  });

  it('a second stop with graceMs 0 aborts at once', async () => {
    const agent = createIpsetAgent({ manager, port, drivers: { reconcile: untilAborted(() => undefined) } });
    void agent.reconcile();
    await new Promise((r) => setTimeout(r, 5));
    const first = agent.stop({ graceMs: 60_000 });
    const second = agent.stop({ graceMs: 0 });
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBe(b);
    expect((a.report as ApplyReport).fatal?.code).toBe('ABORTED');
  });
});

describe('agent: health() for /livez and /readyz', () => {
  it('not ready before the first operation, ready after a converged one, live throughout', async () => {
    const results = [report(true, { inUseSets: ['azure-npm-9'] }), report(false)];
    const agent = createIpsetAgent({ manager, port, drivers: { reconcile: async () => results.shift()! } });
    expect(agent.health()).toMatchObject({ live: true, ready: false, problems: ['no apply or reconcile has finished yet'] });
    await agent.reconcile();
    // Only in-use leftovers: still ready.
    expect(agent.health()).toMatchObject({ live: true, ready: true, problems: [], lastOperation: { operation: 'reconcile', converged: true, inUseSets: ['azure-npm-9'] } });
    await agent.reconcile();
    const h = agent.health();
    // One failing set never makes the agent not live: a restart would not fix it.
    expect(h).toMatchObject({ live: true, ready: false, consecutiveFailures: 1, lastOperation: { outcome: 'not-converged', failedSets: ['azure-npm-1'] } });
    expect(h.problems[0]).toContain('the last reconcile did not converge');
  });

  it('an operation stuck past stuckAfterMs makes the agent not live', async () => {
    const { clock, add } = manualClock();
    let finish!: () => void;
    const agent = createIpsetAgent({
      manager,
      port,
      clock,
      stuckAfterMs: 1000,
      drivers: { reconcile: () => new Promise<ApplyReport>((resolve) => (finish = () => resolve(report(true)))) },
    });
    const running = agent.reconcile();
    await new Promise((r) => setTimeout(r, 5));
    add(999);
    expect(agent.health()).toMatchObject({ live: true, inFlight: { operation: 'reconcile', runningMs: 999 } });
    add(2);
    const h = agent.health();
    expect(h.live).toBe(false);
    expect(h.problems).toContain('the reconcile in flight has run for 1001 ms, past stuckAfterMs 1000');
    finish();
    await running;
    expect(agent.health()).toMatchObject({ live: true, ready: true });
  });

  it('a started loop that stops ticking is not live; the fatal limit is neither live nor ready', async () => {
    const { clock, add } = manualClock();
    const agent = createIpsetAgent({ manager, port, clock, reconcileIntervalMs: 100, maxConsecutiveFailures: 1, drivers: { reconcile: async () => report(false) } });
    agent.start();
    add(300);
    expect(agent.health().live).toBe(true);
    add(1);
    expect(agent.health()).toMatchObject({ live: false, problems: expect.arrayContaining(['the reconcile loop has not ticked for 301 ms (interval 100 ms)']) });
    await agent.stop();
    await agent.reconcile().catch(() => undefined);
    expect(agent.health()).toMatchObject({ live: false, ready: false, fatal: { code: 'MAX_CONSECUTIVE_FAILURES' } });
  });
});

describe('agent: logs', () => {
  it('a real pino logger plugs in: one JSON line per operation with the documented fields', async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ level: 'debug' }, stream);
    const many = Array.from({ length: 25 }, (_, i) => `azure-npm-${i}`);
    const results = [report(true), report(false, { failedSets: many, inUseSets: many })];
    const agent = createIpsetAgent({
      manager,
      port,
      logger,
      drivers: {
        reconcile: async () => results.shift()!,
        apply: async () => {
          throw new IpsetsError('KERNEL_READ_FAILED', 'ipset save exited with 1');
        },
      },
    });
    await agent.reconcile();
    await agent.reconcile();
    await agent.apply().catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    const lines = chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'reconcile converged', operation: 'reconcile', converged: true, linesTotal: 4, linesApplied: 4, attempts: 1, consecutiveFailures: 0 });
    expect(typeof lines[0]!['durationMs']).toBe('number');
    expect(typeof lines[0]!['time']).toBe('number');
    expect(lines[1]).toMatchObject({ level: 40, msg: 'reconcile did not converge', converged: false, failedSetsCount: 25, inUseSetsCount: 25, consecutiveFailures: 1 });
    expect(lines[1]!['failedSets']).toHaveLength(10);
    expect(lines[1]!['inUseSets']).toHaveLength(10);
    expect(lines[2]).toMatchObject({ level: 50, msg: 'apply failed', operation: 'apply', converged: false, code: 'KERNEL_READ_FAILED', consecutiveFailures: 2 });
    expect((lines[2]!['err'] as { message: string }).message).toBe('ipset save exited with 1');
  });
});

describe('agent: the kernel lock', () => {
  let dir: string;
  let lockPath: string;
  const children: Child[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ipsets-h3-agent-lock-'));
    lockPath = join(dir, 'host.lock');
  });
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
      await c.exited;
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('holds the lock for the whole operation: a second writer process waits and gets LOCK_HELD naming the agent', async () => {
    let finish!: () => void;
    let sawLock: unknown;
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const agent = createIpsetAgent({
      manager,
      port,
      lock: { path: lockPath, waitMs: 1000, command: 'ipsets agent test' },
      drivers: {
        reconcile: async () => {
          sawLock = await acquireKernelLock({ path: lockPath, waitMs: 0 }).then(
            (l) => l.release(),
            (e: unknown) => e,
          );
          const done = new Promise<void>((resolve) => (finish = resolve));
          inside();
          await done;
          return report(true);
        },
      },
    });
    const running = agent.reconcile();
    await entered;
    expect(isIpsetsError(sawLock, 'LOCK_HELD')).toBe(true);
    const writer = startFixture('lock-child.ts', [lockPath, '300']);
    children.push(writer);
    const line = await writer.nextLine();
    expect(line).toMatchObject({ locked: false, code: 'LOCK_HELD' });
    expect(String(line['message'])).toContain(`held by pid ${process.pid} ("ipsets agent test"`);
    finish();
    await running;
    // Released after the operation.
    await (await acquireKernelLock({ path: lockPath, waitMs: 0 })).release();
  });

  it('an operation that cannot get the lock fails with LOCK_HELD and counts as a failure', async () => {
    const holder = startFixture('lock-child.ts', [lockPath, '0']);
    children.push(holder);
    await holder.nextLine();
    let ran = false;
    const agent = createIpsetAgent({
      manager,
      port,
      lock: { path: lockPath, waitMs: 100 },
      drivers: {
        reconcile: async () => {
          ran = true;
          return report(true);
        },
      },
    });
    const error = await agent.reconcile().catch((e: unknown) => e);
    expect(isIpsetsError(error, 'LOCK_HELD')).toBe(true);
    expect((error as IpsetsError).message).toContain(`held by pid ${holder.pid}`);
    expect(ran).toBe(false);
    expect(agent.consecutiveFailures).toBe(1);
    expect(await metricValue(agent, 'ipsets_failures_total')).toBe('ipsets_failures_total{kind="LOCK_HELD"} 1');
  });

  it('one hold per loop tick: the apply and the reconcile of a tick run under one acquisition, released between ticks', async () => {
    // Defect pinned: a tick took the lock for its apply, released it, and took it again
    // for its reconcile, so another writer could slip in between the two.
    const counter = join(dir, 'flock-calls');
    const flock = join(dir, 'counting-flock');
    await writeFile(counter, '');
    await writeFile(flock, `#!/bin/sh\necho x >> ${counter}\nexec flock "$@"\n`, { mode: 0o755 });
    const acquisitions = async (): Promise<number> => (await readFile(counter, 'utf8')).split('\n').filter(Boolean).length;
    const seen: { step: string; acquisitions: number; otherWriter: 'got it' | 'LOCK_HELD' }[] = [];
    const otherWriter = async (): Promise<'got it' | 'LOCK_HELD'> =>
      acquireKernelLock({ path: lockPath, waitMs: 0 }).then(
        async (l) => {
          await l.release();
          return 'got it' as const;
        },
        () => 'LOCK_HELD' as const,
      );
    let ticks = 0;
    let ticked!: () => void;
    const twoTicks = new Promise<void>((resolve) => (ticked = resolve));
    const step = async (name: string): Promise<ApplyReport> => {
      seen.push({ step: name, acquisitions: await acquisitions(), otherWriter: await otherWriter() });
      return report(true);
    };
    const agent = createIpsetAgent({
      manager,
      port,
      reconcileIntervalMs: 20,
      lock: { path: lockPath, waitMs: 1000, flockPath: flock },
      drivers: {
        apply: () => step('apply'),
        reconcile: async () => {
          const done = await step('reconcile');
          if (++ticks === 2) ticked();
          return done;
        },
      },
    });
    agent.start();
    await twoTicks;
    await agent.stop();
    // Between the two ticks the lock was free: a writer polling then would have got it.
    expect(await otherWriter()).toBe('got it');
    const [apply1, reconcile1, apply2, reconcile2] = seen;
    expect(seen.map((s) => s.step).slice(0, 4)).toEqual(['apply', 'reconcile', 'apply', 'reconcile']);
    for (const s of seen) expect(s.otherWriter, s.step).toBe('LOCK_HELD');
    // Only the agent runs the counting flock (the probes use the plain one): no new
    // acquisition between a tick's apply and its reconcile, a new one for the next tick.
    expect(reconcile1!.acquisitions).toBe(apply1!.acquisitions);
    expect(reconcile2!.acquisitions).toBe(apply2!.acquisitions);
    expect(apply2!.acquisitions).toBeGreaterThan(reconcile1!.acquisitions);
  });

  it('stop() aborts a wait for the lock', async () => {
    const holder = startFixture('lock-child.ts', [lockPath, '0']);
    children.push(holder);
    await holder.nextLine();
    const agent = createIpsetAgent({ manager, port, lock: { path: lockPath, waitMs: 60_000 }, drivers: { reconcile: async () => report(true) } });
    const running = agent.reconcile().catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    const result = await agent.stop({ graceMs: 50 });
    expect(result).toMatchObject({ inFlight: 'reconcile', aborted: true, error: { code: 'ABORTED' } });
    expect(isIpsetsError(await running, 'ABORTED')).toBe(true);
  });
});

describe('agent: the default apply driver', () => {
  it('counts on the agent only: the manager’s own limit no longer fires beside it', async () => {
    // Defect pinned: core's applyIPSets also counted on the manager, a second limit with
    // the same default that no converged reconcile ever reset.
    const { IPSetManager } = await import('@ipsets/core');
    const manager = new IPSetManager({ maxConsecutiveFailures: 2 });
    manager.createIPSets([{ name: 'team-a', type: 'namespace' }]);
    manager.addToSets([{ name: 'team-a', type: 'namespace' }], '10.0.0.1', 'pod-1');
    let restores = 0;
    const failing: IpsetPort = {
      ...port,
      restore: async () => {
        restores += 1;
        return { exitCode: 1, stdout: '', stderr: 'ipset v7.17: Error in line 1: Kernel error received: maximal number of sets reached, cannot create more.\n' };
      },
    };
    const agent = createIpsetAgent({ manager, port: failing, maxConsecutiveFailures: 4 });
    for (let i = 1; i <= 3; i++) {
      await expect(agent.apply()).resolves.toMatchObject({ converged: false });
      expect(agent.consecutiveFailures).toBe(i);
    }
    expect(manager.consecutiveApplyFailures).toBe(0);
    expect(agent.fatalError).toBeUndefined();
    await expect(agent.apply()).rejects.toMatchObject({ code: 'MAX_CONSECUTIVE_FAILURES' });
    expect(restores).toBeGreaterThanOrEqual(4);
  });
});
