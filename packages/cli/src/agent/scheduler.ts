/**
 * When the agent applies: at start, after a change of the file, and on every
 * interval tick. Applies never overlap: triggers during an apply collapse into
 * exactly one more. (How long a stop waits for the apply in flight is the library
 * agent's `stop({ graceMs })`.)
 */

/** Options of {@link ApplyScheduler}. */
export interface ApplySchedulerOptions {
  /** Tick period (ms). */
  intervalMs: number;
  /** Runs one apply; never rejects (it reports its own errors). */
  run(why: string): Promise<void>;
  /** Called on every tick before the tick's apply (the file re-check). */
  onTick?(): Promise<void>;
}

/** Serialises applies and runs the interval loop. */
export class ApplyScheduler {
  private running: Promise<void> | undefined;
  private pending: string | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

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

  /** Starts the interval loop. */
  start(): void {
    const tick = async (): Promise<void> => {
      if (this.stopped) return;
      await this.options.onTick?.();
      this.trigger('interval');
    };
    this.timer = setInterval(() => void tick(), this.options.intervalMs);
  }

  /** Stops: no more triggers or ticks; resolves when the apply in flight (if any) has ended. */
  async halt(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
