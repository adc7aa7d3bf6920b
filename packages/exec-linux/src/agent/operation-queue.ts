/**
 * One kernel operation at a time. States of one operation: queued → (waiting for the
 * kernel lock) → running → settled; only one is past "queued" at a time. The queue
 * links the call's signal with the stop's (`halt`), holds the kernel lock around the
 * operation when configured (or shares the hold of the loop tick it runs in), and
 * records what is in flight for `stop()` and `health()`.
 */
import type { AbortSignalLike, ApplyReport, ResetReport } from '@ipsets/core';
import { acquireKernelLock, withKernelLock } from '../kernel-lock.js';
import type { KernelLock } from '../kernel-lock.js';
import type { AgentCallOptions, AgentClock, AgentDriverOptions, AgentLockOptions } from './api.js';
import type { AgentOperation } from './metrics.js';

/** How an operation in flight ended: its report or what it threw. */
export interface OperationOutcome {
  report?: ApplyReport | ResetReport;
  error?: unknown;
}

/** The operation running (or waiting for the lock) now. */
export interface InFlight {
  operation: AgentOperation;
  startedAt: number;
  done: Promise<OperationOutcome>;
}

/** Options of {@link OperationQueue}. */
export interface OperationQueueOptions {
  clock: AgentClock;
  lock: AgentLockOptions | undefined;
  maxAttempts: number | undefined;
}

/** The agent's serial queue of kernel operations (see the module comment). */
export class OperationQueue {
  /** The operation past "queued", if any. */
  inFlight: InFlight | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  // Aborted by stop() when its grace period runs out; replaced once the stop is over.
  private halt = new AbortController();
  // Set while a loop tick runs: its operations share one hold of the kernel lock.
  private tickLock: { held?: KernelLock } | undefined;

  constructor(private readonly options: OperationQueueOptions) {}

  /** Runs `fn` after everything queued before it, whether that settled or threw. */
  enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    // The tail keeps no result: a report (its plan and attempts, a million lines after a
    // big apply) must not stay reachable until the next operation.
    this.tail = run.then(noResult, noResult);
    return run;
  }

  /** Resolves when nothing is running or queued. */
  async idle(): Promise<void> {
    await this.tail;
  }

  /** Aborts the operation in flight (the port kills ipset) and any that starts before {@link rearm}. */
  abort(reason: unknown): void {
    this.halt.abort(reason);
  }

  /** A fresh stop signal, once a stop is over. */
  rearm(): void {
    this.halt = new AbortController();
  }

  /**
   * Runs `fn` (queued work that calls {@link execute} several times) under ONE hold of
   * the kernel lock, taken by its first operation and released when `fn` settles.
   * Must run inside {@link enqueue}, so that nothing else runs meanwhile.
   */
  async holdingLockOnce<T>(fn: () => Promise<T>): Promise<T> {
    this.tickLock = {};
    try {
      return await fn();
    } finally {
      const held = this.tickLock.held;
      this.tickLock = undefined;
      await held?.release();
    }
  }

  /** Runs one operation's `body` with its driver options, under the lock, recorded as in flight. */
  async execute<T extends ApplyReport | ResetReport>(
    operation: AgentOperation,
    call: AgentCallOptions | undefined,
    body: (driverOptions: AgentDriverOptions) => Promise<T>,
  ): Promise<T> {
    const { lock, maxAttempts, clock } = this.options;
    const controller = new AbortController();
    const unlink = linkSignals(controller, [call?.signal, this.halt.signal]);
    const driverOptions: AgentDriverOptions = {
      ...(maxAttempts === undefined ? {} : { maxAttempts }),
      signal: controller.signal,
    };
    const tick = this.tickLock;
    const run = (async () => {
      if (lock === undefined) return body(driverOptions);
      if (tick !== undefined) {
        tick.held ??= await acquireKernelLock({ ...lock, signal: controller.signal });
        return body(driverOptions);
      }
      return withKernelLock({ ...lock, signal: controller.signal }, () => body(driverOptions));
    })();
    this.inFlight = {
      operation,
      startedAt: clock.now(),
      done: run.then(
        (report) => ({ report }),
        (error: unknown) => ({ error }),
      ),
    };
    try {
      return await run;
    } finally {
      unlink();
      this.inFlight = undefined;
    }
  }
}

function noResult(): undefined {
  return undefined;
}

/** Aborts `controller` when any of `signals` aborts; returns the unlinking function. */
function linkSignals(controller: AbortController, signals: readonly (AbortSignalLike | undefined)[]): () => void {
  const unlinks: (() => void)[] = [];
  for (const signal of signals) {
    if (signal === undefined) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      continue;
    }
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    unlinks.push(() => signal.removeEventListener('abort', onAbort));
  }
  return () => {
    for (const unlink of unlinks) unlink();
  };
}
