/**
 * `@ipsets/testing/fake` — the runtime part of the testing package: the fake kernel,
 * the port over it and the invariant checks, without fast-check or anything else a
 * test runner needs. This is the entry a simulator or a browser page imports: its
 * import graph is this package's kernel model and `@ipsets/core`, nothing from Node.
 *
 * @packageDocumentation
 */
export { FakeKernel } from './fake-kernel.js';
export type { CrashSignal, FakeKernelJSON, FakeKernelOptions, FaultSpec, RestoreOptions } from './fake-kernel.js';
export { createFakePort } from './fake-port.js';
export type { FakePortOptions } from './fake-port.js';
export {
  assertConverged,
  assertForeignUntouched,
  assertReportTruthful,
  canonicalSave,
  canonicalSaveText,
  convergenceProblems,
  normalizeCreateOptions,
  saveTextOf,
  uncertainSets,
} from './invariants.js';
export type { CanonicalSet, ConvergedOptions, ConvergenceProblem, SaveSource, TruthfulOptions } from './invariants.js';
