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
  FOREIGN_NAMES,
  LIST_SET_METAS,
  NET6_MEMBERS,
  NET_MEMBERS,
  NET_SET_METAS,
  OWNED_LABELS,
  POD_KEYS,
  PORT6_MEMBERS,
  PORT_MEMBERS,
  PORT_SET_METAS,
  RAW_NET_MEMBERS,
  RAW_PORT_MEMBERS,
  REF_NAMES,
  applyManagerCall,
  buildKernel,
  desiredStateArb,
  faultMessage,
  faultPlanArb,
  faultyPort,
  kernelNearArb,
  kernelStateArb,
  managerCallArb,
  managerCallsArb,
  managerConfigArb,
  managerDesiredStateArb,
  ownedNames,
  restoreLineOp,
} from './arbitraries.js';
export type {
  ArmedFault,
  DesiredStateOptions,
  FaultPlan,
  FaultPlanOptions,
  FaultTarget,
  FaultyPort,
  InitialKernel,
  KernelStateOptions,
  ManagerCall,
  PlannedFault,
} from './arbitraries.js';
export { restoreScriptArb } from './restore-scripts.js';
export type { RestoreScript } from './restore-scripts.js';
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
