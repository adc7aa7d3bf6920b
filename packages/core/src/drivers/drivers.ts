/**
 * Drivers: plan, run a restore session over an {@link IpsetPort}, report. They are
 * the only core functions that call a port; everything they decide comes from the
 * pure planners and the pure session, so a simulator can run
 * apply → report → commit against any port without Node.
 */
import { IpsetsError, isIpsetsError, quote } from '../errors.js';
import { DEFAULT_OWNER, isOwnedSetName, validateOwnerPrefix } from '../model/naming.js';
import type { IPSetManager } from '../manager/manager.js';
import { planApply, planApplyWithSave } from '../plan/plan-apply.js';
import { planReconcile } from '../plan/plan-reconcile.js';
import type { PlanReconcileOptions } from '../plan/plan-reconcile.js';
import { planResetDestroy, planResetFlush } from '../plan/plan-reset.js';
import { parseListHeaders, parseListNames, parseSave } from '../parse/save-parser.js';
import { runRestoreSession } from '../session/session.js';
import type { RunRestoreSessionOptions } from '../session/session.js';
import type { ApplyReport, CommandResult, DesiredState, IpsetPort, PortCallOptions, RestorePlan, SaveSnapshot } from '../types.js';

/** Options of the drivers: the session's attempt budget and an abort signal passed to every port call. */
export type DriverOptions = RunRestoreSessionOptions;

/** Options of {@link applyIPSets}. */
export interface ApplyOptions extends DriverOptions {
  /**
   * Count the result toward the manager's consecutive-failure limit (default true, as
   * the reference's `ApplyIPSets` does). A caller with a failure policy of its own —
   * the agent of `@ipsets/exec-linux`, which also counts reconciles — passes false, so
   * that one policy decides.
   */
  countFailures?: boolean;
}

/** Options of {@link reconcileIPSets}. */
export interface ReconcileOptions extends DriverOptions, PlanReconcileOptions {}

/** Options of {@link resetIPSets}. */
export interface ResetOptions extends DriverOptions {
  /**
   * Owner prefix: only sets it owns ({@link isOwnedSetName}) are flushed and destroyed
   * (default: the manager's owner, else {@link DEFAULT_OWNER}).
   */
  owner?: string;
  /**
   * A manager to reset with the kernel: its cache, dirty state and failure count are
   * cleared ({@link IPSetManager.reset}) whatever the kernel outcome, as the reference's
   * `ResetIPSets` does. Sets the kernel reset could not remove stay in the kernel
   * (reported in the result); the next reconcile removes or repairs them.
   */
  manager?: IPSetManager;
}

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
  /**
   * Sets not destroyed because something still references them. A set referenced when
   * the reset began is left intact (not flushed); one whose reference appeared during
   * the reset may have been flushed.
   */
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
 * Applies the manager's dirty delta (the reference's default path, `ApplyIPSets`): plans
 * it ({@link planApply}), runs the restore session, commits the report to the
 * manager — only what reached the kernel leaves the dirty cache — and counts the
 * result toward the consecutive-failure limit. With nothing dirty no command runs and
 * the count is untouched (as in the reference).
 *
 * Beyond the reference: when a dirty set is to be updated (not created or destroyed), the
 * driver first reads `ipset list -n` (names only, cheap) so that a set destroyed
 * outside the library is recreated with all its members instead of only the newest
 * ones, which the reference then reported as converged. If `list -n` fails, the apply goes
 * on without the check and says so in a note.
 *
 * Resolves with the report also when the apply did not converge (`report.converged`).
 *
 * @throws IpsetsError `MAX_CONSECUTIVE_FAILURES` when this failure reaches the
 *   manager's limit (the reference panics here); the manager has committed the report first.
 */
export async function applyIPSets(manager: IPSetManager, port: IpsetPort, options: ApplyOptions = {}): Promise<ApplyReport> {
  if (!manager.hasDirtyChanges) return emptyReport({ lines: [] });
  let kernelSets: Set<string> | undefined;
  let readProblem: string | undefined;
  if (manager.dirtySets().some((d) => d.state === 'update')) {
    try {
      kernelSets = new Set(parseListNames(await read('list -n', (o) => port.listNames(o), options)));
    } catch (error) {
      if (!isIpsetsError(error, 'KERNEL_READ_FAILED')) throw error;
      readProblem = `could not check which sets to update still exist (${error.message}); a set destroyed outside this library gets only its newest members`;
    }
  }
  const plan = planApply(manager, kernelSets === undefined ? {} : { kernelSets });
  if (readProblem !== undefined) (plan.notes ??= []).push({ set: '', kind: 'info', message: readProblem });
  const report = await runRestoreSession(plan, port, options);
  manager.commit(report);
  if (options.countFailures !== false) manager.recordApplyResult(report.converged);
  return report;
}

/**
 * Applies the manager's dirty sets against what the kernel holds (the reference's
 * save-file variant, `applyIPSetsWithSaveFile`): `ipset save`, parse, plan with
 * {@link planApplyWithSave} (dirty sets that exist are diffed against their kernel
 * members; saved members that are not canonical are never echoed), run the session,
 * commit the report. As in the reference this path does not count toward the
 * consecutive-failure limit. With nothing dirty, nothing runs; as in the reference,
 * the save (seconds on a big node) is read only when a set is to be created or
 * updated — with only destroys pending the plan needs no kernel members.
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `ipset save` fails (nothing is applied).
 */
export async function applyIPSetsWithSave(
  manager: IPSetManager,
  port: IpsetPort,
  options: DriverOptions = {},
): Promise<ApplyReport> {
  if (!manager.hasDirtyChanges) return emptyReport({ lines: [] });
  const needsSave = manager.dirtySets().some((d) => d.state !== 'destroy');
  const snapshot: SaveSnapshot = needsSave ? parseSave(await read('save', (o) => port.save(o), options)) : { sets: [], problems: [] };
  const plan = planApplyWithSave(manager, snapshot);
  const report = await runRestoreSession(plan, port, options);
  manager.commit(report);
  return report;
}

/**
 * Makes the owned part of the kernel equal to `desired` (beyond the reference): reads
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
 * Removes every owned set from the kernel (the reference's `resetIPSets`
 * without its fast path), agreeing with reconcile on referenced sets:
 *
 * 1. `ipset list -n`; keep the owned names ({@link isOwnedSetName}).
 * 2. `ipset list -t` BEFORE anything changes: a set with references (an iptables rule,
 *    a list) is not flushed — emptying a set a rule still matches changes traffic.
 * 3. Flush the unreferenced owned sets in one restore (flushing an owned list releases
 *    its members).
 * 4. `ipset list -t` again: sets still referenced are left in the kernel, untouched,
 *    and reported `leaked`; a set that was referenced only by owned lists flushed in
 *    step 3 is free now.
 * 5. Destroy the free ones in a second restore.
 *
 * When the first `list -t` fails nothing is flushed; the destroys still run, and the
 * kernel refuses those of referenced sets (reported leaked, left intact).
 *
 * Never `ipset flush && ipset destroy` of everything (the reference's fast path empties and
 * destroys every set on the host, including ones created a moment later by someone
 * else), and ownership is {@link isOwnedSetName}, not the reference's substring `grep`
 * (docs/reference-behaviour.md §g.2.12): the bare prefix and names with other characters after it are foreign.
 *
 * With `options.manager`, the manager is reset ({@link IPSetManager.reset}) whatever
 * the kernel outcome, also when a kernel read throws (the reference's rule).
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `list -n` fails (nothing is touched —
 *   the reference read a failure as "no sets"); `INVALID_ARGUMENT` for an owner prefix
 *   {@link validateOwnerPrefix} refuses (then nothing is reset, the manager neither).
 */
export async function resetIPSets(port: IpsetPort, options: ResetOptions = {}): Promise<ResetReport> {
  const owner = options.owner ?? options.manager?.owner ?? DEFAULT_OWNER;
  validateOwnerPrefix(owner);
  try {
    return await resetKernel(port, owner, options);
  } finally {
    options.manager?.reset();
  }
}

async function referencedSets(port: IpsetPort, options: DriverOptions): Promise<Map<string, number>> {
  const headers = parseListHeaders(await read('list -t', (o) => port.listHeaders(o), options));
  const refs = new Map<string, number>();
  for (const h of headers) if (!refs.has(h.name)) refs.set(h.name, h.references);
  return refs;
}

async function resetKernel(port: IpsetPort, owner: string, options: DriverOptions): Promise<ResetReport> {
  const names = parseListNames(await read('list -n', (o) => port.listNames(o), options));
  const found = [...new Set(names.filter((n) => isOwnedSetName(n, owner)))];
  const problems: string[] = [];

  // References before the flush: a referenced set is left exactly as it is.
  const toFlush: string[] = [];
  if (found.length > 0) {
    try {
      const refs = await referencedSets(port, options);
      for (const n of found) if (refs.get(n) === 0) toFlush.push(n);
    } catch (error) {
      if (!isIpsetsError(error, 'KERNEL_READ_FAILED')) throw error;
      problems.push(`reading references failed, so nothing was flushed (the kernel refuses to destroy referenced sets): ${error.message}`);
    }
  }

  const flush = await runRestoreSession(planResetFlush(toFlush, owner), port, options);
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

  // After the flush, flushed owned lists no longer hold their members: any reference
  // left is from outside (iptables, a foreign list, an owned list left intact) or a
  // leaked kernel count.
  const leaked: string[] = [];
  const candidates = found.filter((n) => !vanished.has(n) && !failed.has(n));
  if (candidates.length > 0) {
    try {
      const refs = await referencedSets(port, options);
      for (const n of candidates) if ((refs.get(n) ?? 0) > 0) leaked.push(n);
    } catch (error) {
      if (!isIpsetsError(error, 'KERNEL_READ_FAILED')) throw error;
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
