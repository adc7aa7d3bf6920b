import { describe, expect, it } from 'vitest';
import { IpsetsError } from '../../../src/errors.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { PreparedDesiredState, wantedOf } from '../../../src/plan/reconcile-validate.js';
import { savedSet } from '../../../src/parse/saved-members.js';
import { renderRestore } from '../../../src/session/render.js';
import type { DesiredState, SaveSnapshot, SetHeader } from '../../../src/types.js';

const NET = 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1';
const snapshot: SaveSnapshot = {
  sets: [savedSet('azure-npm-a', 'hash:net', NET, ['10.0.0.1', '10.0.0.9']), savedSet('azure-npm-old', 'hash:net', NET, ['10.1.0.1'])],
  problems: [],
};
const headers: SetHeader[] = [
  { name: 'azure-npm-a', type: 'hash:net', header: NET, references: 0, entries: 2 },
  { name: 'azure-npm-old', type: 'hash:net', header: NET, references: 0, entries: 1 },
];

/** A desired state with a member to canonicalise, a port set, a list and capacity. */
function desired(): DesiredState {
  return {
    owner: 'azure-npm-',
    sets: [
      { name: 'azure-npm-a', label: 'ns-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2', '10.0.1.0/24', '10.0.0.3 nomatch'] },
      { name: 'azure-npm-p', spec: 'hash:ip,port', members: ['10.0.0.1,tcp:80', '10.0.0.2,udp:53'], maxelem: 1024 },
      { name: 'azure-npm-l', spec: 'setlist', members: ['azure-npm-a', 'azure-npm-p'] },
    ],
  };
}

const text = (d: DesiredState): string => renderRestore(planReconcile(d, snapshot, headers));

describe('PreparedDesiredState (a desired state checked once, for an agent that reconciles it every tick)', () => {
  it('plans exactly what the plain state plans, every time it is used', () => {
    const prepared = new PreparedDesiredState(desired());
    expect(prepared).toBeInstanceOf(PreparedDesiredState);
    const plain = text(desired());
    expect(plain).not.toBe('');
    expect(text(prepared)).toBe(plain);
    expect(text(prepared)).toBe(plain);
    expect(planReconcile(prepared, snapshot, headers).notes).toEqual(planReconcile(desired(), snapshot, headers).notes);
  });

  it('keeps its own copy: changing the state it was made from afterwards changes no plan', () => {
    const source = desired();
    const prepared = new PreparedDesiredState(source);
    const before = text(prepared);
    (source.sets[0]!.members as string[]).push('10.9.9.9');
    (source.sets[0]!.members as string[])[0] = '10.8.8.8';
    (source.sets[1] as { name: string }).name = 'azure-npm-renamed';
    (source.sets as unknown[]).pop();
    expect(text(prepared)).toBe(before);
    expect(prepared.sets.map((s) => s.name)).toEqual(['azure-npm-a', 'azure-npm-p', 'azure-npm-l']);
  });

  it('cannot be changed itself: its sets and member lists are frozen', () => {
    const prepared = new PreparedDesiredState(desired());
    expect(() => (prepared.sets as unknown[]).push({})).toThrow(TypeError);
    expect(() => (prepared.sets[0]!.members as string[]).push('10.9.9.9')).toThrow(TypeError);
    expect(() => {
      (prepared.sets[0] as { name: string }).name = 'azure-npm-x';
    }).toThrow(TypeError);
  });

  it('holds canonical members, one per kernel entry, and the optional fields it was given', () => {
    const prepared = new PreparedDesiredState({ owner: 'azure-npm-', sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.1', '10.0.0.0/8'], hashsize: 4096 }] });
    expect(prepared.sets).toEqual([{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.0/8'], hashsize: 4096 }]);
  });

  it('refuses a bad desired state at once, with the error planReconcile gives', () => {
    const bad: DesiredState = { owner: 'azure-npm-', sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.1 nomatch'] }] };
    let planned: unknown;
    try {
      planReconcile(bad, snapshot, headers);
    } catch (error) {
      planned = error;
    }
    expect(planned).toBeInstanceOf(IpsetsError);
    expect(() => new PreparedDesiredState(bad)).toThrow((planned as Error).message);
    expect(() => new PreparedDesiredState({ owner: 'azure-npm-', sets: [{ name: 'kube-a', spec: 'nethash', members: [] }] })).toThrow(/not owned/);
  });

  it('a look-alike object (its fields copied) is checked like any desired state', () => {
    const prepared = new PreparedDesiredState(desired());
    const copy: DesiredState = { owner: prepared.owner, sets: [...prepared.sets, { name: 'azure-npm-a', spec: 'nethash', members: [] }] };
    expect(() => planReconcile(copy, snapshot, headers)).toThrow(/listed twice/);
  });
});

describe('PreparedDesiredState with a previous state (only what changed is checked again)', () => {
  const frozenSet = (name: string, members: string[]) => Object.freeze({ name, spec: 'nethash' as const, members: Object.freeze(members) });

  it('reuses the check of a set that is the very same frozen object, and checks a new object again', () => {
    const a = frozenSet('azure-npm-a', ['10.0.0.1', '10.0.0.2']);
    const b = frozenSet('azure-npm-b', ['10.0.1.1']);
    const first = new PreparedDesiredState({ owner: 'azure-npm-', sets: [a, b] });
    const b2 = frozenSet('azure-npm-b', ['10.0.1.1', '10.0.1.2']);
    const second = new PreparedDesiredState({ owner: 'azure-npm-', sets: [a, b2] }, first);
    expect(wantedOf(second).get('azure-npm-a')).toBe(wantedOf(first).get('azure-npm-a'));
    expect(wantedOf(second).get('azure-npm-b')).not.toBe(wantedOf(first).get('azure-npm-b'));
    expect(second.sets).toEqual([a, b2]);
    // A frozen set whose members were canonical is its own copy: no member array copied.
    expect(second.sets[0]).toBe(a);
    expect(text(second)).toBe(text({ owner: 'azure-npm-', sets: [a, b2] }));
  });

  it('checks again a set that could have changed: not frozen, members not frozen, a getter', () => {
    const members = ['10.0.0.1'];
    const open = { name: 'azure-npm-a', spec: 'nethash' as const, members };
    const looseMembers = Object.freeze({ name: 'azure-npm-b', spec: 'nethash' as const, members });
    let flip = false;
    const getter = Object.freeze({
      name: 'azure-npm-c',
      spec: 'nethash' as const,
      get members() {
        flip = !flip;
        return Object.freeze(flip ? ['10.0.0.1'] : ['10.0.0.2']);
      },
    });
    const first = new PreparedDesiredState({ owner: 'azure-npm-', sets: [open, looseMembers, getter] });
    const second = new PreparedDesiredState({ owner: 'azure-npm-', sets: [open, looseMembers, getter] }, first);
    for (const name of ['azure-npm-a', 'azure-npm-b', 'azure-npm-c']) expect(wantedOf(second).get(name)).not.toBe(wantedOf(first).get(name));
  });

  it('a reused set still counts for the state: listed twice is refused, an unowned one too', () => {
    const a = frozenSet('azure-npm-a', ['10.0.0.1']);
    const first = new PreparedDesiredState({ owner: 'azure-npm-', sets: [a] });
    expect(() => new PreparedDesiredState({ owner: 'azure-npm-', sets: [a, a] }, first)).toThrow(/listed twice/);
    expect(() => new PreparedDesiredState({ owner: 'azure-npx-', sets: [a] }, first)).toThrow(/not owned/);
  });
});
