/**
 * vitest setupFile shared by every package: every `fc.assert` / `fc.sample` of the run
 * uses the seed that `vitest.fc-global.ts` picked and printed. Tests keep their own
 * `numRuns` (scaled by `FC_NUM_RUNS` where they read it) and must not pass `seed`.
 */
import fc from 'fast-check';
import { inject } from 'vitest';

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: inject('fcSeed') });
