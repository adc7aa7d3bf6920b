/**
 * Large plans hold their member lines as runs in `plan.pieces`, and `plan.lines` is
 * their expansion, made on first read (plan/line-runs.ts). To every reader of the lines
 * the plan must be an ordinary plan: the same lines, fields and order as line objects
 * would give; and the lines cannot be changed, so they never disagree with the pieces
 * that render.
 */
import { describe, expect, it } from 'vitest';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply, planApplyWithSave } from '../../../src/plan/plan-apply.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { parseSave } from '../../../src/parse/save-parser.js';
import { planFromPieces, planLineCount } from '../../../src/plan/line-runs.js';
import { renderLine, renderRestore } from '../../../src/session/render.js';
import { createRestoreSession } from '../../../src/session/session.js';
import type { CommandResult, PlanLine, RestorePlan, SetMetadata } from '../../../src/types.js';

const POD: SetMetadata = { name: 'app:web', type: 'keyValueLabelOfPod' };
const NS: SetMetadata = { name: 'prod', type: 'namespace' };
const PORTS: SetMetadata = { name: 'http', type: 'namedPorts' };
const LIST: SetMetadata = { name: 'team:a', type: 'keyValueLabelOfNamespace' };

function dirtyManager(): IPSetManager {
  const m = new IPSetManager();
  for (let i = 0; i < 300; i++) m.addToSets([POD, NS], `10.0.${i >>> 8}.${i & 255}`, `ns/pod-${i}`);
  m.addToSets([NS], '10.9.0.0/16 nomatch', 'ns/range');
  m.addToSets([PORTS], '10.0.0.1,tcp:80', 'ns/pod-0');
  m.addToLists([LIST], [NS]);
  return m;
}

/** The plan with plain line objects: what the planner made before runs. */
function plain(plan: RestorePlan): RestorePlan {
  const lines = plan.lines.map((l) => ({ ...l }));
  return plan.notes === undefined ? { lines, basis: plan.basis } : { lines, notes: plan.notes, basis: plan.basis };
}

describe('a plan held as runs is an ordinary plan to its readers', () => {
  it('renders the text of its expanded lines, line by line, without making them', () => {
    const plan = planApply(dirtyManager());
    expect(plan.pieces).toBeDefined();
    const text = renderRestore(plan);
    // Rendering read the runs, not the lines.
    expect(plan.pieces!.linesMade).toBe(false);
    expect(planLineCount(plan)).toBe(text.split('\n').length - 1);
    expect(text).toBe(plan.lines.map((l) => `${renderLine(l)}\n`).join(''));
  });

  it('has the fields, order and line objects of a plain plan, and its pieces', () => {
    const m = dirtyManager();
    const plan = planApply(m);
    expect(Object.keys(plan)).toEqual(['lines', 'pieces', 'basis']);
    const lines = plan.lines;
    expect(plan.lines).toBe(lines);
    expect(Object.getOwnPropertyDescriptor(plan, 'lines')).toMatchObject({ enumerable: true, set: undefined });
    expect(Object.isFrozen(lines)).toBe(true);
    expect(lines.filter((l) => l.op === 'add' && l.set === lines[0]!.set)).toHaveLength(300);
    const add = lines.find((l) => l.op === 'add')!;
    expect(Object.keys(add)).toEqual(['op', 'set', 'member', 'section', 'onError']);
    expect(JSON.parse(JSON.stringify(plan)).lines).toEqual(JSON.parse(JSON.stringify(lines)));
    expect({ ...plan }.lines).toBe(lines);
  });

  it('refuses a change to its lines (they never disagree with the pieces); a new plan of changed lines renders them', () => {
    const plan = planApply(dirtyManager());
    const i = plan.lines.findIndex((l) => l.op === 'add');
    expect(() => {
      plan.lines[i] = { ...plan.lines[i]!, member: '10.0.0.1\n-F' };
    }).toThrow(TypeError);
    const only: PlanLine = { op: 'flush', set: 'azure-npm-x', section: 's', onError: [] };
    expect(() => {
      (plan as { lines: PlanLine[] }).lines = [only];
    }).toThrow(TypeError);
    const changed = plan.lines.slice();
    changed[i] = { ...changed[i]!, member: '10.0.0.1\n-F' };
    expect(() => renderRestore({ lines: changed })).toThrow(expect.objectContaining({ code: 'INVALID_MEMBER' }));
    expect(renderRestore({ lines: plan.lines.slice(0, i) }).split('\n')).toHaveLength(i + 1);
    expect(renderRestore({ lines: [only] })).toBe('-F azure-npm-x\n');
  });

  it('a copy with other lines renders those lines, not the pieces it carries along', () => {
    const plan = planApply(dirtyManager());
    const i = plan.lines.findIndex((l) => l.op === 'add');
    const whole = renderRestore(plan);
    expect(renderRestore({ ...plan })).toBe(whole);
    const changed = plan.lines.slice();
    changed[i] = { ...changed[i]!, member: '10.0.0.1\n-F' };
    expect(() => renderRestore({ ...plan, lines: changed })).toThrow(expect.objectContaining({ code: 'INVALID_MEMBER' }));
    expect(renderRestore({ ...plan, lines: plan.lines.slice(0, i) }).split('\n')).toHaveLength(i + 1);
    // The same before the plan's own lines were ever read.
    const fresh = planApply(dirtyManager());
    expect(renderRestore({ lines: [], pieces: fresh.pieces })).toBe('');
  });

  it('can be frozen: its lines stay the same array and it still renders', () => {
    const plan = Object.freeze(planApply(dirtyManager()));
    const lines = plan.lines;
    expect(plan.lines).toBe(lines);
    expect(renderRestore(plan)).toBe(lines.map((l) => `${renderLine(l)}\n`).join(''));
    expect(() => {
      (plan as { lines: PlanLine[] }).lines = [];
    }).toThrow(TypeError);
  });

  it('planApplyWithSave plans are the same way (single lines and runs)', () => {
    const m = dirtyManager();
    const plan = planApplyWithSave(m, { sets: [], problems: [] });
    const text = renderRestore(plan);
    expect(text).toBe(renderRestore(plain(plan)));
  });

  it('refuses a bad member in a run with the line it would have been, and no text', () => {
    const run = { op: 'add' as const, set: 'azure-npm-x', section: 's', onError: [], members: ['10.0.0.1', '10.0.0.2', 'bad member', '10.0.0.3'] };
    const plan = planFromPieces([{ op: 'create', set: 'azure-npm-x', spec: 'nethash', section: 's', onError: [] }, run], undefined, undefined);
    expect(() => renderRestore(plan)).toThrow(
      expect.objectContaining({ code: 'INVALID_MEMBER', details: expect.objectContaining({ line: { op: 'add', set: 'azure-npm-x', member: 'bad member', section: 's', onError: [] } }) }),
    );
  });
});

describe('a restore session over a plan held as runs', () => {
  const script: ((attempt: number, text: string) => CommandResult)[] = [
    // Attempt 1: the kernel refuses line 40 (a member of the first hash set).
    () => ({ exitCode: 1, stdout: '', stderr: 'ipset v7.17: Error in line 40: Kernel error received: Invalid argument\n' }),
    () => ({ exitCode: 0, stdout: '', stderr: '' }),
  ];

  function run(plan: RestorePlan): { texts: string[]; report: unknown } {
    const session = createRestoreSession(plan);
    const texts: string[] = [];
    for (let n = 0; ; n++) {
      const attempt = session.next();
      if (attempt === undefined) break;
      texts.push(attempt.text);
      session.record(script[n]!(n, attempt.text));
    }
    const report = session.report();
    return { texts, report: { ...report, plan: undefined } };
  }

  it('sends the same texts and reports the same as over its plain lines, failures included', () => {
    const m = dirtyManager();
    const a = run(planApply(m));
    const b = run(plain(planApply(m)));
    expect(a.texts).toHaveLength(2);
    expect(a).toEqual(b);
  });

  it('reads no lines when every line is applied', () => {
    const plan = planApply(dirtyManager());
    const session = createRestoreSession(plan);
    const attempt = session.next()!;
    expect(attempt.indices).toHaveLength(planLineCount(plan));
    session.record({ exitCode: 0, stdout: '', stderr: '' });
    expect(session.next()).toBeUndefined();
    const report = session.report();
    expect(report).toMatchObject({ converged: true, linesApplied: planLineCount(plan), linesTotal: planLineCount(plan), failedSets: [], skipped: [] });
    expect(plan.pieces!.linesMade).toBe(false);
  });
});

describe('reconcile plans hold each hash set\'s adds as one run', () => {
  const NET = 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1a2b3c4d';
  const hosts = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `10.1.${(from + i) >>> 8}.${(from + i) & 255}`);

  it('renders and reads like the line objects it stands for, with no basis key', () => {
    // The kernel holds 0-199 and a member that is no longer desired; 100-399 are desired.
    const save = parseSave(
      [`create azure-npm-1 hash:net ${NET}`, ...hosts(0, 200).map((m) => `add azure-npm-1 ${m}`), 'add azure-npm-1 10.2.0.0/16', ''].join('\n'),
    );
    const desired = { owner: 'azure-npm-', sets: [{ name: 'azure-npm-1', spec: 'nethash' as const, members: hosts(100, 300) }, { name: 'azure-npm-2', spec: 'nethash' as const, members: hosts(0, 100) }] };
    const plan = planReconcile(desired, save, []);
    expect(plan.pieces).toBeDefined();
    expect(Object.keys(plan)).toEqual(['lines', 'pieces']);
    const text = renderRestore(plan);
    expect(plan.pieces!.linesMade).toBe(false);
    const lines = plan.lines;
    expect(plan.pieces!.linesMade).toBe(true);
    expect(text).toBe(lines.map((l) => `${renderLine(l)}\n`).join(''));
    // Deletes first, then the adds the kernel lacks (200-399), then the new set.
    expect(lines.filter((l) => l.op === 'del').map((l) => l.member)).toEqual([...hosts(0, 100), '10.2.0.0/16']);
    expect(lines.filter((l) => l.op === 'add' && l.set === 'azure-npm-1').map((l) => l.member)).toEqual(hosts(200, 200));
    expect(lines.filter((l) => l.op === 'add' && l.set === 'azure-npm-2').map((l) => l.member)).toEqual(hosts(0, 100));
    const add = lines.find((l) => l.op === 'add')!;
    expect(Object.keys(add)).toEqual(['op', 'set', 'member', 'section', 'onError']);
  });

  it('does not share its member arrays with the desired state it was planned from', () => {
    const members = hosts(0, 200);
    const plan = planReconcile({ owner: 'azure-npm-', sets: [{ name: 'azure-npm-1', spec: 'nethash', members }] }, parseSave(''), []);
    members[0] = '10.9.9.9';
    expect(plan.lines.find((l) => l.op === 'add')!.member).toBe('10.1.0.0');
  });
});
