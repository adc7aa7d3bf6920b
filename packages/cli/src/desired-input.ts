/**
 * The FILE argument of plan, diff and apply: a path, or `-` for stdin (`kubectl get
 * cm … -o jsonpath=… | ipsets apply -`). Both are read with the same bounds as any
 * desired-state file (see `loadDesiredFile`).
 */
import { resolve } from 'node:path';
import type { CliIo } from './cli-io.js';
import { loadDesiredFile } from './desired-file.js';
import type { DesiredFile } from './desired-file.js';

/**
 * Loads and validates the desired file named by `file` (`-`: stdin), relative to the
 * io's folder. `owner` is the command's `--owner`: the owner prefix of a file that names
 * none (a file that names another is refused).
 *
 * @throws IpsetsError `INVALID_INPUT` for an unreadable or invalid file (nothing is applied).
 */
export function loadDesiredInput(file: string, io: CliIo, stdin?: AsyncIterable<string | Buffer>, owner?: string): Promise<DesiredFile> {
  return loadDesiredFile(file === '-' ? '-' : resolve(io.cwd, file), {
    ...(stdin === undefined ? {} : { stdin }),
    ...(owner === undefined ? {} : { owner, ownerSource: '--owner' }),
  });
}
