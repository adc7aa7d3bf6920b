/**
 * The timer of the reconcile loop that `start()` runs: one tick per interval, the next
 * one scheduled only after the previous tick settled (ticks never pile up), ticks on
 * demand (`trigger`, collapsed while one runs), and the heartbeat that `health()`
 * reads to tell a loop that stopped ticking.
 */
import type { AgentClock } from './api.js';

/** Schedules the ticks of one agent's loop. */
export class ReconcileLoop {
  /** True between `start()` and `stop()` (or the fatal limit). */
  started = false;
  /** The tick running now. */
  tick: Promise<void> | undefined;
  /** When the loop last showed progress (started, a tick began or ended). */
  beat = 0;
  private timer: unknown;
  /** A trigger that arrived while a tick ran: one more tick follows it. */
  private pending: string | undefined;

  constructor(
    private readonly clock: AgentClock,
    private readonly intervalMs: number | undefined,
    private readonly runTick: (why: string) => Promise<void>,
  ) {}

  /** Starts ticking (no-op when started). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.beat = this.clock.now();
    this.schedule();
  }

  /** Stops scheduling; a tick already running goes on (await {@link tick}). */
  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
    this.started = false;
  }

  /** A tick now (or, while one runs, exactly one more after it). */
  trigger(why: string): void {
    if (!this.started) return;
    if (this.tick !== undefined) {
      this.pending ??= why;
      return;
    }
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.run(why);
  }

  private run(why: string): void {
    this.beat = this.clock.now();
    this.tick = this.runTick(why).finally(() => {
      this.tick = undefined;
      this.beat = this.clock.now();
      const next = this.pending;
      this.pending = undefined;
      if (next !== undefined && this.started) this.run(next);
      else this.schedule();
    });
  }

  private schedule(): void {
    if (!this.started || this.intervalMs === undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.run('interval');
    }, this.intervalMs);
  }
}
