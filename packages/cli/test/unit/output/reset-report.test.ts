import { describe, expect, it } from 'vitest';
import type { ApplyReport, ResetReport } from '@ipsets/core';
import { formatResetReport } from '../../../src/output/reset-report.js';
import { report } from '../../helpers/output-fixtures.js';

describe('formatResetReport', () => {
  it('lists leaked sets and says the reset is complete except those', () => {
    const empty: ApplyReport = { ...report, converged: true, attempts: [], skipped: [], failedSets: [], inUseSets: [] };
    const reset: ResetReport = {
      owner: 'o-',
      converged: true,
      found: ['o-a', 'o-b'],
      destroyed: ['o-a'],
      vanished: [],
      leaked: ['o-b'],
      failed: [],
      lists: empty,
      flush: empty,
      destroy: empty,
      problems: [],
    };
    const text = formatResetReport(reset);
    expect(text).toContain('owned sets (prefix "o-"): 2 found, 1 destroyed');
    // A reset never flushes: the leaked sets are left intact (it said "flushed").
    expect(text).toContain('leaked (still referenced by a kernel component; left intact, not destroyed):\n  o-b\n');
    expect(text).not.toContain('flushed');
    expect(text).toContain('reset complete except 1 leaked set(s)');
  });
});
