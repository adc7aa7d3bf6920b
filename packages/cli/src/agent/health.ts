/**
 * What `/livez` and `/readyz` answer, from the library agent's health (not fatal, no
 * operation stuck, its loop still ticks; an apply finished and the last one converged,
 * in-use leftovers allowed) plus what only the command knows: whether the desired file
 * on disk is usable. A failing set never makes the agent not
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
}

/** `/livez` and `/readyz` of the agent command. */
export class AgentProbes {
  private fileProblem: string | undefined;

  constructor(private readonly options: AgentProbesOptions) {}

  /** The desired file turned unusable (`problem`, quoted at most {@link PROBLEM_LIMIT} characters) or usable again (undefined). */
  setFileProblem(problem: string | undefined): void {
    this.fileProblem = problem === undefined ? undefined : cutText(problem, PROBLEM_LIMIT);
  }

  /** `/livez`: the loop is alive and not stuck. */
  live(): ProbeResult {
    const health = this.options.health();
    return health.live ? { ok: true, reason: 'ok' } : { ok: false, reason: health.problems.join('; ') };
  }

  /** `/readyz`: the first apply finished, the last one converged (or only in-use sets remain), and the file is valid. */
  ready(): ProbeResult {
    const health = this.options.health();
    const problems = health.ready ? [] : [...health.problems];
    if (this.fileProblem !== undefined) problems.push(`the desired file is not usable, the last good state is kept: ${this.fileProblem}`);
    return problems.length === 0 ? { ok: true, reason: 'ok' } : { ok: false, reason: problems.join('; ') };
  }
}
