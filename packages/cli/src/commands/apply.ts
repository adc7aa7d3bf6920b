/**
 * `ipsets apply FILE`: makes the chosen kernel's owned sets equal to the file
 * (reconcile: drift repaired, owned sets not in the file removed, foreign sets
 * untouched) and prints the report and a per-set summary. Exit 0 converged, 1 not
 * converged (or the kernel failed or timed out), 2 bad input (also a FILE with no sets
 * that would destroy owned sets, without --allow-empty), 3 converged except
 * in-use leftovers. SIGTERM/SIGINT let the restore in flight finish (or abort it after
 * `--grace`), start no other, and the report says what did not reach the kernel.
 */
import { reconcileIPSets } from '@ipsets/core';
import { stdoutStyle } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { DEFAULT_GRACE_MS } from '../defaults.js';
import { desiredStateOf } from '../desired/file.js';
import { loadDesiredInput } from '../desired/input.js';
import { allowed, guardDestroyBudget } from '../destroy-budget.js';
import { applyOutcome, formatApplyReport, reportToJson } from '../output/apply-report.js';
import { labelsOf } from '../output/labels.js';
import { checkKernelOptions, openKernel } from '../kernel/index.js';
import { checkKernelAfterEarlyEnd, endedEarlyBy, formatKernelCheck } from '../kernel/after-abort.js';
import { prefetchReads } from '../kernel/prefetch.js';
import { withProgress } from '../kernel/progress.js';
import type { KernelOptions } from '../kernel/index.js';
import { createDeferredLogger } from '../logging.js';
import type { LogFormat, LogLevel } from '../logging.js';
import { formatSetSummary, summarizeSets } from '../output/set-summary.js';
import { lockPathFor, withWriterLock } from '../kernel-lock.js';
import { listenForStop, stoppablePort } from '../signals.js';
import type { StoppablePort } from '../signals.js';

/** Options of {@link applyCommand}. */
export interface ApplyCommandOptions extends KernelOptions {
  /** Print the report as JSON. */
  json?: boolean;
  /** After SIGTERM/SIGINT, let the restore in flight run this long (ms) before aborting it. */
  graceMs?: number;
  /** How long to wait for another writer of the kernel (ms; default 30 s), then exit 4. */
  waitMs?: number;
  /** The kernel lock file (default: see `lockPathFor`). */
  lockFile?: string;
  logFormat?: LogFormat;
  logLevel?: LogLevel;
  /** Where `-` reads from (default process.stdin). */
  stdin?: AsyncIterable<string | Buffer>;
  /** Install SIGTERM/SIGINT listeners (default true; in-process tests turn it off). */
  handleSignals?: boolean;
  /** Apply a FILE with no sets even when that destroys owned sets (refused otherwise). */
  allowEmpty?: boolean;
  /** Apply even when more than the destroy budget of owned sets would go (`--allow-destroy`; see `destroy-budget`). */
  allowDestroy?: boolean;
  /** The owner prefix when FILE names none (`--owner`; default `ipsets-`); a FILE naming another is refused. */
  owner?: string;
}

/** Runs `ipsets apply`; returns the exit code. */
export async function applyCommand(file: string | readonly string[], options: ApplyCommandOptions, io: CliIo): Promise<number> {
  const log = createDeferredLogger({
    stream: io.stderr,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
    ...(options.logLevel === undefined ? {} : { level: options.logLevel }),
  });
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const waitAbort = new AbortController();
  let port: StoppablePort | undefined;
  // Listeners first: a signal while a big file is still being read must not kill the process either.
  const stopper =
    options.handleSignals === false
      ? undefined
      : listenForStop({
          onStop: (signal) => {
            const why = `ipsets apply was stopped by ${signal}`;
            log.warn({ signal, graceMs, restoreInFlight: port?.busy === true }, 'stop requested: the restore in flight may finish, no other starts');
            waitAbort.abort(new Error(why));
            port?.refuseNewCalls(why);
            setTimeout(() => {
              if (port?.busy !== true) return;
              log.warn({ signal, graceMs }, 'the grace period ran out; aborting the restore in flight');
              port.abortInFlight(`the grace period of ${graceMs} ms after ${signal} ran out`);
            }, graceMs).unref();
          },
          onForce: (signal) => log.error({ signal }, 'second signal: exiting now; the kernel may be half-applied, run apply again'),
        });
  try {
    // Flags, then the whole file, before the lock is taken or the kernel opened: bad input changes nothing.
    await checkKernelOptions(options);
    const lockFile = await lockPathFor(options, io.cwd);
    const desiredFile = await loadDesiredInput(file, io, options.stdin, options.owner);
    // The whole read–plan–restore cycle holds the kernel lock; a fake kernel's state is
    // read inside it too, so that two writers never work from the same old state.
    const lockOptions = { signal: waitAbort.signal, ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }) };
    const { kernel, desired, report, check, durationMs } = await withWriterLock(lockFile, lockOptions, log, async () => {
      const kernel = await openKernel(options, io.cwd);
      port = stoppablePort(withProgress(kernel.port, io.stderr));
      if (stopper?.signal !== undefined) port.refuseNewCalls(`ipsets apply was stopped by ${stopper.signal}`);
      const started = io.now();
      // The kernel's save and list -t run in their own processes while the desired
      // state is built (CPU of this one): inside the lock, so no other writer changes
      // the kernel between the reads and the restore planned from them.
      const reads = prefetchReads(port);
      const desired = desiredStateOf(desiredFile);
      // Inside the lock: the count of owned sets it would destroy is read from the kernel it changes.
      await guardDestroyBudget(desired, reads, { source: typeof file === 'string' ? file : file.join(' '), ...allowed(options) });
      const report = await reconcileIPSets(desired, reads);
      // A session that ended early (stop, --timeout, a killed restore) saw none of the
      // killed restore's lines acknowledged: the kernel, read again inside the lock
      // through the open kernel (the stopped port refuses calls), says what reached it.
      const endedBy = endedEarlyBy(report);
      const check = endedBy === undefined ? undefined : await checkKernelAfterEarlyEnd(desired, kernel.port, report, endedBy);
      const durationMs = io.now() - started;
      await kernel.persist();
      return { kernel, desired, report, check, durationMs };
    });
    // The summary and the exit code follow the kernel when it was read again.
    const truth = check === undefined ? report : { ...report, failedSets: [...check.notConverged, ...check.uncertain] };
    const sets = summarizeSets(truth, desired);
    const { outcome, exitCode: code } = applyOutcome(check === undefined ? report : { ...truth, converged: truth.failedSets.length === 0 });
    if (options.json === true) {
      io.stdout.write(
        JSON.stringify({ schemaVersion: 1, exitCode: code, outcome, ...reportToJson(report, durationMs), ...(check === undefined ? {} : { kernelCheck: check }), sets }, null, 2) + '\n',
      );
    } else {
      io.stdout.write(`${kernel.description}: ${desired.sets.length} desired set(s)\n`);
      io.stdout.write(formatApplyReport(report, { style: stdoutStyle(io), labels: labelsOf(desired), durationMs }));
      if (check !== undefined) io.stdout.write(formatKernelCheck(check, labelsOf(desired)));
      io.stdout.write(formatSetSummary(sets));
    }
    if (stopper?.signal !== undefined) {
      log.info({ signal: stopper.signal, converged: truth.failedSets.length === 0, failedSets: truth.failedSets.slice(0, 20), exitCode: code }, 'stopped');
    }
    return code;
  } finally {
    stopper?.dispose();
  }
}
