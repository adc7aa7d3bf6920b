/**
 * Virtual time for the fleet: one timer queue for every simulated node, in
 * milliseconds. The real agent code (the library agent and its loop)
 * runs on it through the clock seams they take (`setTimeout`/`clearTimeout`/`now`).
 *
 * Timers fire in time order, ties in the order they were set. After each timer the
 * queue waits for a macrotask (`setImmediate`), so every promise chain the callback
 * started (an apply, a tick's file check) has settled as far as it can before virtual
 * time moves on: what a real event loop does between two timers, minus the waiting.
 */
import type { AgentClock } from '@ipsets/exec-linux';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A virtual clock (see the module comment). */
export class VirtualClock implements AgentClock {
  private heap: Timer[] = [];
  private seq = 0;
  private time: number;
  /** Timers fired so far (the simulation's own cost, reported on stderr). */
  fired = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer: Timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.push(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    if (handle !== undefined && handle !== null) (handle as Timer).cancelled = true;
  }

  /** Resolves after `ms` of virtual time. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }

  /**
   * Runs timers in order until none is due at or before `until` (then time is `until`),
   * or until `done()` says so after a timer (then time stays where it is).
   */
  async runUntil(until: number, done?: () => boolean): Promise<void> {
    for (;;) {
      if (done?.() === true) return;
      const next = this.heap[0];
      if (next === undefined || next.at > until) break;
      this.pop();
      if (next.cancelled) continue;
      this.time = next.at;
      this.fired++;
      next.fn();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.time = Math.max(this.time, until);
  }

  private before(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(timer: Timer): void {
    const h = this.heap;
    h.push(timer);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
