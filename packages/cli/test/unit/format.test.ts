import { describe, expect, it } from 'vitest';
import type { ApplyReport, PlanLine, ResetReport, RestorePlan } from '@ipsets/core';
import {
  diffFromPlan,
  formatApplyReport,
  formatBytes,
  formatCount,
  formatDiff,
  formatDuration,
  formatPlanCounts,
  formatResetReport,
  headLines,
  headRestore,
  planToJson,
  reportToJson,
} from '../../src/format.js';
import { createStyle } from '../../src/style.js';

const line = (op: PlanLine['op'], set: string, extra: Partial<PlanLine> = {}): PlanLine => ({
  op,
  set,
  section: `s-${set}`,
  onError: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
  ...extra,
});

const plan: RestorePlan = {
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
const snapshot = {
  sets: [
    { name: 'o-upd', type: 'hash:net', options: 'family inet', members: ['10.0.0.9 nomatch', '10.0.0.3'] },
    { name: 'o-same', type: 'hash:net', options: 'family inet', members: [] },
    { name: 'o-old', type: 'hash:net', options: 'family inet', members: ['1.1.1.1', '2.2.2.2'] },
  ],
  problems: [],
};

describe('diffFromPlan', () => {
  it('groups lines per set: new sets, member changes, destroyed sets with their kernel members; unchanged sets left out', () => {
    const diffs = diffFromPlan(plan, snapshot, {
      owner: 'o-',
      sets: [{ name: 'o-new', label: 'ns-new', spec: 'nethash', members: [] }],
    });
    expect(diffs).toEqual([
      { set: 'o-new', label: 'ns-new', change: 'create', add: ['10.0.0.1'], remove: [] },
      { set: 'o-upd', change: 'update', add: ['10.0.0.2'], remove: ['10.0.0.9 nomatch'] },
      { set: 'o-old', change: 'destroy', add: [], remove: ['1.1.1.1', '2.2.2.2'] },
    ]);
  });

  it('marks a destroy followed by a create as a recreate', () => {
    const diffs = diffFromPlan(
      { lines: [line('destroy', 'o-upd'), line('create', 'o-upd', { spec: 'hash:ip,port' }), line('add', 'o-upd', { member: '1.1.1.1,tcp:80' })] },
      snapshot,
    );
    expect(diffs[0]).toMatchObject({ change: 'recreate', add: ['1.1.1.1,tcp:80'], remove: ['10.0.0.9 nomatch', '10.0.0.3'] });
  });
});

describe('formatDiff', () => {
  const diffs = diffFromPlan(plan, snapshot);

  it('prints one block per set and a summary, without colour codes when off', () => {
    const text = formatDiff(diffs, { desiredSets: 3 });
    expect(text).toBe(
      [
        '+ o-new  new set, +1 -0',
        '    + 10.0.0.1',
        '~ o-upd  +1 -1',
        '    - 10.0.0.9 nomatch',
        '    + 10.0.0.2',
        '- o-old  destroy, +0 -2',
        '    - 1.1.1.1',
        '    - 2.2.2.2',
        '3 set(s) differ: +2 -3 members, 1 desired set(s) unchanged',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('\u001b[');
  });

  it('colours additions green and removals red when on', () => {
    const text = formatDiff(diffs, { style: createStyle(true) });
    expect(text).toContain('\u001b[32m    + 10.0.0.2\u001b[39m');
    expect(text).toContain('\u001b[31m    - 1.1.1.1\u001b[39m');
  });

  it('cuts long member lists at the limit', () => {
    expect(formatDiff(diffs, { limit: 1 })).toContain('    - 1.1.1.1\n    … and 1 more\n');
  });

  it('says so when nothing differs', () => {
    expect(formatDiff([], { desiredSets: 4 })).toBe('no differences: the kernel matches the desired state, 4 desired set(s) unchanged\n');
  });
});

describe('planToJson', () => {
  it('numbers lines, renders them, groups sections and counts ops', () => {
    const json = planToJson(plan);
    expect(json.lines[3]).toEqual({
      line: 4,
      op: 'del',
      set: 'o-upd',
      member: '10.0.0.9 nomatch',
      section: 's-o-upd',
      text: '-D o-upd 10.0.0.9',
      onError: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
    });
    expect(json.sections[1]).toEqual({ section: 's-o-upd', lines: [2, 4, 5] });
    expect(json.counts).toEqual({ create: 3, add: 2, del: 1, flush: 0, destroy: 1, swap: 0 });
    expect(formatPlanCounts(plan)).toBe('create 3, add 2, del 1, destroy 1');
    expect(formatPlanCounts({ lines: [] })).toBe('nothing to do');
  });
});

const report: ApplyReport = {
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

describe('formatApplyReport', () => {
  it('shows attempts, skipped lines with reasons, sets in use and not converged, and the verdict', () => {
    const text = formatApplyReport(report, { labels: new Map([['o-upd', 'ns-upd']]), durationMs: 12.3 });
    expect(text).toContain('applied 6 of 7 lines in 2 attempt(s) in 12 ms');
    expect(text).toContain('attempt 1: 7 lines, exit 1: set-in-use (kernel) at line 7 "Set cannot be destroyed: it is in use by a kernel component" → skip-line');
    expect(text).toContain('line 7: -X o-old  — set-in-use: Set cannot be destroyed');
    expect(text).toContain('[in-use]');
    expect(text).toContain('in use (referenced by a kernel component, so not destroyed):\n  o-old\n');
    expect(text).toContain('not converged:\n  ns-upd (o-upd)\n');
    expect(text.trimEnd().endsWith('NOT converged')).toBe(true);
  });

  it('reportToJson drops the plan and keeps the rest', () => {
    const json = reportToJson(report, 1.23456);
    expect('plan' in json).toBe(false);
    expect(json.durationMs).toBe(1.235);
    expect(json.skipped).toHaveLength(1);
  });
});

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
      flush: empty,
      destroy: empty,
      problems: [],
    };
    const text = formatResetReport(reset);
    expect(text).toContain('owned sets (prefix "o-"): 2 found, 1 destroyed');
    expect(text).toContain('leaked (flushed, still referenced by a kernel component; not destroyed):\n  o-b\n');
    expect(text).toContain('reset complete except 1 leaked set(s)');
  });
});

describe('small formatters', () => {
  it('format durations, counts, bytes and heads', () => {
    expect(formatDuration(1.25)).toBe('1.3 ms');
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(2410)).toBe('2.41 s');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(12)).toBe('12');
    expect(formatBytes(812)).toBe('812 B');
    expect(formatBytes(46387)).toBe('45.3 KiB');
    expect(headLines('a\nb\nc\n', 2)).toBe('a\nb\n… (1 more lines)');
    expect(headLines('a\nb\n', 5)).toBe('a\nb');
    const delta = '-N a --exist nethash\n-N b --exist nethash\n-N c --exist nethash\n-D a 1.1.1.1\n-A b 2.2.2.2\n-A b 3.3.3.3\n';
    expect(headRestore(delta, 4)).toBe('-N a --exist nethash\n… and 2 more -N … --exist lines\n-D a 1.1.1.1\n-A b 2.2.2.2\n… (1 more lines)');
    expect(headRestore('-N a --exist nethash\n-A a 1.1.1.1\n', 4)).toBe('-N a --exist nethash\n-A a 1.1.1.1');
  });
});
