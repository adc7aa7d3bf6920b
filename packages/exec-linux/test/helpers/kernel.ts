/**
 * `describeKernel` for this package's real-kernel suites: the shared gate of
 * `@ipsets/testing/vitest` over `kernelTestGate` (runs them, skips them with the
 * reason, or fails them in CI or with `IPSETS_KERNEL_TESTS=require`).
 */
import { kernelTestGate } from '../../src/netns.js';
import { createDescribeKernel } from '@ipsets/testing/vitest';

/** `describe` for suites that need root, ipset and network namespaces. */
export const describeKernel = await createDescribeKernel(kernelTestGate);
