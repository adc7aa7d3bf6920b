/**
 * The tools of the convergence properties, checked themselves: arbitraries produce
 * what they promise, fault plans arm exactly what they say, and the invariant checks
 * pass on a converged kernel and fail — naming the set — on one that is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IPSetManager, classifyIpsetError, kernelTypeOfSpec, parseSave, planReconcile } from '@ipsets/core';
import type { DesiredState } from '@ipsets/core';
import {
  FakeKernel,
  applyManagerCall,
  assertConverged,
  assertForeignUntouched,
  assertReportTruthful,
  buildKernel,
  desiredStateArb,
  faultPlanArb,
  faultyPort,
  kernelNearArb,
  kernelStateArb,
  managerCallsArb,
  managerConfigArb,
  managerDesiredStateArb,
  restoreLineOp,
  restoreScriptArb,
} from '@ipsets/testing';
import { fcOptions } from './fc-options.js';

const FILE = 'arbitraries';

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
function kernelOf(desired: DesiredState, extra = ''): FakeKernel {
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

describe('arbitraries', () => {
  it('initial kernel states build on an empty fake kernel (independent of and close to a desired state)', () => {
    fc.assert(
      fc.property(
        desiredStateArb().chain((d) => fc.tuple(kernelStateArb(), kernelNearArb(d), kernelStateArb({ ownedReferences: false }))),
        ([a, b, c]) => {
          buildKernel(a);
          buildKernel(b);
          const k = buildKernel(c);
          // Without owned references, nothing outside the owner holds an owned set.
          for (const name of k.setNames()) {
            if (!name.startsWith('azure-npm-')) continue;
            const holders = k.setNames().filter((l) => !l.startsWith('azure-npm-') && (k.members(l) ?? []).includes(name));
            expect(holders).toEqual([]);
          }
          for (const name of c.references) expect(name.startsWith('azure-npm-')).toBe(false);
        },
      ),
      fcOptions(FILE, 200),
    );
  });

  it('desired states are valid for planReconcile, owned, with canonical members and lists holding desired hash sets', () => {
    fc.assert(
      fc.property(fc.oneof(desiredStateArb(), desiredStateArb({ bulk: 50 }), managerDesiredStateArb().map((m) => m.desired)), (desired) => {
        planReconcile(desired, { sets: [], problems: [] }, []);
        const hashNames = new Set(desired.sets.filter((s) => s.spec !== 'setlist').map((s) => s.name));
        for (const s of desired.sets) {
          expect(s.name.startsWith(desired.owner)).toBe(true);
          if (s.spec === 'setlist') for (const m of s.members) expect(hashNames.has(m)).toBe(true);
        }
        // A kernel built from the desired state is converged, and parses cleanly.
        const kernel = kernelOf(desired);
        expect(parseSave(kernel.saveText()).problems).toEqual([]);
        assertConverged(kernel, desired);
      }),
      fcOptions(FILE, 200),
    );
  });

  it('a call the manager refuses changes neither its desired state nor its dirty sets', () => {
    fc.assert(
      fc.property(managerConfigArb(), managerCallsArb({ maxLength: 30 }), (config, calls) => {
        const manager = new IPSetManager(config);
        for (const call of calls) {
          const before = JSON.stringify([manager.desiredState(), manager.dirtySets()]);
          const error = applyManagerCall(manager, call);
          if (error !== undefined) expect(JSON.stringify([manager.desiredState(), manager.dirtySets()])).toBe(before);
        }
      }),
      fcOptions(FILE, 200),
    );
  });

  it('restore scripts run deterministically on the fake kernel (with and without -exist), every line ending in a newline', () => {
    fc.assert(
      fc.property(restoreScriptArb(), (script) => {
        expect(script.text.endsWith('\n')).toBe(true);
        const a = new FakeKernel();
        const b = new FakeKernel();
        const ra = a.restore(script.text, { exist: script.exist });
        expect(b.restore(script.text, { exist: script.exist })).toEqual(ra);
        expect(a.saveText()).toBe(b.saveText());
        // 139: ipset 7.17 segfaults on an icmp type of the other family after a pending add (modelled, measured).
        expect([0, 1, 2, 139]).toContain(ra.exitCode);
        expect(ra.stdout).toBe('');
      }),
      fcOptions(FILE, 200),
    );
  });

  it('restore scripts cover every set type, clean runs, errors of both sides, -exist, and cross the 4096-byte batch boundary', () => {
    const samples = fc.sample(restoreScriptArb(), { numRuns: 300 });
    const runs = samples.map((script) => {
      const kernel = new FakeKernel();
      const result = kernel.restore(script.text, { exist: script.exist });
      return { script, result, save: kernel.saveText() };
    });
    // Every set type of the generator reaches the kernel in some script.
    const saves = runs.map((r) => r.save).join('\n');
    for (const type of [/ hash:ip family inet /, / hash:ip family inet6 /, / hash:net family inet /, / hash:ip,port /, / list:set /, / counters comment /, / skbinfo/]) {
      expect(saves).toMatch(type);
    }
    // Clean runs to the end, errors caught in userspace and in the kernel, parameter problems.
    const sides = new Set<string>();
    for (const { script, result } of runs) {
      if (result.exitCode !== 1) continue;
      const line = Number(/Error in line (\d+):/.exec(result.stderr)?.[1]);
      const op = restoreLineOp(script.text.split('\n')[line - 1] ?? '').op;
      sides.add(classifyIpsetError(result.stderr, { exitCode: 1, op: op === 'other' ? undefined : op }).side);
    }
    expect([...sides].sort()).toEqual(['kernel', 'userspace']);
    expect(runs.some((r) => r.result.exitCode === 0 && r.save !== '')).toBe(true);
    expect(runs.some((r) => r.result.exitCode === 2)).toBe(true);
    // -exist per run and per line.
    expect(samples.some((s) => s.exist) && samples.some((s) => !s.exist)).toBe(true);
    expect(samples.some((s) => / -exist\n/.test(s.text))).toBe(true);
    // A run of more than 167 host adds or dels to one set fills more than one 4096-byte batch.
    const longest = (text: string): number => {
      let best = 0;
      let run = 0;
      let key = '';
      for (const line of text.split('\n')) {
        const [cmd, set] = line.split(' ');
        const k = cmd === 'add' || cmd === 'del' ? `${cmd} ${set}` : '';
        run = k !== '' && k === key ? run + 1 : k !== '' ? 1 : 0;
        key = k;
        best = Math.max(best, run);
      }
      return best;
    };
    expect(samples.some((s) => longest(s.text) > 167)).toBe(true);
  });
});

describe('faultyPort', () => {
  it('arms each planned fault on its own restore call only and records it', async () => {
    const kernel = new FakeKernel();
    const port = faultyPort(kernel, {
      faults: [
        { kind: 'fail-line', call: 0, target: 'in-add-batch', pick: 0, side: 'userspace', variant: 0 },
        { kind: 'busy', call: 0, times: 2 },
      ],
    });
    const text = 'create a hash:net\nadd a 10.0.0.1\nadd a 10.0.0.2\n';
    const first = await port.restore(text);
    expect(first).toEqual({ exitCode: 1, stdout: '', stderr: 'ipset v7.17: Error in line 3: The set with the given name does not exist\n' });
    expect(port.armed).toEqual([
      { call: 0, kind: 'fail-line', line: 3, text: 'add a 10.0.0.2', message: 'The set with the given name does not exist', side: 'userspace' },
      { call: 0, kind: 'busy', times: 2 },
    ]);
    // The unused busy faults were disarmed after call 0.
    expect(await port.restore(text)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(kernel.members('a')).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('plans only plausible messages: userspace faults on add lines are ones ipset catches in userspace', async () => {
    return fc.assert(
      fc.asyncProperty(faultPlanArb({ kinds: ['fail-line'], sides: ['userspace'], targets: ['add'] }), (plan) => {
        const kernel = new FakeKernel();
        kernel.restore('create a hash:net\n');
        const port = faultyPort(kernel, plan);
        return port.restore('add a 10.0.0.1\nadd a 10.0.0.2\n').then((r) => {
          const armed = port.armed.filter((f) => f.call === 0);
          if (armed.length === 0) return;
          expect(r.exitCode).toBe(1);
          // Userspace: the pending batch is lost, so nothing of the run reached the kernel.
          expect(kernel.members('a')).toEqual([]);
        });
      }),
      fcOptions(FILE, 50),
    );
  });
});

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
