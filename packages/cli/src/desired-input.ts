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
 * Loads and validates the desired file named by `file` (`-`: stdin), relative to the io's folder.
 *
 * @throws IpsetsError `INVALID_INPUT` for an unreadable or invalid file (nothing is applied).
 */
export function loadDesiredInput(file: string, io: CliIo, stdin?: AsyncIterable<string | Buffer>): Promise<DesiredFile> {
  return loadDesiredFile(file === '-' ? '-' : resolve(io.cwd, file), stdin === undefined ? {} : { stdin });
}
