/**
 * @ipsets/testing — a fake kernel faithful to ipset 7.17, a port over it, the
 * `fake-ipset` executable, fast-check arbitraries and invariant checks.
 *
 * @packageDocumentation
 */

// --- fake kernel, port ---
export { FakeKernel } from './fake-kernel.js';
export type { CrashSignal, FakeKernelJSON, FakeKernelOptions, FaultSpec, RestoreOptions } from './fake-kernel.js';
export { createFakePort } from './fake-port.js';
export type { FakePortOptions } from './fake-port.js';

// --- arbitraries, invariants ---
export {
  assertConverged,
  assertForeignUntouched,
  assertReportTruthful,
  canonicalSave,
  canonicalSaveText,
  convergenceProblems,
  normalizeCreateOptions,
  saveTextOf,
} from './invariants.js';
export type { CanonicalSet, ConvergedOptions, ConvergenceProblem, SaveSource } from './invariants.js';
