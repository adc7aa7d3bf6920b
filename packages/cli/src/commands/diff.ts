/**
 * `ipsets diff FILE`: per set, the members to add and remove to make the chosen
 * kernel equal to the file (what `apply` would change). Changes nothing.
 */
import { planReconcile } from '@ipsets/core';
import { EXIT, stdoutStyle } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { desiredStateOf } from '../desired/file.js';
import { loadDesiredInput } from '../desired/input.js';
import { diffFromPlan, formatDiff, remainingFromPlan } from '../output/diff.js';
import { formatNotes } from '../output/plan-text.js';
import { checkKernelOptions, openKernel } from '../kernel/index.js';
import { readKernel } from '../kernel/read-kernel.js';
import type { KernelOptions } from '../kernel/index.js';

/** Options of {@link diffCommand}. */
export interface DiffCommandOptions extends KernelOptions {
  /** Members shown per set and direction (default: all). */
  limit?: number;
  /**
   * Exit 1 when there are differences (owned sets that stay because they are in use
   * included), 0 when there are none, and {@link EXIT.diffKernelUnreadable} when the
   * kernel could not be read (kubectl diff's convention: more than 1 is an error).
   */
  exitCode?: boolean;
  /** Print the differences as JSON. */
  json?: boolean;
  /** Where `-` reads from (default process.stdin). */
  stdin?: AsyncIterable<string | Buffer>;
  /** The owner prefix when FILE names none (`--owner`). */
  owner?: string;
}

/** Runs `ipsets diff`; returns the exit code. */
export async function diffCommand(file: string | readonly string[], options: DiffCommandOptions, io: CliIo): Promise<number> {
  await checkKernelOptions(options);
  const desiredFile = await loadDesiredInput(file, io, options.stdin, options.owner);
  const desired = desiredStateOf(desiredFile);
  const kernel = await openKernel(options, io.cwd);
  // A kernel that cannot be read throws: under --exit-code the program maps that to 6, never to 1 ("differences").
  const { snapshot, headers } = await readKernel(kernel.port);
  const plan = planReconcile(desired, snapshot, headers);
  const diffs = diffFromPlan(plan, snapshot, desired);
  const remaining = remainingFromPlan(plan, desired);
  const code = options.exitCode === true && (diffs.length > 0 || remaining.length > 0) ? EXIT.failed : EXIT.ok;
  if (options.json === true) {
    io.stdout.write(JSON.stringify({ schemaVersion: 1, exitCode: code, desiredSets: desired.sets.length, sets: diffs, remaining, notes: plan.notes ?? [] }, null, 2) + '\n');
    return code;
  }
  io.stdout.write(
    formatDiff(diffs, {
      remaining,
      style: stdoutStyle(io),
      desiredSets: desired.sets.length,
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    }),
  );
  for (const line of formatNotes(plan.notes ?? [])) io.stderr.write(`${line}\n`);
  return code;
}
