/**
 * @ipsets/testing — test tools for @ipsets that act on a kernel: `buildKernel` (a fake
 * kernel from a generated state), `applyManagerCall`, the faulty port that arms a fault
 * plan, and what it knows of restore lines (`restoreLineOp`, `faultMessage`). The
 * fast-check arbitraries that generate their inputs are the `./arbitraries` subpath; the
 * port contract suite is `./vitest`. The fake kernel, its port and the invariant checks
 * are `@ipsets/fake-kernel` and `@ipsets/fake-kernel/invariants`.
 *
 * @packageDocumentation
 */
export { applyManagerCall } from './arbitraries/manager-calls.js';
export type { ManagerCall } from './arbitraries/manager-calls.js';
export { buildKernel } from './arbitraries/kernel-states.js';
export type { InitialKernel } from './arbitraries/kernel-states.js';
export type { FaultPlan, FaultTarget, PlannedFault } from './arbitraries/fault-plans.js';
export { faultMessage, restoreLineOp } from './arbitraries/restore-lines.js';
export { faultyPort } from './arbitraries/faulty-port.js';
export type { ArmedFault, FaultyPort } from './arbitraries/faulty-port.js';
