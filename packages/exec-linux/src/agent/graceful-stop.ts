/**
 * `stop({ graceMs })`: stop the loop, let the operation in flight settle, abort it (the
 * port kills ipset) when the grace period runs out, and say what happened. Work queued
 * behind the stop is refused by the agent while it is stopping (`ABORTED`, not started).
 */
import { IpsetsError } from '@ipsets/core';
import type { AgentClock, AgentLogger, AgentStopResult } from './api.js';
import type { OperationOutcome, OperationQueue } from './operation-queue.js';
import type { ReconcileLoop } from './reconcile-loop.js';

/** What a stop works on. */
export interface StopContext {
  queue: OperationQueue;
  loop: ReconcileLoop;
  clock: AgentClock;
  logger: AgentLogger;
}

/** One stop: waits for the operation in flight (aborting it after `graceMs`) and the queue. */
export async function stopGracefully(context: StopContext, graceMs: number | undefined): Promise<AgentStopResult> {
  const { queue, loop, clock, logger } = context;
  const begin = clock.now();
  const wasStarted = loop.started;
  loop.stop();
  const current = queue.inFlight;
  let aborted = false;
  let outcome: OperationOutcome = {};
  if (current !== undefined) {
    const graceTimer =
      graceMs === undefined
        ? undefined
        : clock.setTimeout(() => {
            aborted = true;
            queue.abort(new IpsetsError('ABORTED', `the agent was stopped and the grace period of ${graceMs} ms ran out`, { details: { graceMs } }));
          }, graceMs);
    outcome = await current.done;
    if (graceTimer !== undefined) clock.clearTimeout(graceTimer);
  }
  if (loop.tick !== undefined) await loop.tick;
  await queue.idle();
  const waitedMs = Math.max(0, Math.round(clock.now() - begin));
  const result: AgentStopResult = {
    aborted,
    waitedMs,
    ...(current === undefined ? {} : { inFlight: current.operation }),
    ...(outcome.report === undefined ? {} : { report: outcome.report }),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
  if (wasStarted || current !== undefined) {
    const fields = {
      operation: 'stop',
      durationMs: waitedMs,
      inFlight: current?.operation ?? null,
      aborted,
      ...(graceMs === undefined ? {} : { graceMs }),
      ...(outcome.report === undefined ? {} : { converged: outcome.report.converged }),
    };
    if (aborted) logger.warn(fields, `agent stopped; the ${current?.operation} in flight was aborted after the grace period`);
    else logger.info(fields, current === undefined ? 'agent stopped' : `agent stopped after the ${current.operation} in flight finished`);
  }
  return result;
}
