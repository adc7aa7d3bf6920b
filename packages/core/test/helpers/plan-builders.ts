/**
 * Plan lines with the seed's apply handlers (spec/azure-npm.md §e.1), for session
 * and driver tests that need plans without a manager.
 */
import type { CreateSpec, ErrorHandler, PlanLine, RestorePlan } from '../../src/types.js';

export const H = {
  create: [
    { when: 'set-exists', then: 'skip-section', report: 'not-converged' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ],
  addList: [
    { when: 'member-set-missing', then: 'skip-line', report: 'not-converged' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ],
  addHash: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
  del: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
  flush: [
    { when: 'set-missing', then: 'skip-section', report: 'ignorable' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ],
  destroy: [
    { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ],
} satisfies Record<string, ErrorHandler[]>;

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
