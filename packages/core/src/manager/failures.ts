/**
 * The manager's count of consecutive failed applies and its limit (the reference
 * panics when it is reached).
 */
import { IpsetsError, quote } from '../errors.js';

/** Consecutive failed applies after which `IPSetManager.recordApplyResult` throws: the reference's limit. */
export const DEFAULT_MAX_FAILURES = 100;

/** Consecutive failed applies, against a limit. */
export class FailureCount {
  /** Failed applies since the last success (or reset). */
  count = 0;
  /** The limit. */
  readonly limit: number;

  /** @throws IpsetsError `INVALID_ARGUMENT` unless `limit` is an integer of at least 1. */
  constructor(limit: number = DEFAULT_MAX_FAILURES) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new IpsetsError('INVALID_ARGUMENT', `invalid maxConsecutiveFailures ${quote(limit)}; expected an integer of at least 1`, {
        details: { maxConsecutiveFailures: limit },
      });
    }
    this.limit = limit;
  }

  /**
   * Success resets the count, failure increments it.
   *
   * @throws IpsetsError `MAX_CONSECUTIVE_FAILURES` when a failure reaches the limit (the count stays there).
   */
  record(ok: boolean): void {
    if (ok) {
      this.count = 0;
      return;
    }
    this.count++;
    if (this.count >= this.limit) {
      throw new IpsetsError('MAX_CONSECUTIVE_FAILURES', `exceeded max consecutive failures (${this.limit}) when applying ipsets`, {
        details: { consecutiveApplyFailures: this.count, limit: this.limit },
      });
    }
  }
}
