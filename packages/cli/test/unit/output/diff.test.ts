import { describe, expect, it } from 'vitest';
import { planReconcile, savedSet } from '@ipsets/core';
import type { DesiredState, SaveSnapshot, SetHeader } from '@ipsets/core';
import { diffFromPlan, formatDiff } from '../../../src/output/diff.js';
import { createStyle } from '../../../src/style.js';
import { line, plan, snapshot } from '../../helpers/output-fixtures.js';

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

describe('diffFromPlan: a rebuild is reported for the live set (issue 23)', () => {
  it('after a maxelem change names the live set and says "rebuild (maxelem 1024 → 131072)" (it showed "! <temporary> recreate (type changes)")', () => {
    const live = 'azure-npm-aaaa';
    const desired: DesiredState = { owner: 'azure-npm-', sets: [{ name: live, label: 'ns-web', spec: 'nethash', maxelem: 131072, members: ['10.0.0.1', '10.0.0.2'] }] };
    const save: SaveSnapshot = { sets: [savedSet(live, 'hash:net', 'family inet hashsize 1024 maxelem 1024', ['10.0.0.1', '10.0.0.9'])], problems: [] };
    const headers: SetHeader[] = [{ name: live, type: 'hash:net', header: '', references: 1, entries: 2 }];
    const diffs = diffFromPlan(planReconcile(desired, save, headers), save, desired);
    expect(diffs).toEqual([{ set: live, label: 'ns-web', change: 'rebuild', reason: 'maxelem 1024 → 131072', add: ['10.0.0.2'], remove: ['10.0.0.9'] }]);
    expect(formatDiff(diffs)).toBe(['~ ns-web (azure-npm-aaaa)  rebuild (maxelem 1024 → 131072), +1 -1', '    - 10.0.0.9', '    + 10.0.0.2', '1 set(s) differ: +1 -1 members', ''].join('\n'));
  });
});
