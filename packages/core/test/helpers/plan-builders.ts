/**
 * Plan lines with the reference's apply handlers (docs/reference-behaviour.md §e.1, as planApply
 * uses them), for session tests that need plans without a manager.
 */
import { APPLY_HANDLERS } from '../../src/plan/handlers.js';
import type { CreateSpec, PlanLine, RestorePlan } from '../../src/types.js';

/** The handlers planApply puts on each kind of line. */
export const H = {
  create: APPLY_HANDLERS.create,
  addList: APPLY_HANDLERS.addToList,
  addHash: APPLY_HANDLERS.addToSet,
  del: APPLY_HANDLERS.del,
  /**
   * The reference's apply `-F` handler (docs/reference-behaviour.md §e.1). No planner
   * writes `-F` any more; the session still runs any plan, and these tests pin how it
   * skips a section.
   */
  flush: [
    { when: 'set-missing', then: 'skip-section', report: 'ignorable' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ] as PlanLine['onError'],
  destroy: APPLY_HANDLERS.destroy,
};

const up = (set: string): string => `add/update-${set}`;
const down = (set: string): string => `delete-${set}`;

export function create(set: string, spec: CreateSpec = 'nethash', section = up(set)): PlanLine {
  return { op: 'create', set, spec, section, onError: H.create };
}
export function add(set: string, member: string, section = up(set)): PlanLine {
  return { op: 'add', set, member, section, onError: H.addHash };
}
export function addToList(set: string, member: string, section = up(set)): PlanLine {
  return { op: 'add', set, member, section, onError: H.addList };
}
export function del(set: string, member: string, section = up(set)): PlanLine {
  return { op: 'del', set, member, section, onError: H.del };
}
export function flush(set: string, section = down(set)): PlanLine {
  return { op: 'flush', set, section, onError: H.flush };
}
export function destroy(set: string, section = down(set)): PlanLine {
  return { op: 'destroy', set, section, onError: H.destroy };
}
export function planOf(...lines: PlanLine[]): RestorePlan {
  return { lines };
}
