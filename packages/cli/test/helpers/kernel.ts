/**
 * The real-kernel gate of @ipsets/exec-linux's tests, shared: `describeKernel` runs a
 * suite when `kernelTestGate` says so, skips it with a one-line reason otherwise, and
 * FAILS with that reason when `IPSETS_KERNEL_TESTS=require`.
 */
export { describeKernel, kernelGate } from '../../../exec-linux/test/helpers/kernel.js';
