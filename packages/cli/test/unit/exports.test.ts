/**
 * The public surface of @ipsets/cli, pinned: every entry point's runtime export names,
 * sorted. An export added or removed by accident fails here; a deliberate one updates
 * the list (`npx vitest run test/unit/exports.test.ts -u`) and docs/architecture.md's table.
 */
import { describe, expect, it } from 'vitest';
import * as entry0 from '../../src/index.js';

describe('@ipsets/cli public exports', () => {
  it('@ipsets/cli exports exactly these names', () => {
    expect(Object.keys(entry0).sort()).toMatchInlineSnapshot(`
      [
        "DesiredParts",
        "EXIT",
        "MAX_DECOMPRESSED_PART_BYTES",
        "cliVersion",
        "createProgram",
        "desiredStateOf",
        "loadDesiredParts",
        "parseDesiredText",
        "parseDurationText",
        "processIo",
        "runCli",
      ]
    `);
  });
});
