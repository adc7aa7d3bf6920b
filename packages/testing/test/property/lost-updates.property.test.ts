/**
 * No lost updates (issue #4): when ipset catches an error in userspace
 * inside a run of add lines, the lines of that run before the error were never sent to
 * the kernel (docs/ipset-semantics.md §0.1). Core's session resends them; the reference
 * resumed after the failing line and lost them without a trace.
 *
 * The property: after a reconcile with userspace errors planted inside add batches,
 * every desired member the kernel lacks is accounted for by a line the report says it
 * skipped (or by its set being reported failed as a whole). Run with a seed-style
 * "resume after N" session, the same property must find a counterexample.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IPSetManager, applyIPSets, canonicalMember, classifyIpsetError, familyOfSpec, kernelTypeOfSpec, reconcileIPSets } from '@ipsets/core';
import type { ApplyReport, CommandResult, DesiredState, IpsetPort } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { canonicalSave } from '@ipsets/fake-kernel/invariants';
import { applyManagerCall, buildKernel, faultyPort, restoreLineOp } from '@ipsets/testing';
import { desiredStateArb, faultPlanArb, kernelNearArb, managerCallsArb, managerConfigArb, managerDesiredStateArb } from '@ipsets/testing/arbitraries';
import type { FaultPlan, FaultyPort, InitialKernel } from '@ipsets/testing';
import { excerpt, fcOptions } from '../helpers/fc-options.js';

const FILE = 'lost-updates';

/** Desired states with initial kernels close to them and userspace errors inside add batches. */
const scenario: fc.Arbitrary<Scenario> = fc
  .oneof(
    desiredStateArb(),
    // Runs of a few hundred adds: ipset sends the first 167 in a full 4096-byte batch.
    desiredStateArb({ bulk: 400, maxSets: 3 }),
    managerDesiredStateArb({ maxCalls: 12 }).map((m) => m.desired),
  )
  .chain((desired) =>
    fc.record({
      desired: fc.constant(desired),
      initial: kernelNearArb(desired),
      faults: faultPlanArb({ kinds: ['fail-line'], targets: ['in-add-batch'], sides: ['userspace'], calls: 3, maxFaults: 3 }),
    }),
  );

/**
 * Desired members the kernel lacks that no skipped line of the report explains.
 * Sets reported failed because they are missing or of another type are explained as a whole.
 */
function lostMembers(desired: DesiredState, saveText: string, report: ApplyReport): string[] {
  const kernel = new Map(canonicalSave(saveText).map((s) => [s.name, s]));
  const skipped = new Set(report.skipped.map((s) => s.text));
  // A type conflict the planner could not fix (the set is referenced) is reported as a whole.
  const conflicts = new Set(report.notes.filter((n) => n.kind === 'type-conflict-referenced').map((n) => n.set));
  const lost: string[] = [];
  for (const set of desired.sets) {
    if (conflicts.has(set.name) && report.failedSets.includes(set.name)) continue;
    // An abandoned rebuild (temporary set and swap) leaves the live set as it was and is reported as a whole.
    const rebuildAbandoned = report.skipped.some((k) => k.set === set.name && report.plan.lines[k.index]!.subject === set.name);
    if (rebuildAbandoned && report.failedSets.includes(set.name)) continue;
    const type = kernelTypeOfSpec(set.spec);
    const saved = kernel.get(set.name);
    if (saved === undefined || saved.type !== type) {
      if (!report.failedSets.includes(set.name)) lost.push(`${set.name}: the whole set (${saved === undefined ? 'missing' : saved.type})`);
      continue;
    }
    const have = new Set(saved.members);
    for (const raw of set.members) {
      const m = type === 'list:set' ? raw : canonicalMember(type, raw, familyOfSpec(set.spec));
      if (have.has(m)) continue;
      if (skipped.has(`-A ${set.name} ${m}`)) continue;
      lost.push(`${set.name}: ${m}`);
    }
  }
  return lost;
}

interface Scenario {
  desired: DesiredState;
  initial: InitialKernel;
  faults: FaultPlan;
}

async function runScenario(
  { desired, initial, faults }: Scenario,
  wrap: (port: IpsetPort) => IpsetPort = (p) => p,
): Promise<void> {
  const kernel = buildKernel(initial);
  const port: FaultyPort = faultyPort(kernel, faults);
  const report = await reconcileIPSets(desired, wrap(port));
  const lost = lostMembers(desired, kernel.saveText(), report);
  if (lost.length > 0) {
    throw new Error(
      [
        `lost updates: ${lost.length} desired member(s) are missing and no skipped line explains them:`,
        ...lost.map((l) => `  - ${l}`),
        'faults armed:',
        ...port.armed.map((f) => `  call ${f.call}: line ${f.line} ${JSON.stringify(f.text)} -> ${f.side}: ${f.message}`),
        'restores:',
        ...port.restores.map((t, i) => `  #${i}: exit ${port.results[i]?.exitCode} ${JSON.stringify(port.results[i]?.stderr)}\n${excerpt(t)}`),
        `skipped: ${JSON.stringify(report.skipped.map((s) => s.text))}`,
      ].join('\n'),
    );
  }
}

/**
 * A port that makes core's session behave like the reference's: a userspace error at line N
 * is reported as a kernel error at line N (same line, a kernel-side message), so the
 * session believes every line before N reached the kernel and resumes after N — which
 * is exactly what the reference's `ipset restore` loop does with every error.
 */
function seedStyle(port: IpsetPort): IpsetPort {
  const rewrite = (text: string, result: CommandResult): CommandResult => {
    const n = /Error in line (\d+):/.exec(result.stderr)?.[1];
    if (n === undefined) return result;
    const op = restoreLineOp(text.split('\n')[Number(n) - 1] ?? '').op;
    const c = classifyIpsetError(result.stderr, { exitCode: result.exitCode, ...(op === 'other' ? {} : { op }) });
    if (c.side !== 'userspace') return result;
    return { ...result, stderr: `ipset v7.17: Error in line ${n}: Kernel error received: Cannot allocate memory\n` };
  };
  return {
    restore: async (text, options) => rewrite(text, await port.restore(text, options)),
    save: (options) => port.save(options),
    listNames: (options) => port.listNames(options),
    listHeaders: (options) => port.listHeaders(options),
  };
}

/** Manager call sequences applied once to an empty kernel, with userspace errors inside add batches. */
const applyScenario = fc.record({
  config: managerConfigArb(),
  calls: managerCallsArb({ maxLength: 25 }),
  faults: faultPlanArb({ kinds: ['fail-line'], targets: ['in-add-batch'], sides: ['userspace'], calls: 3, maxFaults: 3 }),
});

describe('no lost updates under userspace errors inside add batches', () => {
  it("applyIPSets (manager call sequences): every missing desired member is a line the report skipped", async () => {
    await fc.assert(
      fc.asyncProperty(applyScenario, async ({ config, calls, faults }) => {
        const manager = new IPSetManager(config);
        for (const call of calls) applyManagerCall(manager, call);
        const desired = manager.desiredState();
        const kernel = new FakeKernel();
        const port = faultyPort(kernel, faults);
        const report = await applyIPSets(manager, port);
        const lost = lostMembers(desired, kernel.saveText(), report);
        expect(lost, `faults: ${JSON.stringify(port.armed)}`).toEqual([]);
      }),
      fcOptions(FILE, 500),
    );
  });

  it("core's session: every missing desired member is a line the report skipped", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, (s) => runScenario(s)),
      fcOptions(FILE, 1000),
    );
  });

  it('a seed-style session that resumes after line N loses the batch before N (counterexample expected: why the design differs)', async () => {
    // The reference treats "Error in line N" alike whoever caught it and restarts after N.
    // ipset never sent the add lines pending before a userspace error, so those members
    // are lost and nothing reports them. This test pins that the property above is not
    // vacuous: with the reference's resume rule it fails.
    let failure: unknown;
    try {
      await fc.assert(
        fc.asyncProperty(scenario, (s) => runScenario(s, seedStyle)),
        fcOptions(FILE, 300),
      );
    } catch (error) {
      failure = error;
    }
    expect(failure, 'the reference-style session was expected to lose an update').toBeInstanceOf(Error);
    // fast-check keeps the property's own error as the cause.
    const cause = (failure as Error & { cause?: unknown }).cause;
    const message = String(cause instanceof Error ? cause.message : failure);
    expect(message).toMatch(/lost updates: \d+ desired member\(s\) are missing/);
    const counterexample = (failure as Error).message.split('\n').find((l) => l.startsWith('Counterexample')) ?? '';
    console.log(`[${FILE}] expected counterexample of the reference-style session (shrunk):\n${counterexample.slice(0, 600)}${counterexample.length > 600 ? ' …' : ''}\n${message}`);
  });
});
