/**
 * @ipsets/exec-linux — the Linux port for @ipsets/core and a node agent.
 *
 * @packageDocumentation
 */

// Test namespaces and the kernel-test gate are in `@ipsets/exec-linux/testing`.

// --- the Linux port ---
export { createLinuxPort, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_RESTORE_DIR } from './linux-port.js';
export {
  DEFAULT_LOCK_WAIT_MS,
  DEFAULT_MAX_CONSECUTIVE_FAILURES,
  DEFAULT_READ_TIMEOUT_MS,
  DEFAULT_RESTORE_TIMEOUT_MS,
  DEFAULT_STUCK_AFTER_MS,
} from './defaults.js';
export type { LinuxPortOptionName, LinuxPortOptions } from './linux-port.js';
export { readIpsetVersion } from './ipset-version.js';
export type { IpsetVersion, ReadIpsetVersionOptions } from './ipset-version.js';

// --- one writer per kernel: the kernel lock ---
export {
  acquireKernelLock,
  defaultLockPath,
  DEFAULT_LOCK_DIR,
  readKernelLockHolder,
  withKernelLock,
} from './kernel-lock.js';
export type { KernelLock, KernelLockHolder, KernelLockOptions } from './kernel-lock.js';

// --- the agent and its metrics ---
export { createIpsetAgent } from './agent.js';
export type {
  AgentCallOptions,
  AgentClock,
  AgentDriverOptions,
  AgentDrivers,
  AgentHealth,
  AgentLockOptions,
  AgentLogger,
  AgentManager,
  AgentOperationSummary,
  AgentStopOptions,
  AgentStopResult,
  IpsetAgent,
  IpsetAgentOptions,
} from './agent/api.js';
export { createAgentMetrics, DEFAULT_METRIC_PREFIX } from './agent/metrics.js';
export type { AgentMetrics, AgentOperation, AgentOutcome } from './agent/metrics.js';
