/**
 * A fleet of simulated nodes built on `@ipsets/core` and `@ipsets/fake-kernel`
 * only: a seeded cluster trace, one manager and fake kernel per node, planted kernel
 * faults, simulated time, and a report that is the same for the same seed.
 *
 * @packageDocumentation
 */
export { generateTrace } from './trace.js';
export type { ClusterEvent, Label, NamedPort, Pod, Policy, TraceOptions } from './trace.js';
export { applyEvent } from './controller.js';
export { FAULT_KINDS, createFaultPort } from './faults.js';
export type { FaultKind, FaultPort } from './faults.js';
export { DEFAULT_COST_MODEL, simulate, simulateNodes, summarize } from './simulate.js';
export type { CostModel, LatencyStats, NodeReport, NodeRun, SimulationConfig, SimulationReport } from './simulate.js';
export { formatReport } from './report.js';
export { deriveSeed, mulberry32 } from './prng.js';
export type { Random } from './prng.js';
