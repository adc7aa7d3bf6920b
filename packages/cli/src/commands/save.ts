/**
 * `ipsets save`: the kernel's owned sets in `ipset save` format (the kernel's own
 * lines of the sets core's ownership rule gives the owner), ready for `ipsets plan --save`.
 */
import { isOwnedSetName, parseSave, validateOwnerPrefix } from '@ipsets/core';
import { EXIT } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { DEFAULT_CLI_OWNER } from '../defaults.js';
import { checkKernelOptions, openKernel } from '../kernel/index.js';
import { readSaveText } from '../kernel/read-kernel.js';
import type { KernelOptions } from '../kernel/index.js';

/** Options of {@link saveCommand}. */
export interface SaveCommandOptions extends KernelOptions {
  /** Owner prefix (default {@link DEFAULT_CLI_OWNER}, `ipsets-`; `azure-npm-` selects sets named like Azure NPM's). */
  owner?: string;
  /** Print the owned sets as JSON (name, type, options, members). */
  json?: boolean;
}

/**
 * The sets of an `ipset save` text that `owner` owns ({@link isOwnedSetName}), in
 * `ipset save` format. Which set a line belongs to is core's save parser's reading (a
 * set name may hold blanks: `azure-npm-zzz 1` is not `azure-npm-zzz`); each set is
 * printed as its create line and one add line per member, as ipset prints them (a
 * ` nomatch` flag kept; other element options, which ipsets never sets, dropped).
 */
export function filterOwnedSave(text: string, owner: string): string {
  let out = '';
  for (const set of parseSave(text).sets) {
    if (!isOwnedSetName(set.name, owner)) continue;
    out += `create ${set.name} ${set.type}${set.options === '' ? '' : ` ${set.options}`}\n`;
    for (const member of set.members) out += `add ${set.name} ${member}\n`;
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
    // The document keeps its schema: name, type, options and members of each set.
    const sets = parseSave(owned).sets.map((s) => ({ name: s.name, type: s.type, options: s.options, members: [...s.members] }));
    io.stdout.write(JSON.stringify({ schemaVersion: 1, owner, sets }, null, 2) + '\n');
    return EXIT.ok;
  }
  io.stdout.write(owned);
  return EXIT.ok;
}
