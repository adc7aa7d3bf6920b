/**
 * The loop's ticks on demand: `trigger(why)` runs a tick now, triggers while one runs
 * collapse into exactly one more, `beforeTick` runs first and `onTick` says how each
 * ended — what a process that watches its desired state (the CLI's agent) needs.
 */
import { describe, expect, it } from 'vitest';
import type { ApplyReport, DesiredState, IpsetPort } from '@ipsets/core';
import { createIpsetAgent } from '../../../src/agent/create-agent.js';
import type { AgentClock, AgentManager, AgentTick } from '../../../src/agent/api.js';
import { report } from '../../helpers/agent-report.js';

const manager: AgentManager = { desiredState: (): DesiredState => ({ owner: 'azure-npm-', sets: [] }) };
const ok = async () => ({ exitCode: 0, stdout: '', stderr: '' });
const port: IpsetPort = { restore: ok, save: ok, listNames: ok, listHeaders: ok };

/** Timers run only when `fire()` is called. */
function timerClock() {
  const timers = new Map<number, () => void>();
  let id = 0;
  const clock: AgentClock = {
    now: () => 0,
    setTimeout: (fn) => (timers.set(++id, fn), id),
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  return {
    clock,
    armed: () => timers.size,
    fire: () => {
      const all = [...timers.values()];
      timers.clear();
      all.forEach((f) => f());
    },
  };
}

describe('agent triggers', () => {
  it('trigger() ticks now; triggers during a tick collapse into one more; beforeTick and onTick see the reason', async () => {
    const events: string[] = [];
    const releases: (() => void)[] = [];
    const ticks: AgentTick[] = [];
    const { clock, armed } = timerClock();
    const agent = createIpsetAgent({
      manager,
      port,
      clock,
      reconcileIntervalMs: 1000,
      beforeTick: (why) => void events.push(`before ${why}`),
      onTick: (tick) => void ticks.push(tick),
      drivers: {
        reconcile: () =>
          new Promise<ApplyReport>((resolve) => {
            events.push('reconcile');
            releases.push(() => resolve(report(true)));
          }),
      },
    });
    agent.trigger('ignored: not started');
    expect(events).toEqual([]);
    agent.start();
    expect(armed()).toBe(1);
    agent.trigger('start');
    // The interval timer waits for the tick to end.
    expect(armed()).toBe(0);
    await new Promise((r) => setTimeout(r, 0));
    agent.trigger('file changed');
    agent.trigger('file changed again');
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 5));
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 5));
    expect(events).toEqual(['before start', 'reconcile', 'before file changed', 'reconcile']);
    expect(ticks.map((t) => [t.why, t.report?.converged])).toEqual([
      ['start', true],
      ['file changed', true],
    ]);
    expect(armed()).toBe(1);
    await agent.stop();
    expect(armed()).toBe(0);
  });

  it('the interval tick is named interval; a tick that throws reports its error, and beforeTick failing does not stop it', async () => {
    const ticks: AgentTick[] = [];
    const { clock, fire } = timerClock();
    let calls = 0;
    const agent = createIpsetAgent({
      manager,
      port,
      clock,
      reconcileIntervalMs: 1000,
      beforeTick: () => {
        throw new Error('source unreadable');
      },
      onTick: (tick) => void ticks.push(tick),
      drivers: {
        reconcile: async () => {
          calls++;
          if (calls === 2) throw new Error('kernel gone');
          return report(false);
        },
      },
    });
    agent.start();
    fire();
    await new Promise((r) => setTimeout(r, 5));
    fire();
    await new Promise((r) => setTimeout(r, 5));
    expect(ticks.map((t) => t.why)).toEqual(['interval', 'interval']);
    expect(ticks[0]!.report?.converged).toBe(false);
    expect((ticks[1]!.error as Error).message).toBe('kernel gone');
    expect(agent.consecutiveFailures).toBe(2);
    await agent.stop();
  });
});
