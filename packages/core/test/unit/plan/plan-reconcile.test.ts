import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { parseSave } from '../../../src/parse/save-parser.js';
import { renderRestore } from '../../../src/session/render.js';
import type { CreateSpec, DesiredSet, DesiredState, RestorePlan, SavedSet, SetHeader } from '../../../src/types.js';
import { temporaryName } from '../../../src/plan/rebuild.js';
import { APPLY_HANDLERS } from '../../../src/plan/handlers.js';
import { runRestoreSession } from '../../../src/session/session.js';
import { createScriptedPort, lineError, ok } from '../../helpers/scripted-port.js';
import { savedSet } from '../../../src/parse/saved-members.js';

const OWNER = 'azure-npm-';
const NET = 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1a2b3c4d';
const CIDR = 'family inet hashsize 1024 maxelem 4294967295 bucketsize 12 initval 0x1a2b3c4d';

function saved(name: string, type: string, members: string[] = [], options?: string): SavedSet {
  return savedSet(name, type, options ?? (type === 'list:set' ? 'size 8' : NET), members);
}
function want(name: string, spec: CreateSpec, members: string[] = []): DesiredSet {
  return { name, spec, members };
}
function desired(...sets: DesiredSet[]): DesiredState {
  return { owner: OWNER, sets };
}
/** Headers consistent with the snapshot: owned and foreign list memberships, plus `extra` references. */
function headersOf(sets: SavedSet[], extra: Record<string, number> = {}): SetHeader[] {
  return sets.map((s) => ({
    name: s.name,
    type: s.type,
    header: s.options,
    entries: s.members.length,
    references: sets.filter((l) => l.type === 'list:set' && [...l.members].includes(s.name)).length + (extra[s.name] ?? 0),
  }));
}
function plan(d: DesiredState, sets: SavedSet[], extra: Record<string, number> = {}): RestorePlan {
  return planReconcile(d, { sets, problems: [] }, headersOf(sets, extra));
}
function text(p: RestorePlan): string[] {
  return renderRestore(p).split('\n').filter((l) => l !== '');
}

const A = 'azure-npm-aaa';
const B = 'azure-npm-bbb';
const C = 'azure-npm-ccc';
const L = 'azure-npm-lll';
const M = 'azure-npm-mmm';

describe('planReconcile: missing and drifted sets', () => {
  it('creates missing sets, fills hash sets, then adds list members (members exist before list adds)', () => {
    const p = plan(desired(want(L, 'setlist', [A, B]), want(A, 'nethash', ['10.0.0.1']), want(B, 'hash:ip,port', ['10.0.0.2,tcp:80'])), []);
    expect(text(p)).toEqual([
      `-N ${L} --exist setlist`,
      `-N ${A} --exist nethash`,
      `-N ${B} --exist hash:ip,port`,
      `-A ${A} 10.0.0.1`,
      `-A ${B} 10.0.0.2,tcp:80`,
      `-A ${L} ${A}`,
      `-A ${L} ${B}`,
    ]);
    expect(p.notes).toBeUndefined();
    expect(p.lines.every((l) => l.section === `add/update-${l.set}`)).toBe(true);
  });

  it('repairs drift: deletes members not desired, then adds missing ones; unchanged members get no line', () => {
    const p = plan(desired(want(A, 'nethash', ['10.0.0.1', '10.0.0.3'])), [saved(A, 'hash:net', ['10.0.0.2', '10.0.0.1'])]);
    expect(text(p)).toEqual([`-D ${A} 10.0.0.2`, `-A ${A} 10.0.0.3`]);
  });

  it('compares members canonically: a desired /32 or uncleared host bits equal the kernel form', () => {
    const p = plan(desired(want(A, 'nethash', ['10.0.0.1/32', '10.1.2.3/8'])), [saved(A, 'hash:net', ['10.0.0.0/8', '10.0.0.1'])]);
    expect(p.lines).toEqual([]);
  });

  it('switching nomatch is a delete then an add (one kernel entry)', () => {
    const p = plan(desired(want(A, 'nethash maxelem 4294967295', ['10.0.0.0/24 nomatch', '10.1.0.0/16'])), [
      saved(A, 'hash:net', ['10.0.0.0/24', '10.1.0.0/16 nomatch'], CIDR),
    ]);
    expect(text(p)).toEqual([`-D ${A} 10.0.0.0/24`, `-D ${A} 10.1.0.0/16`, `-A ${A} 10.0.0.0/24 nomatch`, `-A ${A} 10.1.0.0/16`]);
  });

  it('repairs list drift: deletes members first, adds after creates', () => {
    const p = plan(desired(want(L, 'setlist', [A, C]), want(A, 'nethash'), want(C, 'nethash')), [
      saved(A, 'hash:net'),
      saved(B, 'hash:net'),
      saved(L, 'list:set', [A, B]),
    ]);
    expect(text(p)).toEqual([`-D ${L} ${B}`, `-N ${C} --exist nethash`, `-A ${L} ${C}`, `-X ${B}`]);
  });

  it('refuses a desired state that holds a member and the same member with nomatch', () => {
    expect(() => plan(desired(want(A, 'nethash', ['10.0.0.0/24', '10.0.0.0/24 nomatch'])), [])).toThrow(/one kernel entry/);
  });

  it('validates members at the boundary (INVALID_MEMBER), so nothing can be injected into a restore file', () => {
    let error: unknown;
    try {
      plan(desired(want(A, 'nethash', ['10.0.0.1\n-X azure-npm-victim'])), []);
    } catch (e) {
      error = e;
    }
    expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
  });
});

describe('planReconcile: sets no longer desired', () => {
  it('destroys undesired unreferenced sets without flushing, lists before their members', () => {
    const p = plan(desired(), [saved(A, 'hash:net', ['10.0.0.1']), saved(L, 'list:set', [A])]);
    expect(text(p)).toEqual([`-X ${L}`, `-X ${A}`]);
    expect(p.lines.map((l) => l.section)).toEqual([`delete-${L}`, `delete-${A}`]);
    expect(p.lines[0]!.onError).toEqual([
      { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
      { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
      { when: 'any', then: 'skip-line', report: 'not-converged' },
    ]);
  });

  it('leaves a set referenced from outside (iptables) untouched — no flush — and notes it', () => {
    const p = plan(desired(), [saved(A, 'hash:net', ['10.0.0.1']), saved(B, 'hash:net')], { [A]: 1 });
    expect(text(p)).toEqual([`-X ${B}`]);
    expect(p.notes).toEqual([expect.objectContaining({ set: A, kind: 'referenced-not-destroyed' })]);
    expect(p.notes![0]!.message).toContain('1 reference(s) from outside');
  });

  it('keeps the members of a referenced undesired list, and so its members too', () => {
    const p = plan(desired(), [saved(A, 'hash:net'), saved(L, 'list:set', [A])], { [L]: 1 });
    expect(p.lines).toEqual([]);
    expect(p.notes!.map((n) => [n.set, n.kind])).toEqual([
      [L, 'referenced-not-destroyed'],
      [A, 'referenced-not-destroyed'],
    ]);
  });

  it('does not destroy an undesired set that a kept list still holds', () => {
    const p = plan(desired(want(L, 'setlist', [A])), [saved(A, 'hash:net'), saved(L, 'list:set', [A])]);
    expect(p.lines).toEqual([]);
    expect(p.notes).toEqual([expect.objectContaining({ set: A, kind: 'referenced-not-destroyed' })]);
  });

  it('destroys an undesired set after a kept list deletes it', () => {
    const p = plan(desired(want(L, 'setlist', [])), [saved(A, 'hash:net'), saved(L, 'list:set', [A])]);
    expect(text(p)).toEqual([`-D ${L} ${A}`, `-X ${A}`]);
  });

  it('treats a set missing from the headers as possibly referenced', () => {
    const p = planReconcile(desired(), { sets: [saved(A, 'hash:net')], problems: [] }, []);
    expect(p.lines).toEqual([]);
    expect(p.notes![0]!.message).toContain('references are unknown');
  });
});

describe('planReconcile: type conflicts', () => {
  it('destroys and recreates an unreferenced set of the wrong type, then fills it', () => {
    const p = plan(desired(want(A, 'hash:ip,port', ['10.0.0.1,tcp:80'])), [saved(A, 'hash:net', ['10.0.0.1'])]);
    expect(text(p)).toEqual([`-X ${A}`, `-N ${A} --exist hash:ip,port`, `-A ${A} 10.0.0.1,tcp:80`]);
    expect(p.notes).toEqual([expect.objectContaining({ set: A, kind: 'type-conflict-recreated' })]);
    // A refused destroy aborts the create and adds (which would fail too).
    expect(p.lines[0]!.onError).toEqual([
      { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
      { when: 'any', then: 'skip-section', report: 'not-converged' },
    ]);
    expect(new Set(p.lines.map((l) => l.section))).toEqual(new Set([`add/update-${A}`]));
  });

  it('rebuilds a CIDR set with the default maxelem through a temporary set and swap (its create would fail; swap keeps its references)', () => {
    const p = plan(desired(want(A, 'nethash maxelem 4294967295', ['10.0.0.0/8'])), [saved(A, 'hash:net', ['10.0.0.0/8'])]);
    const t = temporaryName('azure-npm-', A);
    expect(text(p)).toEqual([`-X ${t}`, `-N ${t} --exist nethash maxelem 4294967295`, `-A ${t} 10.0.0.0/8`, `-W ${t} ${A}`, `-X ${t}`]);
    expect(p.notes![0]!.message).toContain('rebuild (maxelem 65536 → 4294967295) through a temporary set and swap');
  });

  it.each([
    ['family inet6 hashsize 1024 maxelem 65536', 'family'],
    ['family inet hashsize 1024 maxelem 65536 timeout 0', 'timeout'],
    ['family inet hashsize 1024 maxelem 65536 counters', 'counters'],
  ])('treats kernel options %j as a conflict (%s)', (options, word) => {
    const p = plan(desired(want(A, 'nethash')), [saved(A, 'hash:net', [], options)]);
    expect(p.notes![0]!.kind).toBe('type-conflict-recreated');
    expect(p.notes![0]!.message).toContain(word);
  });

  it('hashsize differences are not a conflict (the kernel does not compare them)', () => {
    const p = plan(desired(want(A, 'nethash')), [saved(A, 'hash:net', [], 'family inet hashsize 4096 maxelem 65536 bucketsize 12 initval 0x1')]);
    expect(p.lines).toEqual([]);
  });

  it('reports a referenced conflicting set and plans nothing for it', () => {
    const p = plan(desired(want(A, 'hash:ip,port', ['10.0.0.1,tcp:80']), want(B, 'nethash')), [saved(A, 'hash:net', ['10.0.0.1'])], {
      [A]: 2,
    });
    expect(text(p)).toEqual([`-N ${B} --exist nethash`]);
    expect(p.notes).toEqual([expect.objectContaining({ set: A, kind: 'type-conflict-referenced' })]);
  });

  it('can be told not to recreate conflicts', () => {
    const p = planReconcile(desired(want(A, 'hash:ip,port')), { sets: [saved(A, 'hash:net')], problems: [] }, headersOf([saved(A, 'hash:net')]), {
      recreateTypeConflicts: false,
    });
    expect(p.lines).toEqual([]);
    expect(p.notes![0]!.kind).toBe('type-conflict-referenced');
  });

  it('releases a conflicting set from a kept list, recreates it, and adds it back', () => {
    const p = plan(desired(want(L, 'setlist', [A, B]), want(A, 'hash:ip,port'), want(B, 'nethash')), [
      saved(A, 'hash:net'),
      saved(B, 'hash:net'),
      saved(L, 'list:set', [A, B]),
    ]);
    expect(text(p)).toEqual([`-D ${L} ${A}`, `-X ${A}`, `-N ${A} --exist hash:ip,port`, `-A ${L} ${A}`]);
  });
});

describe('planReconcile: ownership and determinism', () => {
  it('never touches foreign sets, also ones whose names contain the owner prefix', () => {
    const foreign = [saved('kube-proxy-x', 'hash:net', ['1.1.1.1']), saved('x-azure-npm-y', 'hash:net'), saved('cali40-all', 'list:set', [A])];
    const sets = [...foreign, saved(A, 'hash:net', ['10.0.0.9'])];
    const p = plan(desired(want(B, 'nethash', ['10.0.0.1'])), sets);
    for (const l of p.lines) expect(l.set.startsWith(OWNER)).toBe(true);
    // A is held by a foreign list: an outside reference, so it stays.
    expect(text(p)).toEqual([`-N ${B} --exist nethash`, `-A ${B} 10.0.0.1`]);
    expect(p.notes).toEqual([expect.objectContaining({ set: A, kind: 'referenced-not-destroyed' })]);
  });

  it('refuses desired sets that are not owned, duplicates, unknown specs and an empty owner', () => {
    const codeOf = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return isIpsetsError(e) ? e.code : 'other';
      }
      return undefined;
    };
    expect(codeOf(() => plan(desired(want('kube-x', 'nethash')), []))).toBe('INVALID_INPUT');
    expect(codeOf(() => plan(desired(want(A, 'nethash'), want(A, 'nethash')), []))).toBe('INVALID_INPUT');
    expect(codeOf(() => plan(desired(want(A, 'hash:ip' as CreateSpec)), []))).toBe('INVALID_INPUT');
    expect(codeOf(() => planReconcile({ owner: '', sets: [] }, { sets: [saved('x', 'hash:net')], problems: [] }, []))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('ownership was any prefix: owner "f" is refused, and foo, fw-ref, the bare azure-npm-, azure-npm-ABC and azure-npm-x.y are left untouched', () => {
    const foreignNames = ['foo', 'fw-ref', 'azure-npm-', 'azure-npm-ABC', 'azure-npm-x.y'];
    const sets = [...foreignNames.map((n) => saved(n, 'hash:net', ['10.0.0.9'])), saved(A, 'hash:net', ['10.0.0.9'])];
    const p = plan(desired(), sets);
    expect(text(p)).toEqual([`-X ${A}`]);
    expect(() => planReconcile({ owner: 'f', sets: [] }, { sets, problems: [] }, headersOf(sets))).toThrow(/invalid owner prefix "f"/);
    // A desired set the owner does not own by the rule is refused, not created.
    expect(() => plan(desired(want('azure-npm-ABC', 'nethash')), [])).toThrow(/is not owned by "azure-npm-"/);
  });

  it('is deterministic: the same inputs give the same plan', () => {
    const d = desired(want(L, 'setlist', [A, C]), want(A, 'nethash', ['10.0.0.1', '10.0.0.2']), want(C, 'nethash maxelem 4294967295'));
    const sets = [saved(A, 'hash:net', ['10.0.0.3']), saved(B, 'hash:net'), saved(M, 'list:set', [B]), saved(L, 'list:set', [A, B])];
    const p1 = plan(d, sets);
    const p2 = plan(d, sets.map((s) => savedSet(s.name, s.type, s.options, [...s.members])));
    expect(p2).toEqual(p1);
    expect(text(p1)).toEqual([
      `-D ${L} ${B}`,
      `-X ${M}`,
      `-N ${C} --exist nethash maxelem 4294967295`,
      `-D ${A} 10.0.0.3`,
      `-A ${A} 10.0.0.1`,
      `-A ${A} 10.0.0.2`,
      `-A ${L} ${C}`,
      `-X ${B}`,
    ]);
  });

  it('carries save parse problems as info notes', () => {
    const p = planReconcile(desired(), { sets: [], problems: [{ line: 3, text: 'bogus', reason: 'unknown command' }] }, []);
    expect(p.notes).toEqual([expect.objectContaining({ kind: 'info' })]);
    expect(p.notes![0]!.message).toContain('line 3');
  });
});

/** The lines of a rebuild of `live` through its first temporary with `members` (rebuild.ts). */
function rebuildLines(live: string, spec: string, members: readonly string[]): string[] {
  const t = temporaryName(OWNER, live);
  return [`-X ${t}`, `-N ${t} --exist ${spec}`, ...members.map((m) => `-A ${t} ${m}`), `-W ${t} ${live}`, `-X ${t}`];
}

describe('planReconcile: a saved member that is not canonical is never echoed (the 1,023-byte -F injection through a save file)', () => {
  const pad = (chunk: number, tail: string): string => {
    const head = `-D ${A} 10.0.0.0/`;
    return `10.0.0.0/${'0'.repeat(chunk - head.length - 2)}24${tail}`;
  };

  it.each([1022, 1023, 1024, 1025])('a member padded to a %d-byte -D line: the set is rebuilt through a temporary set and swap (never flushed in place), no line is longer than ipset reads', (chunk) => {
    for (const tail of ['-F', '-X', 'flush', 'destroy', '-']) {
      const member = pad(chunk, tail);
      const p = plan(desired(want(A, 'nethash', ['10.0.0.1', '10.0.0.2'])), [saved(A, 'hash:net', ['10.0.0.1', '10.0.0.7', member])]);
      expect(text(p)).toEqual(rebuildLines(A, 'nethash', ['10.0.0.1', '10.0.0.2']));
      expect(p.notes).toEqual([expect.objectContaining({ set: A, kind: 'unreadable-members-rebuilt' })]);
      for (const l of renderRestore(p).split('\n')) expect(l.length + 1).toBeLessThanOrEqual(1023);
    }
  });

  it('through the save parser: the hostile member is read, then never planned', () => {
    const save = `create ${A} hash:net family inet hashsize 1024 maxelem 65536\nadd ${A} ${pad(1023, '-F')}\ncreate foreign hash:net family inet hashsize 1024 maxelem 65536\nadd foreign 10.9.9.9\n`;
    const snapshot = parseSave(save);
    const p = planReconcile(desired(want(A, 'nethash', ['10.0.0.1'])), snapshot, headersOf(snapshot.sets));
    expect(text(p)).toEqual(rebuildLines(A, 'nethash', ['10.0.0.1']));
  });

  it('hash:ip,port and list members that are not canonical also rebuild the set', () => {
    const ports = plan(desired(want(B, 'hash:ip,port', ['10.0.0.1,tcp:80'])), [saved(B, 'hash:ip,port', ['10.0.0.1,tcp:0080', '10.0.0.2,icmp:8/0'])]);
    expect(text(ports)).toEqual(rebuildLines(B, 'hash:ip,port', ['10.0.0.1,tcp:80']));
    const list = plan(desired(want(L, 'setlist', [A]), want(A, 'nethash')), [saved(A, 'hash:net'), saved(L, 'list:set', [A, 'bad#name'])]);
    expect(text(list)).toEqual(rebuildLines(L, 'setlist', [A]));
    expect(list.notes).toEqual([expect.objectContaining({ set: L, kind: 'unreadable-members-rebuilt' })]);
  });

  it('canonical members that are no longer desired are still deleted one by one (no rebuild)', () => {
    const p = plan(desired(want(A, 'nethash', ['10.0.0.1'])), [saved(A, 'hash:net', ['10.0.0.1', '10.0.0.0/24', '10.0.1.0/24 nomatch'])]);
    expect(text(p)).toEqual([`-D ${A} 10.0.0.0/24`, `-D ${A} 10.0.1.0/24`]);
  });

  it('save problems become at most 100 notes and a count', () => {
    const garbage = Array.from({ length: 5000 }, (_, i) => `garbage ${i} ${'x'.repeat(1000)}`).join('\n');
    const snapshot = parseSave(garbage);
    const p = planReconcile(desired(), snapshot, []);
    expect(p.notes).toHaveLength(101);
    expect(p.notes![100]!.message).toBe('4900 more ipset save line(s) were not understood');
    for (const n of p.notes!) expect(n.message.length).toBeLessThan(600);
  });
});

describe('planReconcile: a list -D whose member set is gone', () => {
  it('is ignorable, as in apply: a set a list holds cannot be destroyed, so a gone member is not in the list (reconcile used to report the list not converged)', async () => {
    const p = plan(desired(want(L, 'setlist'), want(B, 'nethash')), [saved(L, 'list:set', [A]), saved(A, 'hash:net'), saved(B, 'hash:net')]);
    const del = p.lines.find((l) => l.op === 'del')!;
    expect(renderRestore({ lines: [del] })).toBe(`-D ${L} ${A}\n`);
    expect(del.onError).toBe(APPLY_HANDLERS.delFromList);
    // Someone removed A from the list and destroyed it between the save and the restore.
    const port = createScriptedPort();
    const index = p.lines.indexOf(del);
    port.push('restore', lineError(index + 1, 'Set to be added/deleted/tested as element does not exist.'), ok());
    const report = await runRestoreSession(p, port);
    expect(report.skipped).toEqual([expect.objectContaining({ index, kind: 'member-set-missing', outcome: 'ignorable' })]);
    expect(report.failedSets).not.toContain(L);
  });
});
