import { defineProject } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

const shared = sharedTestConfig(import.meta.url);

// Packing, installing and building a production tree take minutes on a 2-core machine.
export default defineProject({
  ...shared,
  test: { ...shared.test, testTimeout: 600_000, hookTimeout: 600_000, fileParallelism: false },
});
