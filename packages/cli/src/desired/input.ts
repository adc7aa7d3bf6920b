/**
 * The FILE arguments of plan, diff and apply: a path, `-` for stdin (`kubectl get
 * cm … -o jsonpath=… | ipsets apply -`), a folder of parts (see `desired/parts`), or
 * several paths, read as the parts of one desired state.
 * All are read with the same bounds as any desired-state file (see `loadDesiredFile`).
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { loadDesiredFile } from './file.js';
import type { DesiredFile } from './file.js';
import { IpsetsError } from '@ipsets/core';
import { loadDesiredPartFiles, loadDesiredParts } from './parts.js';

/**
 * Loads and validates the desired file named by `file` (`-`: stdin; a folder: its
 * parts as one desired state), relative to the io's folder. `owner` is the command's
 * `--owner`: the owner prefix of a file that names none (a file that names another is refused).
 *
 * @throws IpsetsError `INVALID_INPUT` for an unreadable or invalid file or part (nothing is applied).
 */
export async function loadDesiredInput(files: string | readonly string[], io: CliIo, stdin?: AsyncIterable<string | Buffer>, owner?: string): Promise<DesiredFile> {
  const ownerOption = owner === undefined ? {} : { owner, ownerSource: '--owner' };
  const file = typeof files === 'string' ? files : files.length === 1 ? files[0]! : undefined;
  if (file === undefined) {
    // Several FILEs: the parts of one desired state, each a file.
    const list = files as readonly string[];
    if (list.includes('-')) throw new IpsetsError('INVALID_ARGUMENT', '"-" (stdin) cannot be one of several FILEs; give it alone, or save it to a file');
    const paths = list.map((f) => resolve(io.cwd, f));
    for (const path of paths) {
      if ((await stat(path).catch(() => undefined))?.isDirectory() === true) {
        throw new IpsetsError('INVALID_ARGUMENT', `${JSON.stringify(path)} is a folder: a folder of parts is given alone, not as one of several FILEs`);
      }
    }
    return loadDesiredPartFiles(paths, ownerOption);
  }
  if (file === '-') return loadDesiredFile('-', { ...(stdin === undefined ? {} : { stdin }), ...ownerOption });
  const path = resolve(io.cwd, file);
  if ((await stat(path).catch(() => undefined))?.isDirectory() === true) return loadDesiredParts(path, ownerOption);
  return loadDesiredFile(path, ownerOption);
}
