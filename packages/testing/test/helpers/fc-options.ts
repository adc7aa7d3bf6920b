/**
 * fast-check options shared by this package's property tests: `FC_NUM_RUNS` raises (or
 * lowers) the number of runs. fast-check's seed is not set here: the shared vitest setup
 * (`vitest.fc-global.ts` at the repository root) picks, prints and applies it.
 */
import type { Parameters } from 'fast-check';

/** Parameters for `fc.assert`: `FC_NUM_RUNS` or `defaultRuns`. `file` names the test file for readers of a failure. */
export function fcOptions<T>(_file: string, defaultRuns: number, extra: Parameters<T> = {}): Parameters<T> {
  return { numRuns: Number(process.env.FC_NUM_RUNS) || defaultRuns, ...extra };
}

/** A restore text indented for a failure message, cut after `max` lines. */
export function excerpt(text: string, max = 24): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const shown = lines.slice(0, max).map((l) => `    ${l}`);
  if (lines.length > max) shown.push(`    … ${lines.length - max} more line(s)`);
  return shown.join('\n');
}
