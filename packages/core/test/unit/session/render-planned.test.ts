/**
 * A plan from the manager is checked at the render boundary like any other: every way
 * of changing it after planning (a member, a set, a create spec, spliced or copied
 * lines) is refused as a hand-built plan would be. Pins the boundary for any shortcut
 * a renderer takes for members the manager validated.
 */
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply } from '../../../src/plan/plan-apply.js';
import { renderLine, renderRestore } from '../../../src/session/render.js';
import type { PlanLine, RestorePlan } from '../../../src/types.js';

const managerPlan = (): RestorePlan => {
  const m = new IPSetManager();
  for (let i = 0; i < 50; i++) m.addToSets([{ name: 'app:web', type: 'keyValueLabelOfPod' }], `10.0.0.${i}`, `ns/pod-${i}`);
  m.addToSets([{ name: 'app:web', type: 'keyValueLabelOfPod' }], '10.1.0.0/16 nomatch', 'ns/cidr');
  m.addToSets([{ name: 'app:v6', type: 'keyValueLabelOfPod' }], 'fe80::1', 'ns/pod-v6');
  return planApply(m);
};
const refusal = (plan: RestorePlan): string => {
  try {
    renderRestore(plan);
  } catch (e) {
    if (isIpsetsError(e)) return e.code;
    throw e;
  }
  return 'rendered';
};
const addIndex = (plan: RestorePlan, member: string): number => plan.lines.findIndex((l) => l.op === 'add' && l.member === member);

describe('renderRestore on a plan from the manager', () => {
  it('renders exactly what line-by-line rendering gives', () => {
    const plan = managerPlan();
    expect(renderRestore(plan)).toBe(plan.lines.map((l) => `${renderLine(l)}\n`).join(''));
  });

  it('still refuses a member changed after planning (hostile -F smuggled into a planned line)', () => {
    const plan = managerPlan();
    (plan.lines[addIndex(plan, '10.0.0.7')] as { member: string }).member = '10.0.0.7\n-F';
    expect(refusal(plan)).toBe('INVALID_MEMBER');
  });

  it('still refuses a planned line moved to a set of another grammar', () => {
    const plan = managerPlan();
    const v6 = plan.lines.find((l) => l.op === 'create' && l.spec !== 'nethash')!;
    (plan.lines[addIndex(plan, '10.0.0.3')] as { set: string }).set = v6.set;
    expect(refusal(plan)).toBe('INVALID_MEMBER');
  });

  it("still refuses a planned member once its set's create line is changed to another grammar", () => {
    const plan = managerPlan();
    const create = plan.lines.find((l) => l.op === 'create' && l.spec === 'nethash') as { spec: string };
    create.spec = 'hash:ip,port';
    expect(refusal(plan)).toBe('INVALID_MEMBER');
  });

  it('still refuses lines spliced into or reordered in the plan', () => {
    const spliced = managerPlan();
    const at = addIndex(spliced, '10.0.0.9');
    (spliced.lines as PlanLine[]).splice(at, 0, { ...spliced.lines[at]!, member: '010.0.0.9' } as PlanLine);
    expect(refusal(spliced)).toBe('INVALID_MEMBER');
    const reordered = managerPlan();
    (reordered.lines as PlanLine[]).reverse();
    expect(renderRestore(reordered)).toBe(reordered.lines.map((l) => `${renderLine(l)}\n`).join(''));
  });

  it('a copy of the planned lines is checked as any hand-built plan', () => {
    const plan = managerPlan();
    const copy: RestorePlan = { lines: plan.lines.map((l) => ({ ...l })) };
    (copy.lines[addIndex(copy, '10.0.0.1')] as { member: string }).member = '10.0.0.01';
    expect(refusal(copy)).toBe('INVALID_MEMBER');
  });
});
