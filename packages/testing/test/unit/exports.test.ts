/**
 * The public surface of @ipsets/testing, pinned: every entry point's runtime export names,
 * sorted. An export added or removed by accident fails here; a deliberate one updates
 * the list (`npx vitest run test/unit/exports.test.ts -u`) and docs/architecture.md's table.
 */
import { describe, expect, it } from 'vitest';
import * as entry0 from '../../src/index.js';
import * as entry1 from '../../src/vitest.js';
import * as entry2 from '../../src/arbitraries.js';

describe('@ipsets/testing public exports', () => {
  it('@ipsets/testing exports exactly these names', () => {
    expect(Object.keys(entry0).sort()).toMatchInlineSnapshot(`
      [
        "applyManagerCall",
        "buildKernel",
        "faultMessage",
        "faultyPort",
        "restoreLineOp",
      ]
    `);
  });
  it('@ipsets/testing/arbitraries exports exactly these names', () => {
    expect(Object.keys(entry2).sort()).toMatchInlineSnapshot(`
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
        "desiredStateArb",
        "faultPlanArb",
        "kernelNearArb",
        "kernelStateArb",
        "managerCallArb",
        "managerCallsArb",
        "managerConfigArb",
        "managerDesiredStateArb",
        "ownedNames",
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
