/**
 * @ipsets/exec-linux/testing — helpers for tests that touch the real kernel: throwaway
 * network namespaces and the gate that decides whether such tests run, skip (with a
 * one-line reason) or fail (`IPSETS_KERNEL_TESTS=require`). They need root, so they
 * live behind this subpath rather than in the package's main entry.
 *
 * @packageDocumentation
 */
export { createTestNamespace, kernelTestGate, kernelTestSupport, KERNEL_TESTS_ENV } from './netns.js';
export type { KernelTestGate, KernelTestGateOptions, KernelTestSupport, TestNamespace } from './netns.js';
