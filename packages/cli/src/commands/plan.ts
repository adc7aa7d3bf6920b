/**
 * `ipsets plan FILE [--save SAVE_FILE] [--json]`: the restore text that would run,
 * against an empty kernel or against a captured `ipset save`. Touches no kernel.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { IpsetsError, parseSave, planReconcile, quote, renderRestore } from '@ipsets/core';
import type { SaveSnapshot } from '@ipsets/core';
import { EXIT } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { desiredStateOf } from '../desired-file.js';
import { loadDesiredInput } from '../desired-input.js';
import { formatPlanCounts, planToJson } from '../format.js';

/** Options of {@link planCommand}. */
export interface PlanCommandOptions {
  /** A captured `ipset save` to plan against (`-` reads stdin). */
  save?: string;
  /** Print the plan as JSON (lines with sections and error handlers, notes). */
  json?: boolean;
  /** Where `--save -` reads from (default process.stdin). */
  stdin?: AsyncIterable<string | Buffer>;
}

async function readAll(stream: AsyncIterable<string | Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

/** Reads a captured `ipset save` text and parses it; parse problems go to stderr. */
export async function readSaveSnapshot(path: string, io: CliIo, stdin?: AsyncIterable<string | Buffer>): Promise<SaveSnapshot> {
  let text: string;
  try {
    text = path === '-' ? await readAll(stdin ?? process.stdin) : await readFile(resolve(io.cwd, path), 'utf8');
  } catch (error) {
    throw new IpsetsError('INVALID_INPUT', `cannot read save file ${quote(path)}: ${(error as Error).message}`, { cause: error });
  }
  const snapshot = parseSave(text);
  for (const p of snapshot.problems.slice(0, 20)) {
    io.stderr.write(`ipsets: ${path === '-' ? 'stdin' : path}: line ${p.line} ignored: ${p.reason}: ${quote(p.text)}\n`);
  }
  if (snapshot.problems.length > 20) io.stderr.write(`ipsets: … and ${snapshot.problems.length - 20} more ignored lines\n`);
  return snapshot;
}

/** Runs `ipsets plan`; returns the exit code. */
export async function planCommand(file: string, options: PlanCommandOptions, io: CliIo): Promise<number> {
  if (file === '-' && options.save === '-') {
    throw new IpsetsError('INVALID_ARGUMENT', 'FILE and --save cannot both be "-" (stdin); give one of them as a file');
  }
  const desiredFile = await loadDesiredInput(file, io, options.stdin);
  const desired = desiredStateOf(desiredFile);
  const snapshot: SaveSnapshot =
    options.save === undefined ? { sets: [], problems: [] } : await readSaveSnapshot(options.save, io, options.stdin);
  // A captured save has no reference counts; the plan's destroy handlers cover sets still in use.
  const plan = planReconcile(desired, snapshot, []);
  if (options.json === true) {
    io.stdout.write(JSON.stringify({ schemaVersion: 1, ...planToJson(plan) }, null, 2) + '\n');
    return EXIT.ok;
  }
  io.stdout.write(renderRestore(plan));
  const against = options.save === undefined ? 'an empty kernel' : `${options.save === '-' ? 'stdin' : options.save} (${snapshot.sets.length} sets)`;
  io.stderr.write(`ipsets: plan against ${against}: ${formatPlanCounts(plan)}\n`);
  for (const note of plan.notes ?? []) io.stderr.write(`ipsets: note: ${note.set}: ${note.kind}: ${note.message}\n`);
  return EXIT.ok;
}
