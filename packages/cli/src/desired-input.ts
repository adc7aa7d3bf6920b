/**
 * The FILE argument of plan, diff and apply: a path, `-` for stdin (`kubectl get
 * cm … -o jsonpath=… | ipsets apply -`), or a folder of parts (see `desired/parts`).
 * All are read with the same bounds as any desired-state file (see `loadDesiredFile`).
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIo } from './cli-io.js';
import { loadDesiredFile } from './desired-file.js';
import type { DesiredFile } from './desired-file.js';
import { loadDesiredParts } from './desired/parts.js';

/**
 * Loads and validates the desired file named by `file` (`-`: stdin; a folder: its
 * parts as one desired state), relative to the io's folder. `owner` is the command's
 * `--owner`: the owner prefix of a file that names none (a file that names another is refused).
 *
 * @throws IpsetsError `INVALID_INPUT` for an unreadable or invalid file or part (nothing is applied).
 */
export async function loadDesiredInput(file: string, io: CliIo, stdin?: AsyncIterable<string | Buffer>, owner?: string): Promise<DesiredFile> {
  const ownerOption = owner === undefined ? {} : { owner, ownerSource: '--owner' };
  if (file === '-') return loadDesiredFile('-', { ...(stdin === undefined ? {} : { stdin }), ...ownerOption });
  const path = resolve(io.cwd, file);
  if ((await stat(path).catch(() => undefined))?.isDirectory() === true) return loadDesiredParts(path, ownerOption);
  return loadDesiredFile(path, ownerOption);
}
