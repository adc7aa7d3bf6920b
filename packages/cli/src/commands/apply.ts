/**
 * `ipsets apply FILE`: makes the chosen kernel's owned sets equal to the file
 * (reconcile: drift repaired, owned sets not in the file removed, foreign sets
 * untouched) and prints the report. Exit 0 converged, 1 not converged, 2 bad input
 * (also a FILE with no sets that would destroy owned sets, without --allow-empty),
 * 3 converged except owned sets the kernel still references.
 */
import { resolve } from 'node:path';
import { reconcileIPSets } from '@ipsets/core';
import { EXIT, stdoutStyle } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { desiredStateOf, loadDesiredFile } from '../desired-file.js';
import { guardEmptyDesired } from '../empty-desired.js';
import { applyOutcome, formatApplyReport, labelsOf, reportToJson } from '../format.js';
import { openKernel, withProgress } from '../kernel.js';
import type { KernelOptions } from '../kernel.js';

/** Options of {@link applyCommand}. */
export interface ApplyCommandOptions extends KernelOptions {
  /** Print the report as JSON. */
  json?: boolean;
  /** Apply a FILE with no sets even when that destroys owned sets (refused otherwise). */
  allowEmpty?: boolean;
}

/** Runs `ipsets apply`; returns the exit code. */
export async function applyCommand(file: string, options: ApplyCommandOptions, io: CliIo): Promise<number> {
  // Validate the whole file before the kernel is even opened: a bad file changes nothing.
  const desiredFile = await loadDesiredFile(resolve(io.cwd, file));
  const desired = desiredStateOf(desiredFile);
  const kernel = await openKernel(options, io.cwd);
  await guardEmptyDesired(desired, kernel.port, { source: file, ...(options.allowEmpty === true ? { allowEmpty: true } : {}) });
  const started = io.now();
  const report = await reconcileIPSets(desired, withProgress(kernel.port, io.stderr));
  const durationMs = io.now() - started;
  await kernel.persist();
  const outcome = applyOutcome(report);
  if (options.json === true) {
    io.stdout.write(JSON.stringify({ ...reportToJson(report, durationMs), outcome: outcome.outcome, exitCode: outcome.exitCode }, null, 2) + '\n');
  } else {
    io.stdout.write(`${kernel.description}: ${desired.sets.length} desired set(s)\n`);
    io.stdout.write(formatApplyReport(report, { style: stdoutStyle(io), labels: labelsOf(desired), durationMs }));
  }
  return outcome.exitCode;
}
