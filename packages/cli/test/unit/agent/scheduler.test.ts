import { describe, expect, it } from 'vitest';
import { ApplyScheduler } from '../../../src/agent/scheduler.js';
import type { SchedulerClock } from '../../../src/agent/scheduler.js';

/** A clock whose time moves only when the test says so; timers fire in time order. */
function virtualClock(): SchedulerClock & { now: number; advance(ms: number): Promise<void>; pending(): number } {
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock = {
    now: 0,
    setTimeout(fn: () => void, ms: number): unknown {
      const id = ++seq;
      timers.set(id, { at: clock.now + ms, fn });
      return id;
    },
    clearTimeout(handle: unknown): void {
      timers.delete(handle as number);
    },
    pending: () => timers.size,
    async advance(ms: number): Promise<void> {
      const end = clock.now + ms;
      for (;;) {
        let next: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= end && (next === undefined || entry[1].at < next[1].at)) next = entry;
        if (next === undefined) break;
        timers.delete(next[0]);
        clock.now = next[1].at;
        next[1].fn();
        // Let the tick's promise chain (onTick, trigger, run) settle before the next timer.
        await new Promise((ok) => setImmediate(ok));
      }
      clock.now = end;
    },
  };
  return clock;
}

describe('ApplyScheduler', () => {
  it('ticks at a fixed rate on an injected clock, even while a long apply runs (the fleet simulation runs it in virtual time)', async () => {
    const clock = virtualClock();
    const ticks: number[] = [];
    const runs: string[] = [];
    let release: (() => void) | undefined;
    const scheduler = new ApplyScheduler({
      intervalMs: 1000,
      clock,
      onTick: async () => {
        ticks.push(clock.now);
      },
      run: async (why) => {
        runs.push(`${why}@${clock.now}`);
        if (why === 'start') await new Promise<void>((ok) => (release = ok));
      },
    });
    scheduler.trigger('start');
    scheduler.start();
    await clock.advance(3500);
    // Three ticks while the start apply still runs: they collapse into ONE more apply.
    expect(ticks).toEqual([1000, 2000, 3000]);
    expect(runs).toEqual(['start@0']);
    expect(scheduler.busy).toBe(true);
    release!();
    await new Promise((ok) => setImmediate(ok));
    expect(runs).toEqual(['start@0', 'interval@3500']);
    await clock.advance(500);
    expect(ticks).toEqual([1000, 2000, 3000, 4000]);
    expect(runs).toEqual(['start@0', 'interval@3500', 'interval@4000']);
    await scheduler.halt();
    // halt clears the clock's timer: no tick ever fires again.
    expect(clock.pending()).toBe(0);
    await clock.advance(10_000);
    expect(ticks).toHaveLength(4);
  });

  it('uses real timers when no clock is given', async () => {
    const runs: string[] = [];
    const scheduler = new ApplyScheduler({ intervalMs: 20, run: async (why) => void runs.push(why) });
    scheduler.start();
    await new Promise((ok) => setTimeout(ok, 75));
    await scheduler.halt();
    const seen = runs.length;
    expect(seen).toBeGreaterThanOrEqual(2);
    expect(runs.every((r) => r === 'interval')).toBe(true);
    await new Promise((ok) => setTimeout(ok, 60));
    expect(runs).toHaveLength(seen);
  });
});
