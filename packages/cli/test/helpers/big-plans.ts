/**
 * Desired states and plans large enough that writing them in pieces matters, built
 * the way a node's would be: namespaces of pods, one set each.
 */
import { planReconcile } from '@ipsets/core';
import type { DesiredState, RestorePlan } from '@ipsets/core';
import { desiredStateOf, parseDesiredText } from '../../src/desired/file.js';

/** The text of a desired file of `sets` namespaces with `perSet` pod addresses each (all distinct). */
export function bigDesiredText(sets: number, perSet: number): string {
  const out: string[] = [];
  let n = 0;
  for (let s = 0; s < sets; s++) {
    const members: string[] = [];
    for (let i = 0; i < perSet; i++, n++) members.push(`"10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}"`);
    out.push(`{"type":"namespace","name":"ns-${s}","members":[${members.join(',')}]}`);
  }
  return `{"sets":[${out.join(',\n')}]}\n`;
}

/** The desired state of {@link bigDesiredText}. */
export function bigDesired(sets: number, perSet: number): DesiredState {
  return desiredStateOf(parseDesiredText(bigDesiredText(sets, perSet), { source: 'big.json' }));
}

/** Its plan against an empty kernel: `sets` creates and `sets × perSet` adds. */
export function bigPlan(sets: number, perSet: number): RestorePlan {
  return planReconcile(bigDesired(sets, perSet), { sets: [], problems: [] }, []);
}
