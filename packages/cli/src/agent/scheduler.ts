/**
 * When the agent applies: at start, after a change of the file, and on every
 * interval tick. Applies never overlap: triggers during an apply collapse into
 * exactly one more. A stop lets the apply in flight finish for the grace period,
 * then has it aborted.
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

/** How a stop ended. */
export type StopOutcome = 'idle' | 'finished' | 'aborted';

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

  /**
   * Stops: no more triggers; waits for the apply in flight up to `graceMs`, then calls
   * `abort` and waits for the apply to end.
   */
  async stop(graceMs: number, abort: () => void): Promise<StopOutcome> {
    this.stopped = true;
    clearInterval(this.timer);
    const running = this.running;
    if (running === undefined) return 'idle';
    let grace: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      running.then(() => true),
      new Promise<boolean>((ok) => {
        grace = setTimeout(() => ok(false), graceMs);
      }),
    ]);
    clearTimeout(grace);
    if (inTime) return 'finished';
    abort();
    await running;
    return 'aborted';
  }
}
