/**
 * Liveness and readiness, as `/livez` and `/readyz` need them (see `AgentHealth`): a
 * pure function of what the agent knows at one moment.
 */
import type { IpsetsError } from '@ipsets/core';
import type { AgentHealth, AgentOperationSummary } from './api.js';
import type { AgentOperation } from './metrics.js';

/** The last finished apply or reconcile, with when it finished (agent clock). */
export type LastOperation = Omit<AgentOperationSummary, 'finishedAgoMs'> & { finishedAt: number };

/** What {@link healthOf} looks at. */
export interface HealthInput {
  now: number;
  fatal: IpsetsError | undefined;
  inFlight: { operation: AgentOperation; startedAt: number } | undefined;
  stuckAfterMs: number;
  /** The loop is started. */
  started: boolean;
  /** A loop tick is running (waiting for its operations counts as progress). */
  ticking: boolean;
  intervalMs: number | undefined;
  /** When the loop last showed progress (started, a tick began or ended). */
  loopBeat: number;
  livenessIntervals: number;
  last: LastOperation | undefined;
  consecutiveFailures: number;
  maxConsecutiveFailures: number;
}

/**
 * Live: not fatal, no operation stuck past `stuckAfterMs`, and a started loop that
 * ticked within `livenessIntervals` intervals. Ready: an apply or reconcile finished,
 * the last one converged, not fatal. Each false says why in `problems`.
 */
export function healthOf(input: HealthInput): AgentHealth {
  const { now, fatal, inFlight, stuckAfterMs, last, intervalMs } = input;
  const problems: string[] = [];
  let live = true;
  let ready = true;
  if (fatal !== undefined) {
    live = false;
    ready = false;
    problems.push(`the consecutive-failure limit was reached: ${fatal.message}`);
  }
  const running = inFlight === undefined ? undefined : { operation: inFlight.operation, runningMs: Math.max(0, Math.round(now - inFlight.startedAt)) };
  if (running !== undefined && running.runningMs > stuckAfterMs) {
    live = false;
    problems.push(`the ${running.operation} in flight has run for ${running.runningMs} ms, past stuckAfterMs ${stuckAfterMs}`);
  }
  if (input.started && running === undefined && !input.ticking && intervalMs !== undefined && now - input.loopBeat > input.livenessIntervals * intervalMs) {
    live = false;
    problems.push(`the reconcile loop has not ticked for ${Math.round(now - input.loopBeat)} ms (interval ${intervalMs} ms)`);
  }
  if (last === undefined) {
    ready = false;
    problems.push('no apply or reconcile has finished yet');
  } else if (!last.converged) {
    ready = false;
    const sets = last.failedSets.length > 0 ? `; not converged: ${last.failedSets.join(', ')}` : '';
    problems.push(`the last ${last.operation} did not converge (${last.outcome}${last.error === undefined ? '' : `: ${last.error.message}`})${sets}`);
  }
  const { finishedAt, ...lastSummary } = last ?? { finishedAt: 0 };
  return {
    live,
    ready,
    problems,
    started: input.started,
    consecutiveFailures: input.consecutiveFailures,
    maxConsecutiveFailures: input.maxConsecutiveFailures,
    ...(fatal === undefined ? {} : { fatal: { code: fatal.code, message: fatal.message } }),
    ...(running === undefined ? {} : { inFlight: running }),
    ...(last === undefined ? {} : { lastOperation: { ...(lastSummary as Omit<AgentOperationSummary, 'finishedAgoMs'>), finishedAgoMs: Math.max(0, Math.round(now - finishedAt)) } }),
  };
}
