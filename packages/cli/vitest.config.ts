import { defineProject } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

const shared = sharedTestConfig(import.meta.url);

// The end-to-end tests run the built binary: build it (and the packages it imports) first when stale.
export default defineProject({
  ...shared,
  test: { ...shared.test, globalSetup: [shared.test?.globalSetup ?? []].flat().concat('./test/helpers/build.ts') },
});
