/** An `ApplyReport` of one restore attempt over one line, converged or not (one failed set). */
import type { ApplyReport } from '@ipsets/core';

export function report(converged: boolean, extra: Partial<ApplyReport> = {}): ApplyReport {
  return {
    converged,
    plan: { lines: [] },
    attempts: [{ attempt: 1, lineIndices: [0], exitCode: converged ? 0 : 1, action: 'done' }],
    linesTotal: 1,
    linesApplied: converged ? 1 : 0,
    skipped: [],
    failedSets: converged ? [] : ['azure-npm-1'],
    inUseSets: [],
    notes: [],
    ...extra,
  };
}
