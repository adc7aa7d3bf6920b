/**
 * vitest globalSetup shared by every package: picks the one fast-check seed of a
 * package's test run and prints it once, so any run — failing or passing — can be
 * repeated with `FC_SEED=<n>`. The seed reaches the test workers through
 * `provide`; `vitest.fc-setup.ts` hands it to fast-check there.
 */
import { basename } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The fast-check seed of this run (from `FC_SEED`, or drawn once here). */
    fcSeed: number;
  }
}

/** The seed from `FC_SEED` when it is a non-zero integer, otherwise a fresh random one. */
export function pickSeed(fromEnv: string | undefined): number {
  const value = Number(fromEnv);
  return Number.isInteger(value) && value !== 0 ? value : Math.floor(Math.random() * 0x7fffffff) + 1;
}

export default function setup(project: TestProject): void {
  const seed = pickSeed(process.env['FC_SEED']);
  project.provide('fcSeed', seed);
  console.log(`[${project.name || basename(project.config.root)}] FC_SEED=${seed} (replay: FC_SEED=${seed} npm test)`);
}
