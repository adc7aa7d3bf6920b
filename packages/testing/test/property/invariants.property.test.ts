/**
 * The invariant checks of @ipsets/fake-kernel, checked over generated desired states:
 * they pass on a converged kernel and fail, naming the set, on one that is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kernelTypeOfSpec } from '@ipsets/core';
import type { DesiredState } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { assertConverged, assertForeignUntouched, assertReportTruthful } from '@ipsets/fake-kernel/invariants';
import { desiredStateArb } from '@ipsets/testing/arbitraries';
import { kernelOf } from '../helpers/kernel-of.js';
import { fcOptions } from '../helpers/fc-options.js';

const FILE = 'invariants';

describe('invariants', () => {
  const desiredWithMembers = desiredStateArb().filter((d) => d.sets.some((s) => s.spec !== 'setlist' && s.members.length > 0));

  it('assertConverged names the set and the member when one is missing or extra', () => {
    fc.assert(
      fc.property(desiredWithMembers, fc.nat(), (desired, pick) => {
        const hashes = desired.sets.filter((s) => s.spec !== 'setlist' && s.members.length > 0);
        const target = hashes[pick % hashes.length]!;
        const member = target.members[pick % target.members.length]!;
        const missing: DesiredState = { ...desired, sets: desired.sets.map((s) => (s === target ? { ...s, members: s.members.filter((m) => m !== member) } : s)) };
        // The kernel holds the member the (edited) desired state no longer wants: extra.
        expect(() => assertConverged(kernelOf(desired), missing)).toThrow(new RegExp(`${target.name}[^\\n]*members differ[\\s\\S]*\\+ ${member.replace(/[./]/g, '\\$&')}`));
        // The kernel lacks a member the desired state wants: missing.
        expect(() => assertConverged(kernelOf(missing), desired)).toThrow(new RegExp(`- ${member.replace(/[./]/g, '\\$&')}`));
        // Exempting the set through a report silences exactly that set.
        assertConverged(kernelOf(missing), desired, { report: { failedSets: [target.name], inUseSets: [] } });
      }),
      fcOptions(FILE, 100),
    );
  });

  it('assertConverged catches a wrong type, a missing set and an undesired owned set; foreign sets are not its business', () => {
    fc.assert(
      fc.property(desiredStateArb().filter((d) => d.sets.length > 0), (desired) => {
        // A set no desired list holds, so that the state without it is still consistent.
        const held = new Set(desired.sets.flatMap((s) => (s.spec === 'setlist' ? s.members : [])));
        const first = desired.sets.find((s) => !held.has(s.name));
        const rest = desired.sets.filter((s) => s !== first);
        const kernel = kernelOf(desired, 'create foreign-x hash:ip\nadd foreign-x 10.9.9.9\n');
        assertConverged(kernel, desired);
        expect(() => assertConverged(kernel, { ...desired, sets: rest })).toThrow(/owned set exists/);
        expect(() => assertConverged(kernelOf({ ...desired, sets: rest }), desired)).toThrow(/missing in the kernel/);
        const other = kernelTypeOfSpec(first!.spec) === 'hash:ip,port' ? 'nethash' : 'hash:ip,port';
        expect(kernelTypeOfSpec(other)).not.toBe(kernelTypeOfSpec(first!.spec));
        expect(() => assertConverged(kernel, { ...desired, sets: [{ ...first!, spec: other, members: [] }, ...rest] })).toThrow(/kernel type/);
      }),
      fcOptions(FILE, 100),
    );
  });

  it('assertForeignUntouched passes on identical foreign sets and fails on any changed byte, naming the set', () => {
    const base = 'create azure-npm-a hash:net\ncreate kube-a hash:net\nadd kube-a 10.0.0.1\ncreate kube-l list:set\nadd kube-l kube-a\n';
    const k1 = new FakeKernel();
    k1.restore(base);
    const k2 = new FakeKernel();
    k2.restore(`${base}add azure-npm-a 10.0.0.9\n`);
    assertForeignUntouched(k1, k2, 'azure-npm-');
    const k3 = new FakeKernel();
    k3.restore(`${base}add kube-a 10.0.0.2\n`);
    expect(() => assertForeignUntouched(k1, k3, 'azure-npm-')).toThrow(/foreign set "kube-a" changed/);
    const k4 = new FakeKernel();
    k4.restore(`${base}destroy kube-l\n`);
    expect(() => assertForeignUntouched(k1, k4, 'azure-npm-')).toThrow(/before \[kube-a, kube-l\], after \[kube-a\]/);
  });

  it('assertReportTruthful rejects a report that names a converged set as failed, or leaves an unconverged one out', () => {
    const desired: DesiredState = { owner: 'azure-npm-', sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1'] }] };
    const good = kernelOf(desired);
    const bad = kernelOf({ ...desired, sets: [{ name: 'azure-npm-a', spec: 'nethash', members: [] }] });
    assertReportTruthful({ converged: true, failedSets: [], inUseSets: [] }, good, desired);
    assertReportTruthful({ converged: false, failedSets: ['azure-npm-a'], inUseSets: [] }, bad, desired);
    expect(() => assertReportTruthful({ converged: false, failedSets: ['azure-npm-a'], inUseSets: [] }, good, desired)).toThrow(/reported failed, but it is in its desired state/);
    expect(() => assertReportTruthful({ converged: true, failedSets: [], inUseSets: [] }, bad, desired)).toThrow(/not reported but not converged/);
    expect(() => assertReportTruthful({ converged: true, failedSets: ['azure-npm-a'], inUseSets: [] }, bad, desired)).toThrow(/converged is true/);
  });
});
