/**
 * `@ipsets/testing/arbitraries` — the fast-check arbitraries of @ipsets and the pools they
 * draw from: desired states, manager calls, kernels near a desired state, fault plans and
 * restore scripts. What acts on a kernel (the faulty port, `buildKernel`, applying a
 * manager call) is the main entry, `@ipsets/testing`.
 *
 * @packageDocumentation
 */
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
} from './arbitraries/pools.js';
export { managerCallArb, managerCallsArb, managerConfigArb } from './arbitraries/manager-calls.js';
export type { ManagerCall } from './arbitraries/manager-calls.js';
export { desiredStateArb, managerDesiredStateArb, ownedNames } from './arbitraries/desired-states.js';
export type { DesiredStateOptions } from './arbitraries/desired-states.js';
export { kernelNearArb, kernelStateArb } from './arbitraries/kernel-states.js';
export type { InitialKernel, KernelStateOptions } from './arbitraries/kernel-states.js';
export { faultPlanArb } from './arbitraries/fault-plans.js';
export type { FaultPlan, FaultPlanOptions, FaultTarget, PlannedFault } from './arbitraries/fault-plans.js';
export { restoreScriptArb } from './restore-scripts/index.js';
export type { RestoreScript } from './restore-scripts/index.js';
