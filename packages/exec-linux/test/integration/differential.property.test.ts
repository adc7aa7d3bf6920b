/**
 * Fidelity of the fake kernel (@ipsets/testing) against the real one: random restore
 * scripts (valid and invalid lines, hash:ip / hash:net / hash:ip,port / list:set,
 * errors caught in userspace and in the kernel, `-exist`, add runs that cross the
 * 4096-byte batch boundary, swap/rename, lines at the 1,023-byte fgets limit and a last
 * line without newline, inet6 ranges and tests, sets made by an earlier setup run and
 * `create … -exist` of the other family over them) run on a fresh FakeKernel and on a
 * cleared real network namespace; exit code, first stderr line and the normalised final
 * `ipset save` must be equal. IPSETS_DIFF_SCRIPTS raises the number of scripts (default 300);
 * `pnpm soak` runs as many as asked outside vitest.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeKernel } from '@ipsets/fake-kernel';
import { restoreScriptArb } from '@ipsets/testing/arbitraries';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeDifference, runFake, runRealInShell } from '../helpers/differential.js';
import { describeKernel } from '../helpers/kernel.js';
import { openNamespaceShell } from '../helpers/netns-shell.js';
import type { NamespaceShell } from '../helpers/netns-shell.js';

const SCRIPTS = Number(process.env['IPSETS_DIFF_SCRIPTS']) || 300;

describeKernel('fake kernel versus real kernel (differential)', () => {
  let ns: TestNamespace;
  let shell: NamespaceShell;
  beforeAll(async () => {
    ns = await createTestNamespace('diff');
    shell = await openNamespaceShell(ns.name);
  });
  afterAll(async () => {
    await shell?.close();
    await ns?.dispose();
  });

  it(`${SCRIPTS} random restore scripts give the same exit code, first error and final save`, async () => {
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(restoreScriptArb(), async (script) => {
        ran += 1;
        const real = await runRealInShell(shell, script);
        const fake = runFake(() => new FakeKernel(), script);
        const difference = describeDifference(script, real, fake);
        if (difference !== undefined) throw new Error(difference);
      }),
      { numRuns: SCRIPTS, endOnFailure: false },
    );
    expect(ran).toBeGreaterThanOrEqual(SCRIPTS);
  }, 900_000);
});
