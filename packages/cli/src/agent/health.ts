/**
 * What `/livez` and `/readyz` answer. Liveness is "the loop is alive and not stuck"
 * (a failing set must never restart-loop the pod); readiness is "the first apply
 * finished, the last one converged (or only in-use leftovers remain) and the file is
 * valid".
 */
import type { ApplyReport } from '@ipsets/core';

/** One probe's answer. */
export interface ProbeResult {
  readonly ok: boolean;
  /** Why not (or `ok`). */
  readonly reason: string;
}

/** Options of {@link AgentHealth}. */
export interface AgentHealthOptions {
  /** The loop ticks this often (ms). */
  intervalMs: number;
  /** An apply running longer than this (ms) means the loop is stuck. */
  stuckAfterMs: number;
  now?: () => number;
}

/** The agent's state as the probes see it. */
export class AgentHealth {
  private firstDone = false;
  private lastProblem: string | undefined = 'the first apply has not finished';
  private fileProblem: string | undefined;
  private runningSince: number | undefined;
  private lastBeat: number;
  private readonly now: () => number;

  constructor(private readonly options: AgentHealthOptions) {
    this.now = options.now ?? (() => performance.now());
    this.lastBeat = this.now();
  }

  /** The loop did something (a tick, a trigger, an apply began or ended). */
  beat(): void {
    this.lastBeat = this.now();
  }

  /** An apply began. */
  applyStarted(): void {
    this.runningSince = this.now();
    this.beat();
  }

  /** An apply ended with a report. */
  applyReported(report: ApplyReport): void {
    this.runningSince = undefined;
    this.firstDone = true;
    this.beat();
    const inUse = new Set(report.inUseSets);
    const failed = report.failedSets.filter((name) => !inUse.has(name));
    if (report.converged || (report.fatal === undefined && failed.length === 0)) {
      this.lastProblem = undefined;
    } else if (report.fatal !== undefined) {
      this.lastProblem = `the last apply ended early (${report.fatal.code}: ${report.fatal.message})`;
    } else {
      const names = failed.slice(0, 5).join(', ');
      this.lastProblem = `the last apply did not converge: ${failed.length} set(s) failed (${names}${failed.length > 5 ? ', …' : ''})`;
    }
  }

  /** An apply ended without a report. */
  applyFailed(message: string): void {
    this.runningSince = undefined;
    this.firstDone = true;
    this.beat();
    this.lastProblem = `the last apply failed: ${message}`;
  }

  /** The desired file turned invalid (`problem`) or valid again (undefined). */
  setFileProblem(problem: string | undefined): void {
    this.fileProblem = problem;
  }

  /** `/livez`. */
  live(): ProbeResult {
    const now = this.now();
    if (this.runningSince !== undefined && now - this.runningSince > this.options.stuckAfterMs) {
      return { ok: false, reason: `an apply has been running for ${Math.round((now - this.runningSince) / 1000)}s (stuck after ${Math.round(this.options.stuckAfterMs / 1000)}s)` };
    }
    const silentFor = now - this.lastBeat;
    const limit = 3 * this.options.intervalMs + this.options.stuckAfterMs;
    if (this.runningSince === undefined && silentFor > limit) {
      return { ok: false, reason: `the reconcile loop has not ticked for ${Math.round(silentFor / 1000)}s` };
    }
    return { ok: true, reason: 'ok' };
  }

  /** `/readyz`. */
  ready(): ProbeResult {
    if (!this.firstDone) return { ok: false, reason: 'the first apply has not finished' };
    if (this.lastProblem !== undefined) return { ok: false, reason: this.lastProblem };
    if (this.fileProblem !== undefined) return { ok: false, reason: `the desired file is not usable, the last good state is kept: ${this.fileProblem}` };
    return { ok: true, reason: 'ok' };
  }
}
