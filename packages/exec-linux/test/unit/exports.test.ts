/**
 * The public surface of @ipsets/exec-linux, pinned: every entry point's runtime export names,
 * sorted. An export added or removed by accident fails here; a deliberate one updates
 * the list (`npx vitest run test/unit/exports.test.ts -u`) and docs/architecture.md's table.
 */
import { describe, expect, it } from 'vitest';
import * as entry0 from '../../src/index.js';
import * as entry1 from '../../src/testing.js';

describe('@ipsets/exec-linux public exports', () => {
  it('@ipsets/exec-linux exports exactly these names', () => {
    expect(Object.keys(entry0).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_LOCK_DIR",
        "DEFAULT_LOCK_WAIT_MS",
        "DEFAULT_MAX_CONSECUTIVE_FAILURES",
        "DEFAULT_MAX_OUTPUT_BYTES",
        "DEFAULT_METRIC_PREFIX",
        "DEFAULT_READ_TIMEOUT_MS",
        "DEFAULT_RESTORE_DIR",
        "DEFAULT_RESTORE_TIMEOUT_MS",
        "DEFAULT_STUCK_AFTER_MS",
        "acquireKernelLock",
        "createAgentMetrics",
        "createIpsetAgent",
        "createLinuxPort",
        "defaultLockPath",
        "readIpsetVersion",
        "readKernelLockHolder",
        "withKernelLock",
      ]
    `);
  });
  it('@ipsets/exec-linux/testing exports exactly these names', () => {
    expect(Object.keys(entry1).sort()).toMatchInlineSnapshot(`
      [
        "KERNEL_TESTS_ENV",
        "createTestNamespace",
        "kernelTestGate",
        "kernelTestSupport",
      ]
    `);
  });
});
