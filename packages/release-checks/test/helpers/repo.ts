/** Paths and small helpers shared by the release checks. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (with a trailing slash). */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The built `ipsets` entry point. */
export const CLI_BIN = `${ROOT}packages/cli/dist/bin.js`;

/** The packages that are published (everything under packages/ that is not private). */
export const PUBLISHED = ['core', 'exec-linux', 'fake-kernel', 'testing', 'cli'] as const;

/** Runs the built CLI with `args`; returns its exit code and output. */
export function runCli(args: readonly string[]): { status: number; stdout: string; stderr: string } {
  if (!existsSync(CLI_BIN)) throw new Error(`${CLI_BIN} is missing: build the CLI first (pnpm build)`);
  const result = spawnSync(process.execPath, [CLI_BIN, ...args], { encoding: 'utf8' });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** The long flags (`--name`) a help text lists in its Options section, `--no-x` forms included. */
export function helpFlags(help: string): Set<string> {
  const options = help.split(/^Options:\s*$/m)[1] ?? '';
  const flags = new Set<string>();
  for (const line of options.split('\n')) {
    // Option lines start with the flag column; wrapped description lines start with spaces only.
    const head = /^\s{1,6}((?:-\w, )?--[\w-]+(?:[ ,|]+--[\w-]+)*)/.exec(line);
    if (!head) continue;
    for (const flag of head[1]!.match(/--[\w-]+/g) ?? []) flags.add(flag);
  }
  return flags;
}

/** Every `.ts` file below `dir` (node_modules left out), as absolute paths. */
export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFilesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
