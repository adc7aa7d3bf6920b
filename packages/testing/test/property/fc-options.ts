/**
 * fast-check options shared by this package's property tests: `FC_SEED` replays a run,
 * `FC_NUM_RUNS` raises (or lowers) the number of runs. Without `FC_SEED` a seed is
 * drawn here and printed, so a passing run can be repeated too.
 */
import type { Parameters } from 'fast-check';

const fromEnv = Number(process.env.FC_SEED);

/** The seed of every property in this process. */
export const FC_SEED: number = Number.isInteger(fromEnv) && fromEnv !== 0 ? fromEnv : Math.floor(Math.random() * 0x7fffffff) + 1;

let printed = false;

/** Parameters for `fc.assert`: the shared seed and `FC_NUM_RUNS` or `defaultRuns`. Prints the seed once per file. */
export function fcOptions<T>(file: string, defaultRuns: number, extra: Parameters<T> = {}): Parameters<T> {
  if (!printed) {
    printed = true;
    console.log(`[${file}] FC_SEED=${FC_SEED} (replay: FC_SEED=${FC_SEED} npx vitest run test/property/${file}.property.test.ts)`);
  }
  return { seed: FC_SEED, numRuns: Number(process.env.FC_NUM_RUNS) || defaultRuns, ...extra };
}

/** A restore text indented for a failure message, cut after `max` lines. */
export function excerpt(text: string, max = 24): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const shown = lines.slice(0, max).map((l) => `    ${l}`);
  if (lines.length > max) shown.push(`    … ${lines.length - max} more line(s)`);
  return shown.join('\n');
}
