/**
 * Drivers: plan, run a restore session over an {@link IpsetPort}, report. They are
 * the only core functions that call a port; everything they decide comes from the
 * pure planners and the pure session, so a simulator can run
 * apply → report → commit against any port without Node.
 */
import { IpsetsError, quote } from './errors.js';
import type { IPSetManager } from './manager.js';
import { planApply, planApplyWithSave } from './plan-apply.js';
import { planReconcile } from './plan-reconcile.js';
import type { PlanReconcileOptions } from './plan-reconcile.js';
import { planResetDestroy, planResetFlush } from './plan-reset.js';
import { parseListHeaders, parseListNames, parseSave } from './save-parser.js';
import { runRestoreSession } from './session.js';
import type { RunRestoreSessionOptions } from './session.js';
import type { ApplyReport, CommandResult, DesiredState, IpsetPort, PortCallOptions, RestorePlan } from './types.js';

/** Options of the drivers: the session's attempt budget and an abort signal passed to every port call. */
export type DriverOptions = RunRestoreSessionOptions;

/** Options of {@link reconcileIPSets}. */
export interface ReconcileOptions extends DriverOptions, PlanReconcileOptions {}

/** Options of {@link resetIPSets}. */
export interface ResetOptions extends DriverOptions {
  /** Owner prefix: only sets whose names start with it are flushed and destroyed (default `azure-npm-`). */
  owner?: string;
}

/** Default owner prefix of a reset (the seed's `azure-npm-`). */
export const DEFAULT_RESET_OWNER = 'azure-npm-';

/** What {@link resetIPSets} did. */
export interface ResetReport {
  /** The owner prefix used. */
  owner: string;
  /**
   * True when every owned set is gone or reported in {@link leaked}: nothing failed
   * and no session ended early. Leaked sets are reported, not failures (they cannot
   * be destroyed until whatever references them lets go).
   */
  converged: boolean;
  /** Owned sets found by `ipset list -n`, in kernel order. */
  found: string[];
  /** Sets destroyed by this reset. */
  destroyed: string[];
  /** Sets that were already gone when flushed or destroyed (someone else removed them). */
  vanished: string[];
  /** Sets flushed but not destroyed because something still references them. */
  leaked: string[];
  /** Sets whose flush or destroy failed for another reason, or that a session never reached. */
  failed: string[];
  /** The flush session. */
  flush: ApplyReport;
  /** The destroy session (absent when the flush session ended early). */
  destroy?: ApplyReport;
  /** Things that went wrong but did not stop the reset (e.g. `list -t` failed). */
  problems: string[];
}

function callOptions(options: DriverOptions): PortCallOptions | undefined {
  return options.signal === undefined ? undefined : { signal: options.signal };
}

async function read(
  what: string,
  call: (o: PortCallOptions | undefined) => Promise<CommandResult>,
  options: DriverOptions,
): Promise<string> {
  const result = await call(callOptions(options));
  if (result.exitCode !== 0 || result.signal !== undefined) {
    const how = result.signal !== undefined ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`;
    throw new IpsetsError('KERNEL_READ_FAILED', `ipset ${what} ${how}: ${quote(result.stderr.trim())}; expected exit 0.`, {
      details: { command: what, exitCode: result.exitCode, signal: result.signal, stderr: result.stderr },
    });
  }
  return result.stdout;
}

function emptyReport(plan: RestorePlan): ApplyReport {
  return {
    converged: true,
    plan,
    attempts: [],
    linesTotal: 0,
    linesApplied: 0,
    skipped: [],
    failedSets: [],
    inUseSets: [],
    notes: [...(plan.notes ?? [])],
  };
}

/**
 * Applies the manager's dirty delta (the seed's default path, `ApplyIPSets`): plans
 * it ({@link planApply}), runs the restore session, commits the report to the
 * manager — only what reached the kernel leaves the dirty cache — and counts the
 * result toward the consecutive-failure limit. With nothing dirty no command runs and
 * the count is untouched (as in the seed).
 *
 * Resolves with the report also when the apply did not converge (`report.converged`).
 *
 * @throws IpsetsError `MAX_CONSECUTIVE_FAILURES` when this failure reaches the
 *   manager's limit (the seed panics here); the manager has committed the report first.
 */
export async function applyIPSets(manager: IPSetManager, port: IpsetPort, options: DriverOptions = {}): Promise<ApplyReport> {
  if (!manager.hasDirtyChanges) return emptyReport({ lines: [] });
  const plan = planApply(manager);
  const report = await runRestoreSession(plan, port, options);
  manager.commit(report);
  manager.recordApplyResult(report.converged);
  return report;
}

/**
 * Applies the manager's dirty sets against what the kernel holds (the seed's
 * save-file variant, `applyIPSetsWithSaveFile`): `ipset save`, parse, plan with
 * {@link planApplyWithSave} (dirty sets that exist are diffed against their kernel
 * members), run the session, commit the report. As in the seed this path does not
 * count toward the consecutive-failure limit. With nothing dirty, nothing runs (not
 * even the save).
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `ipset save` fails (nothing is applied).
 */
export async function applyIPSetsWithSave(
  manager: IPSetManager,
  port: IpsetPort,
  options: DriverOptions = {},
): Promise<ApplyReport> {
  if (!manager.hasDirtyChanges) return emptyReport({ lines: [] });
  const snapshot = parseSave(await read('save', (o) => port.save(o), options));
  const plan = planApplyWithSave(manager, snapshot);
  const report = await runRestoreSession(plan, port, options);
  manager.commit(report);
  return report;
}

/**
 * Makes the owned part of the kernel equal to `desired` (beyond the seed): reads
 * `ipset save` and `ipset list -t`, plans with {@link planReconcile} (drift repaired,
 * undesired owned sets destroyed unless referenced, type conflicts recreated or
 * reported, foreign sets untouched), and runs the session. Planner notes are in
 * `report.notes`; referenced sets left in place are in `report.inUseSets`, type
 * conflicts that could not be fixed in `report.failedSets`.
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `save` or `list -t` fails (nothing is
 *   applied); the planner's validation errors for an invalid desired state.
 */
export async function reconcileIPSets(
  desired: DesiredState,
  port: IpsetPort,
  options: ReconcileOptions = {},
): Promise<ApplyReport> {
  const snapshot = parseSave(await read('save', (o) => port.save(o), options));
  const headers = parseListHeaders(await read('list -t', (o) => port.listHeaders(o), options));
  const plan = planReconcile(desired, snapshot, headers, options);
  return runRestoreSession(plan, port, options);
}

/**
 * Removes every owned set from the kernel (DESIGN §3.7, the seed's `resetIPSets`
 * without its fast path): `ipset list -n`; keep the names that start with `owner`;
 * flush them in one restore; read `ipset list -t` to find the ones still referenced
 * (References > 0: iptables rules, foreign lists, leaked kernel counts); destroy the
 * rest in a second restore; report the leaked ones.
 *
 * Never `ipset flush && ipset destroy` of everything (the seed's fast path empties and
 * destroys every set on the host, including ones created a moment later by someone
 * else), and ownership is a prefix, not the seed's substring `grep` (§g.2.12).
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `list -n` fails (nothing is touched —
 *   the seed read a failure as "no sets"); `INVALID_ARGUMENT` for an empty owner.
 */
export async function resetIPSets(port: IpsetPort, options: ResetOptions = {}): Promise<ResetReport> {
  const owner = options.owner ?? DEFAULT_RESET_OWNER;
  if (typeof owner !== 'string' || owner === '') {
    throw new IpsetsError('INVALID_ARGUMENT', `Invalid owner prefix ${quote(owner)}; expected a non-empty string such as "azure-npm-" (an empty owner would reset every set on the host).`);
  }
  const names = parseListNames(await read('list -n', (o) => port.listNames(o), options));
  const found = [...new Set(names.filter((n) => n.startsWith(owner)))];

  const flush = await runRestoreSession(planResetFlush(found, owner), port, options);
  const problems: string[] = [];
  const vanished = new Set<string>();
  const failed = new Set<string>();
  for (const s of flush.skipped) {
    if (s.outcome === 'ignorable') vanished.add(s.set);
    else failed.add(s.set);
  }
  if (flush.fatal !== undefined) {
    // The flush session ended early: destroying now could hit sets still in lists or
    // in use; stop, and report every owned set that is not known gone as failed.
    for (const n of found) if (!vanished.has(n)) failed.add(n);
    return finish({ owner, found, flush, vanished, failed, leaked: [], destroyed: [], problems });
  }

  // After the flush, owned lists no longer hold owned sets: any reference left is
  // from outside (iptables, a foreign list) or a leaked kernel count.
  const leaked: string[] = [];
  const candidates = found.filter((n) => !vanished.has(n) && !failed.has(n));
  if (candidates.length > 0) {
    try {
      const headers = parseListHeaders(await read('list -t', (o) => port.listHeaders(o), options));
      const referenced = new Set(headers.filter((h) => h.references > 0).map((h) => h.name));
      for (const n of candidates) if (referenced.has(n)) leaked.push(n);
    } catch (error) {
      if (!(error instanceof IpsetsError) || error.code !== 'KERNEL_READ_FAILED') throw error;
      // Without headers, the destroy handlers still catch references (in-use), one line per attempt.
      problems.push(`reading references failed, destroying without them: ${error.message}`);
    }
  }

  const destroy = await runRestoreSession(planResetDestroy(candidates, leaked), port, options);
  const leakedAll = new Set(leaked);
  for (const s of destroy.skipped) {
    if (s.outcome === 'in-use') leakedAll.add(s.set);
    else if (s.outcome === 'ignorable') vanished.add(s.set);
    else failed.add(s.set);
  }
  for (const n of destroy.failedSets) failed.add(n);
  const notDestroyed = new Set<string>([...leakedAll, ...vanished, ...failed]);
  const destroyed = candidates.filter((n) => !notDestroyed.has(n));
  return finish({ owner, found, flush, destroy, vanished, failed, leaked: [...leakedAll], destroyed, problems });
}

function finish(parts: {
  owner: string;
  found: string[];
  flush: ApplyReport;
  destroy?: ApplyReport;
  vanished: Set<string>;
  failed: Set<string>;
  leaked: string[];
  destroyed: string[];
  problems: string[];
}): ResetReport {
  const inFoundOrder = (set: Iterable<string>): string[] => {
    const s = new Set(set);
    return parts.found.filter((n) => s.has(n));
  };
  const failed = inFoundOrder(parts.failed);
  const report: ResetReport = {
    owner: parts.owner,
    converged: failed.length === 0 && parts.flush.fatal === undefined && parts.destroy?.fatal === undefined,
    found: parts.found,
    destroyed: parts.destroyed,
    vanished: inFoundOrder(parts.vanished),
    leaked: inFoundOrder(parts.leaked),
    failed,
    flush: parts.flush,
    problems: parts.problems,
  };
  if (parts.destroy !== undefined) report.destroy = parts.destroy;
  return report;
}
