/**
 * @ipsets/testing — fast-check arbitraries for @ipsets (pools, manager calls, desired
 * and kernel states, fault plans and the faulty port that arms them, differential
 * restore scripts). The fake kernel and its port are `@ipsets/fake-kernel`, the
 * invariant checks `@ipsets/fake-kernel/invariants`. The port contract suite is the
 * `./vitest` subpath.
 *
 * @packageDocumentation
 */

// --- arbitraries ---
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
export { applyManagerCall, managerCallArb, managerCallsArb, managerConfigArb } from './arbitraries/manager-calls.js';
export type { ManagerCall } from './arbitraries/manager-calls.js';
export { desiredStateArb, managerDesiredStateArb, ownedNames } from './arbitraries/desired-states.js';
export type { DesiredStateOptions } from './arbitraries/desired-states.js';
export { buildKernel, kernelNearArb, kernelStateArb } from './arbitraries/kernel-states.js';
export type { InitialKernel, KernelStateOptions } from './arbitraries/kernel-states.js';
export { faultPlanArb } from './arbitraries/fault-plans.js';
export type { FaultPlan, FaultPlanOptions, FaultTarget, PlannedFault } from './arbitraries/fault-plans.js';
export { faultMessage, restoreLineOp } from './arbitraries/restore-lines.js';
export { faultyPort } from './arbitraries/faulty-port.js';
export type { ArmedFault, FaultyPort } from './arbitraries/faulty-port.js';
export { restoreScriptArb } from './restore-scripts/index.js';
export type { RestoreScript } from './restore-scripts/index.js';
