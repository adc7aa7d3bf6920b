import { describe, expect, it } from 'vitest';
import { renderLine, renderRestore } from '../../../src/session/render.js';
import type { PlanLine, RestorePlan } from '../../../src/types.js';

const onError = [{ when: 'any', then: 'skip-line', report: 'not-converged' }] as const;
const l = (op: PlanLine['op'], set: string, member?: string): PlanLine =>
  ({ op, set, section: `s-${set}`, onError, ...(member === undefined ? {} : { member }), ...(op === 'create' ? { spec: 'nethash' } : {}) }) as PlanLine;
const perLine = (plan: RestorePlan, indices?: number[]): string =>
  (indices ?? plan.lines.map((_, i) => i)).map((i) => `${renderLine(plan.lines[i]!)}\n`).join('');

describe('renderRestore writes runs of one set the same as line by line', () => {
  const lines: PlanLine[] = [
    l('create', 'a'),
    l('add', 'a', '10.0.0.1'),
    l('add', 'a', '10.0.0.2 nomatch'),
    l('add', 'b', '10.0.0.3'),
    l('del', 'b', '10.0.0.4 nomatch'),
    l('del', 'b', '10.0.0.5'),
    l('add', 'b', '10.0.0.6'),
    l('del', 'a', '10.0.0.7'),
    l('flush', 'c'),
    l('add', 'a', '10.0.0.8'),
    l('destroy', 'c'),
  ];
  for (let i = 0; i < 2500; i++) lines.push(l('add', 'big', `10.1.${i >>> 8}.${i & 255}`));
  lines.push(l('del', 'big', '10.9.9.9 nomatch'));
  const plan: RestorePlan = { lines };

  it('for the whole plan, across set and op changes and runs longer than one join', () => {
    expect(renderRestore(plan)).toBe(perLine(plan));
    expect(renderRestore(plan)).toContain('-D b 10.0.0.4\n-D b 10.0.0.5\n-A b 10.0.0.6\n-D a 10.0.0.7\n-F c\n');
  });

  it('for a selection of indices in any order', () => {
    const indices = [6, 3, 3, 1, 2, 12, 13, 0, 4, 2511, 10];
    expect(renderRestore(plan, indices)).toBe(perLine(plan, indices));
    expect(renderRestore(plan, [])).toBe('');
  });

  it('still refuses an add line without a member after a run', () => {
    const bad: RestorePlan = { lines: [l('add', 'a', '10.0.0.1'), l('add', 'a')] };
    expect(() => renderRestore(bad)).toThrow(/has no member/);
  });
});
