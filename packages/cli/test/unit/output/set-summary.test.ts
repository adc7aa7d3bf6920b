import { describe, expect, it } from 'vitest';
import { kernelName, reconcileIPSets } from '@ipsets/core';
import { createFakePort, FakeKernel } from '@ipsets/fake-kernel';
import { desiredStateOf, parseDesiredText } from '../../../src/desired/file.js';
import { formatSetSummary, summarizeSets } from '../../../src/output/set-summary.js';
import { DEFAULT_CLI_OWNER } from '../../../src/defaults.js';

describe('summarizeSets', () => {
  it('counts created, updated, unchanged, destroyed, in use and names the sets that are not ok', async () => {
    const desired = desiredStateOf(
      parseDesiredText(
        [
          'sets:',
          '  - { type: namespace, name: same, members: [10.0.0.1] }',
          '  - { type: namespace, name: changed, members: [10.0.0.2, 10.0.0.3] }',
          '  - { type: namespace, name: fresh, members: [10.0.0.4] }',
          '',
        ].join('\n'),
      ),
    );
    const same = kernelName('ns-same', { owner: DEFAULT_CLI_OWNER });
    const changed = kernelName('ns-changed', { owner: DEFAULT_CLI_OWNER });
    const gone = kernelName('ns-gone', { owner: DEFAULT_CLI_OWNER });
    const held = kernelName('ns-held', { owner: DEFAULT_CLI_OWNER });
    const kernel = new FakeKernel();
    const create = (name: string) => `create ${name} hash:net family inet hashsize 1024 maxelem 65536`;
    const restored = kernel.restore(
      [
        create(same),
        `add ${same} 10.0.0.1`,
        create(changed),
        `add ${changed} 10.0.0.2`,
        create(gone),
        create(held),
        // A foreign list holds one owned set: it cannot be destroyed (in use).
        'create foreign-list list:set size 8',
        `add foreign-list ${held}`,
        '',
      ].join('\n'),
    );
    expect(restored.exitCode, restored.stderr).toBe(0);
    const report = await reconcileIPSets(desired, createFakePort(kernel));
    const summary = summarizeSets(report, desired);
    expect(summary).toEqual({
      created: 1,
      updated: 1,
      rebuilt: 0,
      unchanged: 1,
      destroyed: 1,
      inUse: 1,
      failed: 0,
      inUseSets: [held],
      failedSets: [],
    });
    expect(formatSetSummary(summary)).toBe(`sets: 1 created, 1 updated, 1 unchanged, 1 destroyed, 1 in use (${held}), 0 failed\n`);
  });

  it('reads a large plan as its runs and makes none of its line objects (was: apply\'s closing summary expanded a million-line plan into a million objects after the restore)', async () => {
    const members = (base: number) => Array.from({ length: 500 }, (_, i) => `10.${base}.${i >> 8}.${i & 255}`);
    const desired = desiredStateOf(
      parseDesiredText(JSON.stringify({ sets: [{ type: 'namespace', name: 'big', members: members(1) }, { type: 'namespace', name: 'other', members: members(2) }] })),
    );
    const report = await reconcileIPSets(desired, createFakePort(new FakeKernel()));
    expect(report.plan.pieces?.lineCount).toBe(1002);
    expect(summarizeSets(report, desired)).toMatchObject({ created: 2, updated: 0, unchanged: 0, failed: 0 });
    expect(report.plan.pieces?.linesMade).toBe(false);
  });
});

describe('summarizeSets over a plan whose lines of one set are not together', () => {
  // The summary reads a million-line plan once and looks a set up only when the
  // line's set or op differs from the line before: a set whose destroy comes long
  // after its create (other sets' lines between) must still count as destroyed-and-
  // recreated (updated), not created.
  it('sees every op of a set however its lines are interleaved with other sets', () => {
    const line = (op: string, set: string) => ({ op, set, section: `s-${set}`, onError: [] });
    const report = {
      converged: true,
      plan: {
        lines: [
          line('create', 'a'),
          line('add', 'a'),
          line('add', 'a'),
          line('create', 'b'),
          line('add', 'b'),
          line('destroy', 'a'),
          line('add', 'b'),
          line('create', 'a'),
          line('destroy', 'gone'),
        ],
      },
      attempts: [],
      linesTotal: 9,
      linesApplied: 9,
      skipped: [],
      failedSets: [],
      inUseSets: [],
      notes: [],
    } as unknown as Parameters<typeof summarizeSets>[0];
    const desired = { sets: [{ name: 'a' }, { name: 'b' }, { name: 'same' }] } as unknown as Parameters<typeof summarizeSets>[1];
    expect(summarizeSets(report, desired)).toEqual({
      created: 1,
      updated: 1,
      rebuilt: 0,
      unchanged: 1,
      destroyed: 1,
      inUse: 0,
      failed: 0,
      inUseSets: [],
      failedSets: [],
    });
  });
});

describe('summarizeSets: a rebuilt set (issue 23)', () => {
  it('counts a set rebuilt through a temporary set and swap as rebuilt (it said "unchanged" plus "1 destroyed": the temporary)', async () => {
    const desired = desiredStateOf(parseDesiredText(['sets:', '  - { type: namespace, name: web, maxelem: 131072, members: [10.0.0.1] }', ''].join('\n')));
    const web = kernelName('ns-web', { owner: DEFAULT_CLI_OWNER });
    const kernel = new FakeKernel();
    const restored = kernel.restore(`create ${web} hash:net family inet hashsize 1024 maxelem 1024\nadd ${web} 10.0.0.1\n`);
    expect(restored.exitCode, restored.stderr).toBe(0);
    const report = await reconcileIPSets(desired, createFakePort(kernel));
    expect(report.plan.lines.some((l) => l.op === 'swap')).toBe(true);
    const summary = summarizeSets(report, desired);
    expect(summary).toMatchObject({ created: 0, updated: 0, rebuilt: 1, unchanged: 0, destroyed: 0, failed: 0 });
    expect(formatSetSummary(summary)).toBe('sets: 0 created, 0 updated, 1 rebuilt, 0 unchanged, 0 destroyed, 0 in use, 0 failed\n');
  });
});
