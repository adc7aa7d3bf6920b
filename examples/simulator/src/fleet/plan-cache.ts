/**
 * The real reconcile, once per node class. Every node of the fleet mounts the same
 * ConfigMaps, so a node's kernel is fully described by the version it last converged
 * to; what a reconcile does on a node therefore depends only on the pair (the version
 * its kernel holds, the version it reconciles to). For each pair met, core's
 * `reconcileIPSets` runs once against the fake kernel's `ipset save` and `ipset list
 * -t` of the first version, and its report (lines planned, restore runs) is shared by
 * every node in that class.
 *
 * The save texts come from one fake kernel that is reconciled through the versions in
 * order (`chain`), each step checked converged by the fake kernel's own oracle. The
 * `--exact` mode of the simulation skips this cache and gives every node its own fake
 * kernel; a test checks that both give the same report.
 */
import { reconcileIPSets } from '@ipsets/core';
import type { ApplyReport, CommandResult, IpsetPort } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import { convergenceProblems } from '@ipsets/fake-kernel/invariants';
import type { StateVersion } from './cluster-state.js';

/** What one reconcile from one version to another did. */
export interface ReconcileOutcome {
  readonly report: ApplyReport;
  /** Members in the kernel's `ipset save` before the reconcile. */
  readonly savedMembers: number;
  /** `ipset restore` runs. */
  readonly restores: number;
  /** Restore lines sent over all runs. */
  readonly restoreLines: number;
}

interface Saved {
  save: CommandResult;
  headers: CommandResult;
  members: number;
}

const EMPTY: Saved = { save: ok(''), headers: ok(''), members: 0 };

function ok(stdout: string): CommandResult {
  return { exitCode: 0, stdout, stderr: '' };
}

/** Members in a save text: its `add` lines. */
export function savedMemberCount(save: string): number {
  let n = 0;
  for (let i = save.indexOf('add '); i !== -1; i = save.indexOf('\nadd ', i + 1)) n++;
  return n;
}

/** The outcome of a reconcile as the simulation reads it. */
export function outcomeOf(report: ApplyReport, savedMembers: number): ReconcileOutcome {
  let restoreLines = 0;
  for (const a of report.attempts) restoreLines += a.lineIndices.length;
  return { report, savedMembers, restores: report.attempts.length, restoreLines };
}

/** The per-class reconcile cache (see the module comment). */
export class PlanCache {
  private readonly chain = new FakeKernel();
  private readonly saved = new Map<number, Saved>();
  private readonly outcomes = new Map<string, Promise<ReconcileOutcome>>();
  private chainAt = -1;
  /** Distinct (from, to) pairs planned with the real reconcile. */
  pairs = 0;

  constructor(private readonly version: (id: number) => StateVersion) {}

  /** The reconcile of a kernel holding version `from` (-1: empty) to version `to`. */
  outcome(from: number, to: number): Promise<ReconcileOutcome> {
    const key = `${from}>${to}`;
    let outcome = this.outcomes.get(key);
    if (outcome === undefined) {
      outcome = this.plan(from, to);
      this.outcomes.set(key, outcome);
      this.pairs++;
    }
    return outcome;
  }

  private async plan(from: number, to: number): Promise<ReconcileOutcome> {
    const before = from < 0 ? EMPTY : await this.savedAt(from);
    let restored = 0;
    const port: IpsetPort = {
      save: async () => before.save,
      listHeaders: async () => before.headers,
      listNames: async () => ok(''),
      restore: async () => {
        restored++;
        return ok('');
      },
    };
    const report = await reconcileIPSets(this.version(to).desired, port);
    if (restored !== report.attempts.length) throw new Error(`reconcile ${from} -> ${to}: ${restored} restores for ${report.attempts.length} attempts`);
    return outcomeOf(report, before.members);
  }

  /** The kernel's save of version `id`, reconciling the chain kernel up to it. */
  private async savedAt(id: number): Promise<Saved> {
    while (this.chainAt < id) {
      const next = this.chainAt + 1;
      const desired = this.version(next).desired;
      const report = await reconcileIPSets(desired, createFakePort(this.chain));
      const problems = convergenceProblems(this.chain, desired);
      if (!report.converged || problems.length > 0) {
        throw new Error(`the fake kernel did not converge to version ${next}: ${problems.map((p) => `${p.set}: ${p.problem}`).join('; ') || report.failedSets.join(', ')}`);
      }
      const save = this.chain.save();
      this.saved.set(next, { save, headers: this.chain.listHeaders(), members: savedMemberCount(save.stdout) });
      this.chainAt = next;
    }
    return this.saved.get(id)!;
  }
}
