import { fileURLToPath } from 'node:url';
import type { UserWorkspaceConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Test configuration shared by every package. Workspace packages resolve to their
 * sources, so a package's tests never run against a stale build of another one.
 */
export function sharedTestConfig(packageUrl: string): UserWorkspaceConfig {
  const dir = fileURLToPath(new URL('.', packageUrl));
  return {
    resolve: {
      alias: [
        { find: /^@ipsets\/core$/, replacement: `${root}packages/core/src/index.ts` },
        { find: /^@ipsets\/fake-kernel$/, replacement: `${root}packages/fake-kernel/src/index.ts` },
        { find: /^@ipsets\/fake-kernel\/invariants$/, replacement: `${root}packages/fake-kernel/src/invariants.ts` },
        { find: /^@ipsets\/fake-kernel\/state-file$/, replacement: `${root}packages/fake-kernel/src/state-file.ts` },
        { find: /^@ipsets\/testing$/, replacement: `${root}packages/testing/src/index.ts` },
        { find: /^@ipsets\/testing\/arbitraries$/, replacement: `${root}packages/testing/src/arbitraries.ts` },
        { find: /^@ipsets\/testing\/vitest$/, replacement: `${root}packages/testing/src/vitest.ts` },
        { find: /^@ipsets\/exec-linux$/, replacement: `${root}packages/exec-linux/src/index.ts` },
        { find: /^@ipsets\/exec-linux\/defaults$/, replacement: `${root}packages/exec-linux/src/defaults.ts` },
        { find: /^@ipsets\/exec-linux\/testing$/, replacement: `${root}packages/exec-linux/src/testing.ts` },
      ],
    },
    test: {
      root: dir,
      include: ['test/**/*.test.ts'],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      // One fast-check seed per package run, printed once, replayable with FC_SEED.
      globalSetup: [`${root}vitest.fc-global.ts`],
      setupFiles: [`${root}vitest.fc-setup.ts`],
    },
  };
}
