/**
 * The public surface of @ipsets/testing, pinned: every entry point's runtime export names,
 * sorted. An export added or removed by accident fails here; a deliberate one updates
 * the list (`npx vitest run test/unit/exports.test.ts -u`) and docs/architecture.md's table.
 */
import { describe, expect, it } from 'vitest';
import * as entry0 from '../../src/index.js';
import * as entry1 from '../../src/vitest.js';

describe('@ipsets/testing public exports', () => {
  it('@ipsets/testing exports exactly these names', () => {
    expect(Object.keys(entry0).sort()).toMatchInlineSnapshot(`
      [
        "FOREIGN_NAMES",
        "LIST_SET_METAS",
        "NET6_MEMBERS",
        "NET_MEMBERS",
        "NET_SET_METAS",
        "OWNED_LABELS",
        "POD_KEYS",
        "PORT6_MEMBERS",
        "PORT_MEMBERS",
        "PORT_SET_METAS",
        "RAW_NET_MEMBERS",
        "RAW_PORT_MEMBERS",
        "REF_NAMES",
        "applyManagerCall",
        "buildKernel",
        "desiredStateArb",
        "faultMessage",
        "faultPlanArb",
        "faultyPort",
        "kernelNearArb",
        "kernelStateArb",
        "managerCallArb",
        "managerCallsArb",
        "managerConfigArb",
        "managerDesiredStateArb",
        "ownedNames",
        "restoreLineOp",
        "restoreScriptArb",
      ]
    `);
  });
  it('@ipsets/testing/vitest exports exactly these names', () => {
    expect(Object.keys(entry1).sort()).toMatchInlineSnapshot(`
      [
        "createDescribeKernel",
        "describePortContract",
      ]
    `);
  });
});
