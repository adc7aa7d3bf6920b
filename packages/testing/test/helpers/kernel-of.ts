/** A fake kernel that already holds a desired state, for tests of the tools that compare the two. */
import { expect } from 'vitest';
import type { DesiredState } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { SPEC_TYPE } from '../../src/arbitraries/kernel-states.js';

/** A kernel that holds exactly `desired` (hash sets first, then lists), plus `extra` lines. */
export function kernelOf(desired: DesiredState, extra = ''): FakeKernel {
  const lists = desired.sets.filter((s) => s.spec === 'setlist');
  const hashes = desired.sets.filter((s) => s.spec !== 'setlist');
  let script = '';
  for (const s of [...hashes, ...lists]) {
    script += `create ${s.name} ${SPEC_TYPE[s.spec]}\n`;
    for (const m of s.members) script += `add ${s.name} ${m}\n`;
  }
  const kernel = new FakeKernel();
  const r = kernel.restore(script + extra);
  expect(r.stderr).toBe('');
  return kernel;
}
