/**
 * The process's one consecutive-failure policy: every apply and every reconcile counts.
 * A converged one (sets only in use are fine) resets the count, a failed or thrown one
 * adds one, an apply with nothing to do, an operation aborted by its caller or by
 * `stop()` and one whose driver refused its input (`INVALID_INPUT`, nothing sent) leave
 * it alone. At the limit the agent turns fatal with
 * `MAX_CONSECUTIVE_FAILURES` until `clearFatal()`.
 */
import { IpsetsError } from '@ipsets/core';
import type { ApplyReport } from '@ipsets/core';

/** What the policy does when the limit is reached (log, stop the loop, call `onFatal`). */
export type OnFatal = (error: IpsetsError, failures: number) => void;

/** The failure count and the fatal state of one agent. */
export class FailurePolicy {
  private count = 0;
  private fatalError: IpsetsError | undefined;

  constructor(
    /** The limit (`maxConsecutiveFailures`). */
    readonly max: number,
    private readonly onFatal: OnFatal,
  ) {}

  /** Applies and reconciles in a row that did not converge. */
  get failures(): number {
    return this.count;
  }

  /** Set once the limit was reached. */
  get fatal(): IpsetsError | undefined {
    return this.fatalError;
  }

  /**
   * Counts one finished operation; returns the count before it (a converged one after
   * failures logs how many it ended).
   */
  record(converged: boolean, aborted: boolean): number {
    const previous = this.count;
    if (!aborted) this.count = converged ? 0 : this.count + 1;
    return previous;
  }

  /** True when this not-converged, not-aborted outcome has reached the limit. */
  reachedLimit(converged: boolean, aborted: boolean): boolean {
    return !aborted && !converged && this.count >= this.max;
  }

  /** The fatal error for the last failure (`why` says what it was). */
  limitError(why: string, cause: unknown): IpsetsError {
    return new IpsetsError(
      'MAX_CONSECUTIVE_FAILURES',
      `${this.count} applies and reconciles in a row did not converge (maxConsecutiveFailures ${this.max}); last: ${why}`,
      { cause, details: { consecutiveFailures: this.count, maxConsecutiveFailures: this.max } },
    );
  }

  /** Turns fatal with `error` (the first one stays); returns the fatal error. */
  setFatal(error: IpsetsError): IpsetsError {
    if (this.fatalError !== undefined) return this.fatalError;
    this.fatalError = error;
    this.onFatal(error, this.count);
    return error;
  }

  /** Clears the fatal state and the count. */
  clear(): void {
    this.fatalError = undefined;
    this.count = 0;
  }
}

/** One line on why an apply or reconcile did not converge, for the fatal error. */
export function describeFailure(report: ApplyReport): string {
  if (report.fatal !== undefined) return `${report.fatal.code}: ${report.fatal.message}`;
  const first = report.skipped.find((s) => s.outcome === 'not-converged');
  if (first !== undefined) return `${report.failedSets.length} set(s) not converged, first: ${first.text} (${first.kind}: ${first.message})`;
  return `${report.failedSets.length} set(s) not converged`;
}
