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
import { planResetDestroy } from '../plan/plan-reset.js';
import { destroyOrder } from '../plan/set-fate.js';
import { parseListHeaders, parseListNames } from '../parse/list-parser.js';
import { SaveReader, parseSave } from '../parse/save-parser.js';
import { runRestoreSession } from '../session/session.js';
import type { RunRestoreSessionOptions } from '../session/session.js';
import type { ApplyReport, CommandResult, DesiredState, IpsetPort, PortCallOptions, RestorePlan, SaveSnapshot } from '../types.js';

/** Options of the drivers: the session's attempt budget and an abort signal passed to every port call. */
export type DriverOptions = RunRestoreSessionOptions;

/** Options of {@link applyIPSets}. */
export interface ApplyOptions extends DriverOptions {
  /**
   * Count the result toward the manager's consecutive-failure limit (default true, as
   * the reference's `ApplyIPSets` does): the failure policy of a program that calls
   * `applyIPSets` itself. A caller with a failure policy of its own — the agent of
   * `@ipsets/exec-linux`, which also counts reconciles — passes false, so that one
   * policy decides and the manager's count stays the caller's alone.
   */
  countFailures?: boolean;
}

/** Options of {@link reconcileIPSets}. */
export interface ReconcileOptions extends DriverOptions, PlanReconcileOptions {}

/** Options of {@link resetIPSets}. */
export interface ResetOptions extends DriverOptions {
  /**
   * Owner prefix: only sets it owns ({@link isOwnedSetName}) are destroyed
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
  /** Sets that were already gone when destroyed (someone else removed them). */
  vanished: string[];
  /**
   * Sets not destroyed because something still references them (an iptables rule, a
   * list that stays, a leaked kernel count). They are left intact: a reset never
   * flushes (destroying the owned lists first releases their members).
   */
  leaked: string[];
  /** Sets whose destroy failed for another reason, or that a session never reached. */
  failed: string[];
  /** The first session: destroys of the owned lists nothing references (empty when the references could not be read). */
  lists: ApplyReport;
  /** @deprecated The same report as {@link lists}: a reset no longer flushes. */
  flush: ApplyReport;
  /** The second session: destroys of the rest (absent when the first ended early). */
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
  return (await readResult(what, call(callOptions(options)))).stdout;
}

/** The result of a read, checked: a read that did not exit 0 throws. */
async function readResult(what: string, running: Promise<CommandResult>): Promise<CommandResult> {
  const result = await running;
  if (result.exitCode !== 0 || result.signal !== undefined) {
    const how = result.signal !== undefined ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`;
    throw new IpsetsError('KERNEL_READ_FAILED', `ipset ${what} ${how}: ${quote(result.stderr.trim())}; expected exit 0.`, {
      details: { command: what, exitCode: result.exitCode, signal: result.signal, stderr: result.stderr },
    });
  }
  return result;
}

/**
 * `ipset save`, parsed: piece by piece while ipset prints when the port streams its
 * stdout ({@link PortCallOptions.stdout}), else the whole text once it ends.
 */
async function readSnapshot(port: IpsetPort, options: DriverOptions): Promise<SaveSnapshot> {
  const reader = new SaveReader();
  const result = await readResult('save', port.save({ ...callOptions(options), stdout: (piece) => reader.push(piece) }));
  if (result.streamed === true) return reader.end();
  return parseSave(result.stdout);
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
  // The names tell a vanished set to update, and which temporaries a rebuild may use.
  if (manager.dirtySets().some((d) => d.state === 'update' || d.unknown)) {
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
  const snapshot: SaveSnapshot = needsSave ? await readSnapshot(port, options) : { sets: [], problems: [] };
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
  const snapshot = await readSnapshot(port, options);
  const headers = parseListHeaders(await read('list -t', (o) => port.listHeaders(o), options));
  const plan = planReconcile(desired, snapshot, headers, options);
  return runRestoreSession(plan, port, options);
}

/**
 * Removes every owned set from the kernel (the reference's `resetIPSets`
 * without its fast path), agreeing with reconcile on referenced sets, and never
 * flushing (set-fate.ts: emptying a set a rule still matches changes traffic):
 *
 * 1. `ipset list -n`; keep the owned names ({@link isOwnedSetName}).
 * 2. `ipset list -t` BEFORE anything changes: types and references.
 * 3. Destroy the owned lists nothing references, in one restore: that releases their
 *    members.
 * 4. `ipset list -t` again: sets still referenced are left in the kernel, intact, and
 *    reported `leaked`.
 * 5. Destroy the free ones in a second restore (lists first).
 *
 * When the first `list -t` fails, step 3 is skipped; the destroys still run, and the
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

async function readHeaders(port: IpsetPort, options: DriverOptions): Promise<Map<string, { references: number; list: boolean }>> {
  const headers = parseListHeaders(await read('list -t', (o) => port.listHeaders(o), options));
  const out = new Map<string, { references: number; list: boolean }>();
  for (const h of headers) if (!out.has(h.name)) out.set(h.name, { references: h.references, list: h.type === 'list:set' });
  return out;
}

/** Sorts a destroy session's skipped lines into the reset's outcome sets. */
function sortSkipped(report: ApplyReport, vanished: Set<string>, leaked: Set<string>, failed: Set<string>): void {
  for (const s of report.skipped) {
    if (s.outcome === 'in-use') leaked.add(s.set);
    else if (s.outcome === 'ignorable') vanished.add(s.set);
    else failed.add(s.set);
  }
  for (const n of report.failedSets) failed.add(n);
}

async function resetKernel(port: IpsetPort, owner: string, options: DriverOptions): Promise<ResetReport> {
  validateOwnerPrefix(owner);
  const names = parseListNames(await read('list -n', (o) => port.listNames(o), options));
  const found = [...new Set(names.filter((n) => isOwnedSetName(n, owner)))];
  const problems: string[] = [];
  const vanished = new Set<string>();
  const failed = new Set<string>();
  const leaked = new Set<string>();

  // Types and references before anything changes: owned lists nothing references go first.
  let before: Map<string, { references: number; list: boolean }> | undefined;
  if (found.length > 0) {
    try {
      before = await readHeaders(port, options);
    } catch (error) {
      if (!isIpsetsError(error, 'KERNEL_READ_FAILED')) throw error;
      problems.push(`reading references failed, destroying without them (the kernel refuses to destroy referenced sets, which stay intact): ${error.message}`);
    }
  }
  const freeLists = before === undefined ? [] : found.filter((n) => before.get(n)?.list === true && before.get(n)?.references === 0);
  const lists = await runRestoreSession(planResetDestroy(freeLists, [], owner), port, options);
  sortSkipped(lists, vanished, leaked, failed);
  const gone = new Set(freeLists.filter((n) => !vanished.has(n) && !leaked.has(n) && !failed.has(n)));
  if (lists.fatal !== undefined) {
    // The session ended early: report every owned set that is not known gone as failed.
    for (const n of found) if (!vanished.has(n)) failed.add(n);
    return finish({ owner, found, lists, vanished, failed, leaked: [], destroyed: [], problems });
  }

  // Any reference left is from outside (iptables, a foreign list, an owned list that
  // stays) or a leaked kernel count.
  const candidates = found.filter((n) => !gone.has(n) && !vanished.has(n) && !failed.has(n) && !leaked.has(n));
  const held: string[] = [];
  let after = before;
  if (candidates.length > 0) {
    try {
      // Nothing destroyed yet: the first read still holds.
      if (gone.size > 0 || before === undefined) after = await readHeaders(port, options);
      for (const n of candidates) if ((after?.get(n)?.references ?? 0) > 0) held.push(n);
    } catch (error) {
      if (!isIpsetsError(error, 'KERNEL_READ_FAILED')) throw error;
      // Without headers, the destroy handlers still catch references (in-use), one line per attempt.
      problems.push(`reading references failed, destroying without them: ${error.message}`);
    }
  }
  const order = destroyOrder(candidates, (n) => after?.get(n)?.list === true);
  const destroy = await runRestoreSession(planResetDestroy(order, held, owner), port, options);
  for (const n of held) leaked.add(n);
  sortSkipped(destroy, vanished, leaked, failed);
  const notDestroyed = new Set<string>([...leaked, ...vanished, ...failed]);
  const tried = new Set([...gone, ...candidates]);
  const destroyed = found.filter((n) => tried.has(n) && !notDestroyed.has(n));
  return finish({ owner, found, lists, destroy, vanished, failed, leaked: [...leaked], destroyed, problems });
}

function finish(parts: {
  owner: string;
  found: string[];
  lists: ApplyReport;
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
    converged: failed.length === 0 && parts.lists.fatal === undefined && parts.destroy?.fatal === undefined,
    found: parts.found,
    destroyed: parts.destroyed,
    vanished: inFoundOrder(parts.vanished),
    leaked: inFoundOrder(parts.leaked),
    failed,
    lists: parts.lists,
    flush: parts.lists,
    problems: parts.problems,
  };
  if (parts.destroy !== undefined) report.destroy = parts.destroy;
  return report;
}
