import { describe, expect, it } from 'vitest';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { DEFAULT_GROWTH_CEILING, growMaxelem, temporaryName } from '../../../src/plan/rebuild.js';
import { renderRestore } from '../../../src/session/render.js';
import { runRestoreSession } from '../../../src/session/session.js';
import type { DesiredState, SavedSet, SetHeader } from '../../../src/types.js';
import { MSG, createScriptedPort, lineError } from '../../helpers/scripted-port.js';
import { savedSet } from '../../../src/parse/saved-members.js';

const OWNER = 'azure-npm-';
const A = 'azure-npm-aaaaaaaaaaaaaaaaaaaa';
const NET = (maxelem: number, hashsize = 1024): string => `family inet hashsize ${hashsize} maxelem ${maxelem} bucketsize 12 initval 0x1`;
const saved = (name: string, options: string, members: string[] = []): SavedSet => savedSet(name, 'hash:net', options, members);
const header = (name: string, references: number): SetHeader => ({ name, type: 'hash:net', header: '', references, entries: 0 });
const hosts = (n: number): string[] => Array.from({ length: n }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);

describe('temporary set names of rebuilds', () => {
  it('are owned (owner + [0-9a-z]), as long as the live name, stable, and differ per writer and per set', () => {
    const t = temporaryName(OWNER, A);
    expect(t).toMatch(/^azure-npm-[0-9a-z]+$/);
    expect(t).toHaveLength(A.length);
    expect(temporaryName(OWNER, A)).toBe(t);
    expect(temporaryName(OWNER, A, 'node-1:123')).not.toBe(t);
    expect(temporaryName(OWNER, `${A.slice(0, -1)}b`)).not.toBe(t);
    expect(temporaryName(OWNER, 'azure-npm-1')).toMatch(/^azure-npm-[0-9a-z]$/);
  });
});

describe('growth of maxelem', () => {
  it('keeps a maxelem the members fit, doubles until they fit, stops at the ceiling, and is off on request', () => {
    expect(growMaxelem(65536, 65536)).toBe(65536);
    expect(growMaxelem(65536, 65537)).toBe(131072);
    expect(growMaxelem(65536, 300000)).toBe(524288);
    expect(growMaxelem(65536, DEFAULT_GROWTH_CEILING + 1)).toBeUndefined();
    expect(growMaxelem(65536, 200000, { ceiling: 150000 })).toBeUndefined();
    expect(growMaxelem(65536, 140000, { ceiling: 150000 })).toBe(150000);
    expect(growMaxelem(65536, 65537, { enabled: false })).toBeUndefined();
  });
});

describe('reconcile rebuilds through a temporary set and swap', () => {
  const desired = (members: string[], extra: object = {}): DesiredState => ({ owner: OWNER, sets: [{ name: A, spec: 'nethash', members, ...extra }] });
  const t = temporaryName(OWNER, A);

  it('65,537 desired members in a referenced set of maxelem 65536: rebuilt with maxelem 131072 (a note says so)', () => {
    const members = hosts(65537);
    const plan = planReconcile(desired(members), { sets: [saved(A, NET(65536), members.slice(0, 65536))], problems: [] }, [header(A, 1)]);
    const text = renderRestore(plan).split('\n');
    expect(text.slice(0, 2)).toEqual([`-X ${t}`, `-N ${t} --exist nethash maxelem 131072`]);
    expect(text.slice(-3)).toEqual([`-W ${t} ${A}`, `-X ${t}`, '']);
    expect(plan.lines.filter((l) => l.op === 'add' && l.set === t)).toHaveLength(65537);
    expect(plan.notes!.map((n) => n.message)).toEqual([
      `set "${A}" holds 65537 members, more than maxelem 65536: grown to maxelem 131072`,
      `set "${A}": rebuild (maxelem 65536 → 131072) through a temporary set and swap`,
    ]);
  });

  it('with growth off the set keeps its maxelem and gets only the missing adds (hash-full then fails that set only)', () => {
    const members = hosts(65537);
    const plan = planReconcile(desired(members), { sets: [saved(A, NET(65536), members.slice(0, 65536))], problems: [] }, [], { growth: { enabled: false } });
    expect(renderRestore(plan)).toBe(`-A ${A} 10.1.0.0\n`);
    expect(plan.notes![0]!.message).toMatch(/maxelem is 65536 and growth is disabled/);
  });

  it('a set already grown by an earlier run is kept, not shrunk back and forth', () => {
    const members = hosts(70000);
    const plan = planReconcile(desired(members), { sets: [saved(A, NET(131072), members)], problems: [] }, []);
    expect(plan.lines).toEqual([]);
    // Once the members fit the desired maxelem again, the desired maxelem is restored.
    const fewer = planReconcile(desired(members.slice(0, 10)), { sets: [saved(A, NET(131072), members.slice(0, 10))], problems: [] }, []);
    expect(renderRestore(fewer)).toMatch(new RegExp(`^-X ${t}\n-N ${t} --exist nethash\n`));
  });

  it('a hashsize below the desired one is rebuilt; a larger one (the kernel grew it) is not', () => {
    const small = planReconcile(desired(['10.0.0.1'], { hashsize: 4096 }), { sets: [saved(A, NET(65536, 1024), ['10.0.0.1'])], problems: [] }, []);
    expect(renderRestore(small)).toBe(`-X ${t}\n-N ${t} --exist nethash hashsize 4096\n-A ${t} 10.0.0.1\n-W ${t} ${A}\n-X ${t}\n`);
    const big = planReconcile(desired(['10.0.0.1'], { hashsize: 4096 }), { sets: [saved(A, NET(65536, 8192), ['10.0.0.1'])], problems: [] }, []);
    expect(big.lines).toEqual([]);
  });

  it('a type change is not swapped (the kernel refuses): recreated when unreferenced, reported when referenced', () => {
    const other: SavedSet = savedSet(A, 'hash:ip,port', NET(65536), []);
    const free = planReconcile(desired(['10.0.0.1']), { sets: [other], problems: [] }, [header(A, 0)]);
    expect(renderRestore(free)).toBe(`-X ${A}\n-N ${A} --exist nethash\n-A ${A} 10.0.0.1\n`);
    const held = planReconcile(desired(['10.0.0.1']), { sets: [other], problems: [] }, [header(A, 1)]);
    expect(held.lines).toEqual([]);
    expect(held.notes![0]!.kind).toBe('type-conflict-referenced');
  });

  it('a temporary left by a crash is an undesired owned set: reconcile destroys it', () => {
    const plan = planReconcile(desired(['10.0.0.1']), { sets: [saved(A, NET(65536), ['10.0.0.1']), saved(t, NET(65536), ['10.9.9.9'])], problems: [] }, [
      header(A, 1),
      header(t, 0),
    ]);
    expect(renderRestore(plan)).toBe(`-X ${t}\n`);
  });

  it('a failed add to the temporary abandons the rebuild: no swap, the live set keeps its contents and is reported; the temporary is destroyed', async () => {
    const plan = planReconcile(desired(['10.0.0.1', '10.0.0.2'], { maxelem: 10 }), { sets: [saved(A, NET(65536), ['10.0.0.1'])], problems: [] }, []);
    // Lines: -X t, -N t, -A t .1, -A t .2, -W t A, -X t
    const port = createScriptedPort({ restore: [lineError(4, MSG.hashFull)] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores[1]).toBe(`-X ${t}\n`);
    expect(report.failedSets).toEqual([A]);
    expect(report.skipped.map((s) => [s.text, s.set])).toEqual([
      [`-A ${t} 10.0.0.2`, A],
      [`-W ${t} ${A}`, A],
    ]);
  });
});
