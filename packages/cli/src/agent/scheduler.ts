/**
 * When the agent applies: at start, after a change of the file, and on every
 * interval tick. Applies never overlap: triggers during an apply collapse into
 * exactly one more. (How long a stop waits for the apply in flight is the library
 * agent's `stop({ graceMs })`.)
 *
 * The interval runs on a clock that is real timers unless one is given: the fleet
 * simulation (`examples/simulator`) runs this same scheduler in virtual time. The
 * clock has the shape of the library agent's `AgentClock`, so that both agents can
 * share one when they become one.
 */
import type { AgentClock } from '@ipsets/exec-linux';

/** The timers the scheduler needs (the library agent's {@link AgentClock} fits). */
export type SchedulerClock = Pick<AgentClock, 'setTimeout' | 'clearTimeout'>;

const REAL_TIMERS: SchedulerClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Options of {@link ApplyScheduler}. */
export interface ApplySchedulerOptions {
  /** Tick period (ms). */
  intervalMs: number;
  /** Runs one apply; never rejects (it reports its own errors). */
  run(why: string): Promise<void>;
  /** Called on every tick before the tick's apply (the file re-check). */
  onTick?(): Promise<void>;
  /** The interval's timers (default: real timers). */
  clock?: SchedulerClock;
}

/** Serialises applies and runs the interval loop. */
export class ApplyScheduler {
  private running: Promise<void> | undefined;
  private pending: string | undefined;
  private stopped = false;
  private timer: unknown;

  constructor(private readonly options: ApplySchedulerOptions) {}

  /** True while an apply runs. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Asks for an apply (`why` is logged with it). */
  trigger(why: string): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.pending ??= why;
      return;
    }
    this.running = (async () => {
      let next: string | undefined = why;
      while (next !== undefined && !this.stopped) {
        this.pending = undefined;
        await this.options.run(next);
        next = this.pending;
      }
      this.running = undefined;
    })();
  }

  /**
   * Starts the interval loop: a tick every `intervalMs` from now, at a fixed rate (the
   * next tick is armed before this one's check runs, as `setInterval` would), whether
   * or not an apply is running.
   */
  start(): void {
    const clock = this.options.clock ?? REAL_TIMERS;
    const tick = async (): Promise<void> => {
      if (this.stopped) return;
      await this.options.onTick?.();
      this.trigger('interval');
    };
    const arm = (): void => {
      this.timer = clock.setTimeout(() => {
        if (this.stopped) return;
        arm();
        void tick();
      }, this.options.intervalMs);
    };
    arm();
  }

  /** Stops: no more triggers or ticks; resolves when the apply in flight (if any) has ended. */
  async halt(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) (this.options.clock ?? REAL_TIMERS).clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
