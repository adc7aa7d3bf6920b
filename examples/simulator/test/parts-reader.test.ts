/**
 * The simulator's parts and gzip-parts modes charge what the CLI's reader of a folder
 * of parts does (`DesiredParts`, the code `ipsets agent DIR` runs): the simulated parts
 * are one desired state to it, equal to the whole file; after a policy change it parses
 * exactly the parts the simulator counts as changed, gzipped or not; and the gzip bound
 * the cost model checks is the reader's.
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DesiredParts, MAX_DECOMPRESSED_PART_BYTES, desiredStateOf, loadDesiredParts } from '@ipsets/cli';
import { mulberry32 } from '../src/prng.js';
import { ClusterState } from '../src/fleet/cluster-state.js';
import type { StateVersion } from '../src/fleet/cluster-state.js';
import { MAX_DECOMPRESSED_PART_BYTES as MODEL_BOUND } from '../src/fleet/cost-model.js';
import { useTempDir } from '../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-sim-parts-');

/** Every part of `v` written into the folder (a temporary dot-file renamed over each, as a producer does). */
async function publish(v: StateVersion, gzip: boolean): Promise<void> {
  for (const [i, p] of v.parts.entries()) {
    const name = `part-${i}.json${gzip ? '.gz' : ''}`;
    await writeFile(join(tempDir(), `.${name}.tmp`), gzip ? gzipSync(p.text, { level: 6 }) : p.text);
    await rename(join(tempDir(), `.${name}.tmp`), join(tempDir(), name));
  }
}

describe('the simulated parts, read by the CLI', () => {
  for (const gzip of [false, true]) {
    it(`${gzip ? 'gzip parts' : 'parts'}: one desired state equal to the whole file; a policy change re-parses exactly the parts the simulator counts`, async () => {
      const state = new ClusterState({ namespaces: 12, pods: 600, policies: 5, parts: 4 }, mulberry32(7));
      const v0 = state.snapshot();
      await publish(v0, gzip);
      expect(desiredStateOf(await loadDesiredParts(tempDir()))).toEqual(v0.desired);
      const reader = await DesiredParts.open(tempDir());
      state.policyChange();
      const v1 = state.snapshot();
      expect(v1.changedParts.length).toBeGreaterThan(0);
      expect(v1.changedParts.length).toBeLessThan(v1.parts.length);
      await publish(v1, gzip);
      const check = await reader.check();
      expect(check.problems).toEqual([]);
      expect(check.reread).toEqual(v1.changedParts.map((i) => join(tempDir(), `part-${i}.json${gzip ? '.gz' : ''}`)));
      expect(desiredStateOf(reader.file)).toEqual(v1.desired);
    });
  }

  it('the cost model refuses a gzip part at the reader\'s own bound', () => {
    expect(MODEL_BOUND).toBe(MAX_DECOMPRESSED_PART_BYTES);
  });
});
