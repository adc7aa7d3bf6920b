/** A fake kernel that already holds a desired state, for tests of the tools that compare the two. */
import { expect } from 'vitest';
import type { DesiredState } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';

const CREATE: Record<string, string> = {
  nethash: 'hash:net',
  'nethash maxelem 4294967295': 'hash:net maxelem 4294967295',
  'hash:ip,port': 'hash:ip,port',
  setlist: 'list:set',
  'nethash family inet6': 'hash:net family inet6',
  'hash:ip,port family inet6': 'hash:ip,port family inet6',
  'nethash family inet6 maxelem 4294967295': 'hash:net family inet6 maxelem 4294967295',
};

/** A kernel that holds exactly `desired` (hash sets first, then lists), plus `extra` lines. */
export function kernelOf(desired: DesiredState, extra = ''): FakeKernel {
  const lists = desired.sets.filter((s) => s.spec === 'setlist');
  const hashes = desired.sets.filter((s) => s.spec !== 'setlist');
  let script = '';
  for (const s of [...hashes, ...lists]) {
    script += `create ${s.name} ${CREATE[s.spec]}\n`;
    for (const m of s.members) script += `add ${s.name} ${m}\n`;
  }
  const kernel = new FakeKernel();
  const r = kernel.restore(script + extra);
  expect(r.stderr).toBe('');
  return kernel;
}
