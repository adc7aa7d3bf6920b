/**
 * A manager's desired state prepared round after round (`new PreparedDesiredState(
 * manager.desiredState(), previous)`: only the sets that changed since the previous
 * round are checked again) is, after any history of manager calls and applies, the
 * state a fresh manager replaying the same calls prepares from scratch, and plans the
 * same lines against the same kernel. A set that changed but kept its check (a change
 * the manager did not stamp) would show up here as a stale set or a wrong plan.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IPSetManager, PreparedDesiredState, applyIPSets, planReconcile, savedSet } from '@ipsets/core';
import type { CommandResult, DesiredState, IpsetPort, SaveSnapshot, SetHeader } from '@ipsets/core';
import { applyManagerCall } from '@ipsets/testing';
import { managerCallsArb, managerConfigArb } from '@ipsets/testing/arbitraries';
import { fcOptions } from '../helpers/fc-options.js';

const OK: CommandResult = { exitCode: 0, stdout: '', stderr: '' };
/** A kernel that accepts every restore at once (an apply commits the manager's delta). */
const accepting: IpsetPort = { restore: async () => OK, save: async () => OK, listNames: async () => OK, listHeaders: async () => OK };

/** The sets of `state` as a kernel would save them (hash sets as nethash or ip,port; lists as list:set), for planning against. */
function kernelOf(state: DesiredState): { snapshot: SaveSnapshot; headers: SetHeader[] } {
  const sets = state.sets.map((s) => {
    const type = s.spec === 'setlist' ? 'list:set' : s.spec === 'hash:ip,port' ? 'hash:ip,port' : 'hash:net';
    const options = type === 'list:set' ? 'size 8' : `family inet hashsize 1024 maxelem ${s.spec === 'nethash maxelem 4294967295' ? 4294967295 : 65536} bucketsize 12 initval 0x1`;
    return savedSet(s.name, type, options, [...s.members]);
  });
  return { snapshot: { sets, problems: [] }, headers: sets.map((s) => ({ name: s.name, type: s.type, header: s.options, references: 0, entries: s.members.length })) };
}

describe('a manager state prepared round after round', () => {
  it('is the state a fresh manager prepares from the same calls, and plans the same lines', async () => {
    await fc.assert(
      fc.asyncProperty(managerConfigArb(), managerCallsArb({ maxLength: 25 }), fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }), async (config, calls, applies) => {
        const m = new IPSetManager(config);
        let prepared: PreparedDesiredState | undefined;
        let kernel = kernelOf({ owner: m.owner, sets: [] });
        for (let i = 0; i < calls.length; i++) {
          applyManagerCall(m, calls[i]!);
          if (applies[i]) await applyIPSets(m, accepting);
          prepared = new PreparedDesiredState(m.desiredState(), prepared);
          const fresh = new IPSetManager(config);
          for (const call of calls.slice(0, i + 1)) applyManagerCall(fresh, call);
          const expected = new PreparedDesiredState(fresh.desiredState());
          expect(prepared.sets, `after call ${i}: ${JSON.stringify(calls[i])}`).toEqual(expected.sets);
          const got = planReconcile(prepared, kernel.snapshot, kernel.headers);
          const want = planReconcile(expected, kernel.snapshot, kernel.headers);
          expect(got.lines).toEqual(want.lines);
          // Every other round the kernel catches up, so later plans diff against real contents.
          if (i % 2 === 1) kernel = kernelOf(expected);
        }
      }),
      fcOptions('prepared-state', 200),
    );
  });
});
