/**
 * @ipsets/fake-kernel — a fake Linux kernel faithful to ipset 7.17 (`FakeKernel`: the
 * restore/save/list semantics, one C behaviour per file under `fake/`), an
 * `IpsetPort` over it, and the invariant checks that compare a kernel with a
 * desired state. It depends on `@ipsets/core` only and uses no Node built-ins, so a
 * browser page, a simulator or a production command can load it; the state file kept
 * between processes is the Node-only subpath `@ipsets/fake-kernel/state-file`.
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
