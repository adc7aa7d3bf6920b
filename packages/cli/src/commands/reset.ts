/**
 * `ipsets reset`: destroys the kernel's owned sets, lists first, never flushing (never another
 * set), and lists the ones that could not be destroyed because something still
 * references them (leaked).
 */
import { resetIPSets, validateOwnerPrefix } from '@ipsets/core';
import type { ResetReport } from '@ipsets/core';
import { EXIT, stdoutStyle } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { reportToJson } from '../output/apply-report.js';
import { formatResetReport } from '../output/reset-report.js';
import { DEFAULT_CLI_OWNER } from '../defaults.js';
import { checkKernelOptions, openKernel } from '../kernel/index.js';
import { withProgress } from '../kernel/progress.js';
import type { KernelOptions } from '../kernel/index.js';
import { lockPathFor, withWriterLock } from '../kernel-lock.js';
import { createLogger } from '../logging.js';
import type { LogFormat, LogLevel } from '../logging.js';

/** Options of {@link resetCommand}. */
export interface ResetCommandOptions extends KernelOptions {
  /** Owner prefix (default {@link DEFAULT_CLI_OWNER}, `ipsets-`; `azure-npm-` resets sets named like Azure NPM's). */
  owner?: string;
  json?: boolean;
  /** How long to wait for another writer of the kernel (ms; default 30 s), then exit 4. */
  waitMs?: number;
  /** The kernel lock file (default: see `lockPathFor`). */
  lockFile?: string;
  logFormat?: LogFormat;
  logLevel?: LogLevel;
}

/** Runs `ipsets reset`; returns the exit code (0 all gone, 3 some leaked because still referenced, 1 the reset failed). */
export async function resetCommand(options: ResetCommandOptions, io: CliIo): Promise<number> {
  const owner = options.owner ?? DEFAULT_CLI_OWNER;
  // Every flag before the lock: a bad one is bad input (exit 2) even for a user who could not take the lock.
  validateOwnerPrefix(owner);
  await checkKernelOptions(options);
  const lockFile = await lockPathFor(options, io.cwd);
  const log = createLogger({
    stream: io.stderr,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
    ...(options.logLevel === undefined ? {} : { level: options.logLevel }),
  });
  // A reset is a writer: it holds the kernel lock for its reads and destroys.
  const { report, durationMs } = await withWriterLock(lockFile, options.waitMs === undefined ? {} : { waitMs: options.waitMs }, log, async () => {
    const kernel = await openKernel(options, io.cwd);
    const started = io.now();
    const report = await resetIPSets(withProgress(kernel.port, io.stderr), { owner });
    const durationMs = io.now() - started;
    await kernel.persist();
    return { report, durationMs };
  });
  const code = resetExitCode(report);
  if (options.json === true) {
    // `flush` is the deprecated alias of `lists` (a reset no longer flushes): not printed twice.
    const { flush, ...rest } = report;
    void flush;
    const json = {
      schemaVersion: 1,
      exitCode: code,
      ...rest,
      lists: reportToJson(report.lists),
      ...(report.destroy === undefined ? {} : { destroy: reportToJson(report.destroy) }),
      durationMs,
      outcome: !report.converged ? 'not-converged' : report.leaked.length > 0 ? 'converged-except-in-use' : 'converged',
    };
    io.stdout.write(JSON.stringify(json, null, 2) + '\n');
  } else io.stdout.write(formatResetReport(report, { style: stdoutStyle(io), durationMs, owner }));
  return code;
}

/** 0 every owned set gone, 3 the rest leaked (still referenced), 1 the reset failed. */
function resetExitCode(report: ResetReport): number {
  if (!report.converged) return EXIT.failed;
  return report.leaked.length > 0 ? EXIT.inUse : EXIT.ok;
}
