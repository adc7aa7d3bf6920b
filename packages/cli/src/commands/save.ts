/**
 * `ipsets save`: the kernel's owned sets in `ipset save` format (the kernel's own
 * lines of the sets core's ownership rule gives the owner), ready for `ipsets plan --save`.
 */
import { isOwnedSetName, parseSave, validateOwnerPrefix } from '@ipsets/core';
import { EXIT } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { DEFAULT_CLI_OWNER } from '../defaults.js';
import { checkKernelOptions, openKernel } from '../kernel.js';
import { readSaveText } from '../kernel/read-kernel.js';
import type { KernelOptions } from '../kernel.js';

/** Options of {@link saveCommand}. */
export interface SaveCommandOptions extends KernelOptions {
  /** Owner prefix (default {@link DEFAULT_CLI_OWNER}, `ipsets-`; `azure-npm-` selects sets named like Azure NPM's). */
  owner?: string;
  /** Print the owned sets as JSON (name, type, options, members). */
  json?: boolean;
}

/** The lines of an `ipset save` text that belong to sets `owner` owns ({@link isOwnedSetName}). */
export function filterOwnedSave(text: string, owner: string): string {
  let out = '';
  for (const line of text.split('\n')) {
    // `create NAME …` and `add NAME …`: the set name is always the second word.
    const first = line.indexOf(' ');
    if (first === -1) continue;
    const second = line.indexOf(' ', first + 1);
    const name = line.slice(first + 1, second === -1 ? undefined : second);
    if (isOwnedSetName(name, owner)) out += line + '\n';
  }
  return out;
}

/** Runs `ipsets save`; returns the exit code. */
export async function saveCommand(options: SaveCommandOptions, io: CliIo): Promise<number> {
  const owner = options.owner ?? DEFAULT_CLI_OWNER;
  // The check reset makes: a prefix such as `a` would claim other components' sets.
  validateOwnerPrefix(owner);
  await checkKernelOptions(options);
  const kernel = await openKernel(options, io.cwd);
  const owned = filterOwnedSave(await readSaveText(kernel.port), owner);
  if (options.json === true) {
    io.stdout.write(JSON.stringify({ schemaVersion: 1, owner, sets: parseSave(owned).sets }, null, 2) + '\n');
    return EXIT.ok;
  }
  io.stdout.write(owned);
  return EXIT.ok;
}
