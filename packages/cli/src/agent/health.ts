/**
 * What `/livez` and `/readyz` answer, from the library agent's health (not fatal, no
 * operation stuck; an apply finished and the last one converged, in-use leftovers
 * allowed) plus what only the command knows: whether its own loop still ticks, and
 * whether the desired file on disk is usable. A failing set never makes the agent not
 * live (a restart cannot fix it); it makes it not ready.
 */
import type { AgentHealth } from '@ipsets/exec-linux';
import { cutText } from '../format.js';

/** Longest file problem `/readyz` repeats (the log line has the whole message). */
const PROBLEM_LIMIT = 2000;

/** One probe's answer. */
export interface ProbeResult {
  readonly ok: boolean;
  /** Why not (or `ok`). */
  readonly reason: string;
}

/** Options of {@link AgentProbes}. */
export interface AgentProbesOptions {
  /** The library agent's health. */
  health(): AgentHealth;
  /** The command's loop ticks this often (ms). */
  intervalMs: number;
  now?: () => number;
}

/** `/livez` and `/readyz` of the agent command. */
export class AgentProbes {
  private lastBeat: number;
  private fileProblem: string | undefined;
  private readonly now: () => number;

  constructor(private readonly options: AgentProbesOptions) {
    this.now = options.now ?? (() => performance.now());
    this.lastBeat = this.now();
  }

  /** The loop ticked. */
  beat(): void {
    this.lastBeat = this.now();
  }

  /** The desired file turned unusable (`problem`, quoted at most {@link PROBLEM_LIMIT} characters) or usable again (undefined). */
  setFileProblem(problem: string | undefined): void {
    this.fileProblem = problem === undefined ? undefined : cutText(problem, PROBLEM_LIMIT);
  }

  /** `/livez`: the loop is alive and not stuck. */
  live(): ProbeResult {
    const health = this.options.health();
    if (!health.live) return { ok: false, reason: health.problems.join('; ') };
    const silentFor = this.now() - this.lastBeat;
    // An apply in flight delays ticks; the library's stuck limit covers that case.
    if (health.inFlight === undefined && silentFor > 3 * this.options.intervalMs) {
      return { ok: false, reason: `the reconcile loop has not ticked for ${Math.round(silentFor / 1000)}s (interval ${Math.round(this.options.intervalMs / 1000)}s)` };
    }
    return { ok: true, reason: 'ok' };
  }

  /** `/readyz`: the first apply finished, the last one converged (or only in-use sets remain), and the file is valid. */
  ready(): ProbeResult {
    const health = this.options.health();
    const problems = health.ready ? [] : [...health.problems];
    if (this.fileProblem !== undefined) problems.push(`the desired file is not usable, the last good state is kept: ${this.fileProblem}`);
    return problems.length === 0 ? { ok: true, reason: 'ok' } : { ok: false, reason: problems.join('; ') };
  }
}
