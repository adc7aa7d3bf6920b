import { defineConfig } from 'vitest/config';

// One place to run every package's tests from the root (`pnpm vitest`); CI goes
// through turbo, which runs each package's own `test` script.
export default defineConfig({
  test: { projects: ['packages/*', 'examples/*/vitest.config.ts'] },
});
