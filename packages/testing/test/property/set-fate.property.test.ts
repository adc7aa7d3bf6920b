/**
 * One fate per set on every path (issue 23): the four planners — the delta path
 * (`planApply`), apply with a save (`planApplyWithSave`), reconcile (`planReconcile`)
 * and reset — over random desired states and random kernel states.
 *
 * - No plan contains `-F` of a set that a list or an iptables rule references (an
 *   emptied set under a live rule drops traffic), and no plan flushes a set it then
 *   refills (rules would see it empty, then partial: a rebuild goes through a
 *   temporary set and swap), nor flushes a set it then destroys (a destroy refused
 *   because a reference appeared leaves it empty).
 * - For the same desired state and the same known kernel (a kernel that holds exactly
 *   what the manager applied, so the dirty cache, the save and the reconcile read all
 *   know the same thing), every planner gives each dirty set the same fate.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IPSetManager,
  applyIPSets,
  applyIPSetsWithSave,
  parseListHeaders,
  parseListNames,
  parseSave,
  planApply,
  planApplyWithSave,
  planReconcile,
  renderRestore,
  resetIPSets,
} from '@ipsets/core';
import type { ApplyReport, CommandResult, IpsetPort, RestorePlan } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import { applyManagerCall, buildKernel, faultyPort } from '@ipsets/testing';
import { faultPlanArb, kernelNearArb, kernelStateArb, managerCallsArb, managerConfigArb } from '@ipsets/testing/arbitraries';
import { fcOptions } from '../helpers/fc-options.js';

const FILE = 'set-fate';

type Fate = 'create' | 'keep' | 'patch' | 'rebuild' | 'recreate' | 'destroy' | 'in-use' | 'conflict';

/** The fate a plan gives kernel set `name`, read from its lines and notes (`inKernel`: the set exists before the plan). */
function fateIn(plan: RestorePlan, name: string, inKernel: boolean): Fate {
  const note = (plan.notes ?? []).find((n) => n.set === name && (n.kind === 'referenced-not-destroyed' || n.kind === 'type-conflict-referenced'));
  if (note !== undefined) return note.kind === 'referenced-not-destroyed' ? 'in-use' : 'conflict';
  let create = false;
  let destroy = false;
  let members = false;
  for (const line of plan.lines) {
    if (line.op === 'swap' && line.to === name) return 'rebuild';
    if (line.set !== name || line.subject !== undefined) continue;
    if (line.op === 'create') create = true;
    else if (line.op === 'destroy') destroy = true;
    else if (line.op === 'add' || line.op === 'del' || line.op === 'flush') members = true;
  }
  if (destroy) return create ? 'recreate' : 'destroy';
  if (!inKernel) return create ? 'create' : 'keep';
  return members ? 'patch' : 'keep';
}

/** Violations of the flush rules in a restore text (rendered lines), given the kernel's references before it. */
function flushProblems(text: string, references: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  const lines = text.split('\n').filter((l) => l !== '');
  lines.forEach((line, i) => {
    const [flag, set = ''] = line.split(' ');
    if (flag !== '-F' && flag !== 'flush') return;
    if ((references.get(set) ?? 0) > 0) problems.push(`line ${i + 1} ${JSON.stringify(line)} flushes ${set}, which ${references.get(set)} reference(s) hold`);
    const refill = lines.findIndex((l, k) => k > i && /^(-A|add) /.test(l) && l.split(' ')[1] === set);
    if (refill >= 0) problems.push(`line ${i + 1} ${JSON.stringify(line)} flushes ${set}, which line ${refill + 1} ${JSON.stringify(lines[refill])} refills`);
    const destroy = lines.findIndex((l, k) => k > i && /^(-X|destroy) /.test(l) && l.split(' ')[1] === set);
    if (destroy >= 0) problems.push(`line ${i + 1} ${JSON.stringify(line)} flushes ${set}, which line ${destroy + 1} destroys (refused, it would stay empty)`);
  });
  return problems;
}

/** A port that records every restore text it runs. */
function recording(port: IpsetPort): IpsetPort & { restores: string[] } {
  const restores: string[] = [];
  return Object.assign(Object.create(port) as IpsetPort, {
    restores,
    restore: (text: string, options?: Parameters<IpsetPort['restore']>[1]): Promise<CommandResult> => {
      restores.push(text);
      return port.restore(text, options);
    },
  });
}

function referencesOf(kernel: FakeKernel): Map<string, number> {
  const refs = new Map<string, number>();
  for (const h of parseListHeaders(kernel.listHeaders().stdout)) refs.set(h.name, h.references);
  return refs;
}

function clone(kernel: FakeKernel): FakeKernel {
  const copy = new FakeKernel();
  const r = copy.restore(kernel.saveText());
  if (r.exitCode !== 0) throw new Error(r.stderr);
  // References from outside (iptables) are not in a save; count them again.
  for (const [name, n] of referencesOf(kernel)) {
    const inLists = referencesOf(copy).get(name) ?? 0;
    for (let i = inLists; i < n; i++) copy.reference(name);
  }
  return copy;
}

const scenario = fc.record({
  config: managerConfigArb(),
  before: managerCallsArb({ maxLength: 12 }),
  after: managerCallsArb({ maxLength: 8 }),
  faults: faultPlanArb(),
  near: fc.boolean(),
});

describe('set fates over the four planners', () => {
  it('no plan flushes a set a list or a rule references, or flushes a set it then refills', async () => {
    await fc.assert(
      fc.asyncProperty(
        scenario.chain((s) => {
          const m = new IPSetManager(s.config);
          for (const c of s.before) applyManagerCall(m, c);
          return fc.record({ s: fc.constant(s), initial: s.near ? kernelNearArb(m.desiredState()) : kernelStateArb() });
        }),
        async ({ s, initial }) => {
          const kernel = buildKernel(initial);
          const manager = new IPSetManager(s.config);
          for (const c of s.before) applyManagerCall(manager, c);
          // A first apply under faults leaves sets fragile, unknown or in use.
          await applyIPSets(manager, faultyPort(kernel, s.faults), { countFailures: false });
          for (const c of s.after) applyManagerCall(manager, c);
          const refs = referencesOf(kernel);
          const save = parseSave(kernel.saveText());
          const headers = parseListHeaders(kernel.listHeaders().stdout);
          const names = new Set(parseListNames(kernel.listNames().stdout));
          const plans: Record<string, RestorePlan> = {
            planApply: planApply(manager, { kernelSets: names }),
            planApplyWithSave: planApplyWithSave(manager, save),
            planReconcile: planReconcile(manager.desiredState(), save, headers),
          };
          for (const [planner, plan] of Object.entries(plans)) {
            expect(flushProblems(renderRestore(plan), refs), planner).toEqual([]);
          }
          const port = recording(createFakePort(clone(kernel)));
          await resetIPSets(port, { owner: manager.owner });
          expect(flushProblems(port.restores.join(''), refs), 'reset').toEqual([]);
        },
      ),
      fcOptions(FILE, 300),
    );
  });

  it('gives every dirty set the same fate in planApply, planApplyWithSave and planReconcile when all three know the same kernel', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const kernel = new FakeKernel();
        const manager = new IPSetManager(s.config);
        for (const c of s.before) applyManagerCall(manager, c);
        // The kernel holds exactly what the manager applied: the dirty cache knows it as well as a save does.
        const first = planApply(manager);
        if (kernel.restore(renderRestore(first)).exitCode !== 0) return;
        manager.commit(convergedReport(first));
        for (const c of s.after) applyManagerCall(manager, c);
        const save = parseSave(kernel.saveText());
        const headers = parseListHeaders(kernel.listHeaders().stdout);
        const inKernel = new Set(parseListNames(kernel.listNames().stdout));
        const plans = {
          planApply: planApply(manager, { kernelSets: inKernel }),
          planApplyWithSave: planApplyWithSave(manager, save),
          planReconcile: planReconcile(manager.desiredState(), save, headers),
        };
        for (const d of manager.dirtySets()) {
          const name = d.kernelName;
          const fates = Object.fromEntries(Object.entries(plans).map(([p, plan]) => [p, fateIn(plan, name, inKernel.has(name))]));
          expect(new Set(Object.values(fates)).size, `${name}: ${JSON.stringify(fates)}`).toBe(1);
        }
      }),
      fcOptions(FILE, 300),
    );
  });

  it('gives every desired set the kernel holds unreferenced the same fate in planApplyWithSave and planReconcile (both read the same save)', () => {
    fc.assert(
      fc.property(
        fc.record({ config: managerConfigArb(), calls: managerCallsArb({ maxLength: 12 }) }).chain(({ config, calls }) => {
          const m = new IPSetManager(config);
          for (const c of calls) applyManagerCall(m, c);
          return fc.record({ config: fc.constant(config), calls: fc.constant(calls), initial: kernelNearArb(m.desiredState(), { ownedReferences: false }) });
        }),
        ({ config, calls, initial }) => {
          const kernel = buildKernel(initial);
          const manager = new IPSetManager(config);
          for (const c of calls) applyManagerCall(manager, c);
          const save = parseSave(kernel.saveText());
          const headers = parseListHeaders(kernel.listHeaders().stdout);
          const refs = referencesOf(kernel);
          const desired = manager.desiredState();
          const plans = { planApplyWithSave: planApplyWithSave(manager, save), planReconcile: planReconcile(desired, save, headers) };
          // References from outside the saved lists (iptables rules): only reconcile reads
          // them. A list's fate also hangs on its members': apply with a save releases a
          // member it recreates (-D, then -A once created) even when a rule makes the
          // kernel refuse that -X, where reconcile, seeing the rule, leaves the list alone.
          const held = new Map<string, number>();
          for (const s of save.sets) if (s.type === 'list:set') for (const m of new Set(s.members)) held.set(m, (held.get(m) ?? 0) + 1);
          const fromRules = (name: string): number => (refs.get(name) ?? 0) - (held.get(name) ?? 0);
          for (const d of manager.dirtySets()) {
            const name = d.kernelName;
            if (!refs.has(name) || refs.get(name)! > 0 || !desired.sets.some((s) => s.name === name)) continue;
            const savedMembers = save.sets.find((s) => s.name === name)?.members;
            if (savedMembers !== undefined && [...savedMembers].some((m) => fromRules(m) > 0)) continue;
            const fates = Object.fromEntries(Object.entries(plans).map(([p, plan]) => [p, fateIn(plan, name, true)]));
            expect(new Set(Object.values(fates)).size, `${name}: ${JSON.stringify(fates)}`).toBe(1);
          }
        },
      ),
      fcOptions(FILE, 300),
    );
  });
});

describe('regressions found by the set-fate properties', () => {
  // A list names the empty set (addEmptySetToLists); the kernel holds that set with family inet6.
  async function applyWithSaveToInet6ListMember(ruleReferencesMember: boolean) {
    const manager = new IPSetManager({ mode: 'on-need', addEmptySetToLists: true });
    manager.addReference({ name: 'team:a', type: 'keyValueLabelOfNamespace' }, 'prod/deny-all', 'netpol');
    const list = manager.desiredState().sets.find((s) => s.spec === 'setlist')!.name;
    const member = manager.desiredState().sets.find((s) => s.spec !== 'setlist')!.name;
    const kernel = new FakeKernel();
    expect(kernel.restore(`create ${member} hash:net family inet6\ncreate ${list} list:set\nadd ${list} ${member}\n`).exitCode).toBe(0);
    if (ruleReferencesMember) kernel.reference(member);
    const report = await applyIPSetsWithSave(manager, createFakePort(kernel));
    return { report, save: kernel.saveText(), list, member };
  }

  it('apply with a save recreates a list member of another family (was: its -X came first, the kernel refused it while the list held the set, and the set kept family inet6, failed at every apply)', async () => {
    const { report, save, list, member } = await applyWithSaveToInet6ListMember(false);
    expect(report.converged).toBe(true);
    expect(save).toContain(`create ${member} hash:net family inet `);
    expect(save).toContain(`add ${list} ${member}\n`);
  });

  it('apply with a save: when a rule also references the member, its -X is refused, and the list holds the member again', async () => {
    const { report, save, list, member } = await applyWithSaveToInet6ListMember(true);
    expect(report.converged).toBe(false);
    expect(save).toContain(`create ${member} hash:net family inet6 `);
    expect(save).toContain(`add ${list} ${member}\n`);
  });
});

/** The report of `plan` having been applied completely. */
function convergedReport(plan: RestorePlan): ApplyReport {
  return { converged: true, plan, attempts: [], linesTotal: plan.lines.length, linesApplied: plan.lines.length, skipped: [], failedSets: [], inUseSets: [], notes: [] };
}
