/**
 * Plans and reports the output tests print: a plan that creates, updates, keeps and
 * destroys sets, the kernel it was planned against, and an apply of it that left a
 * set in use and another not converged.
 */
import { savedSet } from '@ipsets/core';
import type { ApplyReport, PlanLine, RestorePlan, SaveSnapshot } from '@ipsets/core';

/** A plan line of `op` on `set`, in section `s-<set>`, skipped on any error. */
export const line = (op: PlanLine['op'], set: string, extra: Partial<PlanLine> = {}): PlanLine => ({
  op,
  set,
  section: `s-${set}`,
  onError: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
  ...extra,
});

/** Creates o-new (one add), updates o-upd (one del, one add), re-creates o-same unchanged, destroys o-old. */
export const plan: RestorePlan = {
  lines: [
    line('create', 'o-new', { spec: 'nethash' }),
    line('create', 'o-upd', { spec: 'nethash' }),
    line('add', 'o-new', { member: '10.0.0.1' }),
    line('del', 'o-upd', { member: '10.0.0.9 nomatch' }),
    line('add', 'o-upd', { member: '10.0.0.2' }),
    line('create', 'o-same', { spec: 'nethash' }),
    line('destroy', 'o-old'),
  ],
};
/** The kernel `plan` was made against. */
export const snapshot: SaveSnapshot = {
  sets: [
    savedSet('o-upd', 'hash:net', 'family inet', ['10.0.0.9 nomatch', '10.0.0.3']),
    savedSet('o-same', 'hash:net', 'family inet', []),
    savedSet('o-old', 'hash:net', 'family inet', ['1.1.1.1', '2.2.2.2']),
  ],
  problems: [],
};

/** An apply of `plan`: o-old in use (its destroy refused), o-upd not converged. */
export const report: ApplyReport = {
  converged: false,
  plan,
  attempts: [
    {
      attempt: 1,
      lineIndices: [0, 1, 2, 3, 4, 5, 6],
      exitCode: 1,
      error: { kind: 'set-in-use', side: 'kernel', line: 7, message: 'Set cannot be destroyed: it is in use by a kernel component', transient: false },
      action: 'skip-line',
    },
    { attempt: 2, lineIndices: [], exitCode: 0, action: 'done' },
  ],
  linesTotal: 7,
  linesApplied: 6,
  skipped: [
    {
      index: 6,
      text: '-X o-old',
      set: 'o-old',
      reason: 'failed',
      kind: 'set-in-use',
      message: 'Set cannot be destroyed: it is in use by a kernel component',
      outcome: 'in-use',
    },
  ],
  failedSets: ['o-upd'],
  inUseSets: ['o-old'],
  notes: [],
};
