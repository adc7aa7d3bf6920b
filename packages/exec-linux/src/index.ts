/**
 * @ipsets/exec-linux — the Linux port for @ipsets/core and a node agent.
 *
 * @packageDocumentation
 */

// --- test namespaces and the kernel-test gate ---
export { createTestNamespace, kernelTestGate, kernelTestSupport, KERNEL_TESTS_ENV } from './netns.js';
export type { KernelTestGate, KernelTestGateOptions, KernelTestSupport, TestNamespace } from './netns.js';

// --- the Linux port ---
export { createLinuxPort } from './linux-port.js';
export type { LinuxPortOptions } from './linux-port.js';
