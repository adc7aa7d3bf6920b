/**
 * The public surface of @ipsets/fake-kernel, pinned: every entry point's runtime export
 * names, sorted. An export added or removed by accident fails here; a deliberate one
 * updates the list (`npx vitest run test/unit/exports.test.ts -u`) and
 * docs/architecture.md's table.
 */
import { describe, expect, it } from 'vitest';
import * as entry0 from '../../src/index.js';
import * as entry1 from '../../src/state-file.js';
import * as entry2 from '../../src/invariants.js';

describe('@ipsets/fake-kernel public exports', () => {
  it('@ipsets/fake-kernel exports exactly these names', () => {
    expect(Object.keys(entry0).sort()).toMatchInlineSnapshot(`
      [
        "FakeKernel",
        "createFakePort",
      ]
    `);
  });
  it('@ipsets/fake-kernel/invariants exports exactly these names', () => {
    expect(Object.keys(entry2).sort()).toMatchInlineSnapshot(`
      [
        "assertConverged",
        "assertForeignUntouched",
        "assertReportTruthful",
        "canonicalSave",
        "canonicalSaveText",
        "convergenceProblems",
        "normalizeCreateOptions",
        "saveTextOf",
        "uncertainSets",
      ]
    `);
  });
  it('@ipsets/fake-kernel/state-file exports exactly these names', () => {
    expect(Object.keys(entry1).sort()).toMatchInlineSnapshot(`
      [
        "readStateFile",
        "writeStateFile",
      ]
    `);
  });
});
