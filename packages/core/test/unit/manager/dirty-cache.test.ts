import { describe, expect, it } from 'vitest';
import { DirtyCache, isEmptyUpdate } from '../../../src/manager/dirty-cache.js';
import type { DirtyEntry, MemberSource } from '../../../src/manager/dirty-cache.js';

/** A set's current members, as the manager exposes them. */
function members(...list: string[]): MemberSource & { list: string[] } {
  return {
    list,
    forEachMember(fn) {
      for (const m of list) fn(m);
    },
    hasMember(m) {
      return list.includes(m);
    },
  };
}

/** A readable summary of an entry. */
function view(e: DirtyEntry | undefined): unknown {
  if (e === undefined) return 'absent';
  return {
    state: e.state,
    ...(e.toAdd?.size ? { toAdd: [...e.toAdd] } : {}),
    ...(e.toDelete?.size ? { toDelete: [...e.toDelete] } : {}),
    ...(e.kernelMembers !== undefined ? { kernel: [...e.kernelMembers] } : {}),
    ...(e.unknown ? { unknown: true } : {}),
  };
}

type Start = 'absent' | 'create' | 'update' | 'destroy';

/**
 * Puts set `s` (current members a, b) into a start state:
 * update = in kernel with {a, c}: toAdd {b}, toDelete {c}; destroy = kernel members {a, c}.
 */
function start(state: Start): { cache: DirtyCache; set: ReturnType<typeof members>; warnings: string[] } {
  const warnings: string[] = [];
  const cache = new DirtyCache((w) => warnings.push(w));
  const set = members('a', 'b');
  if (state === 'create') cache.create('s', 'k', set);
  if (state === 'update') {
    cache.addMember('s', 'k', set, 'b');
    cache.deleteMember('s', 'k', 'c');
  }
  if (state === 'destroy') cache.destroy('s', 'k', members('a', 'c'));
  warnings.length = 0;
  return { cache, set, warnings };
}

// docs/reference-behaviour.md §c, the operation table, with the docs/reference-behaviour.md §g.2.5 fix for create on a destroyed set.
describe('dirty cache table (docs/reference-behaviour.md §c)', () => {
  const cases: Array<[string, Start, (c: DirtyCache, set: ReturnType<typeof members>) => void, unknown, number]> = [
    ['create on absent → toCreate (all current members implicit)', 'absent', (c, s) => c.create('s', 'k', s), { state: 'create' }, 0],
    ['create on toCreate → no change', 'create', (c, s) => c.create('s', 'k', s), { state: 'create' }, 0],
    ['create on toUpdate → no change + warning', 'update', (c, s) => c.create('s', 'k', s), { state: 'update', toAdd: ['b'], toDelete: ['c'] }, 1],
    [
      'create on toDestroy → toUpdate diffed against current members (fixes docs/reference-behaviour.md §g.2.5)',
      'destroy',
      (c, s) => c.create('s', 'k', s),
      { state: 'update', toAdd: ['b'], toDelete: ['c'] },
      0,
    ],
    ['addMember on absent → toUpdate {+m}', 'absent', (c, s) => c.addMember('s', 'k', s, 'x'), { state: 'update', toAdd: ['x'] }, 0],
    ['addMember on toCreate → no change', 'create', (c, s) => c.addMember('s', 'k', s, 'x'), { state: 'create' }, 0],
    ['addMember on toUpdate → add', 'update', (c, s) => c.addMember('s', 'k', s, 'x'), { state: 'update', toAdd: ['b', 'x'], toDelete: ['c'] }, 0],
    ['addMember on toUpdate of a member to delete → cancels the delete', 'update', (c, s) => c.addMember('s', 'k', s, 'c'), { state: 'update', toAdd: ['b'] }, 0],
    [
      'addMember on toDestroy → toUpdate diffed against current members',
      'destroy',
      (c, s) => {
        s.list.push('x');
        c.addMember('s', 'k', s, 'x');
      },
      { state: 'update', toAdd: ['b', 'x'], toDelete: ['c'] },
      0,
    ],
    ['deleteMember on absent → toUpdate {-m}', 'absent', (c) => c.deleteMember('s', 'k', 'x'), { state: 'update', toDelete: ['x'] }, 0],
    ['deleteMember on toCreate → no change (never marks delete)', 'create', (c) => c.deleteMember('s', 'k', 'a'), { state: 'create' }, 0],
    ['deleteMember on toUpdate → delete', 'update', (c) => c.deleteMember('s', 'k', 'a'), { state: 'update', toAdd: ['b'], toDelete: ['c', 'a'] }, 0],
    ['deleteMember on toUpdate of a member to add → cancels the add', 'update', (c) => c.deleteMember('s', 'k', 'b'), { state: 'update', toDelete: ['c'] }, 0],
    ['deleteMember on toDestroy → no change + warning', 'destroy', (c) => c.deleteMember('s', 'k', 'a'), { state: 'destroy', kernel: ['a', 'c'] }, 1],
    ['destroy on absent → toDestroy with current members', 'absent', (c, s) => c.destroy('s', 'k', s), { state: 'destroy', kernel: ['a', 'b'] }, 0],
    ['destroy on toCreate → forgotten (never reached the kernel)', 'create', (c, s) => c.destroy('s', 'k', s), 'absent', 0],
    [
      'destroy on toUpdate → toDestroy with the members believed in the kernel',
      'update',
      (c, s) => c.destroy('s', 'k', s),
      { state: 'destroy', kernel: ['a', 'c'] },
      0,
    ],
    ['destroy on toDestroy → no change', 'destroy', (c, s) => c.destroy('s', 'k', s), { state: 'destroy', kernel: ['a', 'c'] }, 0],
  ];

  it.each(cases)('%s', (_title, from, op, expected, warningCount) => {
    const { cache, set, warnings } = start(from);
    op(cache, set);
    expect(view(cache.get('s'))).toEqual(expected);
    expect(warnings).toHaveLength(warningCount);
  });

  it('add then delete of the same member leaves an empty update (still a create line)', () => {
    const cache = new DirtyCache();
    const set = members();
    cache.addMember('s', 'k', set, 'x');
    cache.deleteMember('s', 'k', 'x');
    const e = cache.get('s')!;
    expect(e.state).toBe('update');
    expect(isEmptyUpdate(e)).toBe(true);
  });

  it('mode-all lifecycle: in-kernel set deleted then re-created empty → toUpdate deleting the old members', () => {
    const cache = new DirtyCache();
    cache.destroy('s', 'k', members('a', 'b'));
    cache.create('s', 'k', members());
    expect(view(cache.get('s'))).toEqual({ state: 'update', toDelete: ['a', 'b'] });
    // An old member coming back cancels its delete.
    cache.addMember('s', 'k', members('a'), 'a');
    expect(view(cache.get('s'))).toEqual({ state: 'update', toDelete: ['b'] });
  });

  it('unknown kernel contents survive destroy and re-create', () => {
    const cache = new DirtyCache();
    cache.markUnknown('s', 'k', true);
    expect(view(cache.get('s'))).toEqual({ state: 'create', unknown: true });
    cache.destroy('s', 'k', members('a'));
    expect(view(cache.get('s'))).toEqual({ state: 'destroy', unknown: true });
    cache.create('s', 'k', members('a'));
    expect(view(cache.get('s'))).toEqual({ state: 'create', unknown: true });
  });

  it('a fragile entry is kept as it is, and turns unknown on its next change', () => {
    const cache = new DirtyCache();
    cache.addMember('s', 'k', members('a'), 'a');
    cache.markFragile('s');
    expect(view(cache.get('s'))).toEqual({ state: 'update', toAdd: ['a'] });
    expect(cache.get('s')!.fragile).toBe(true);
    cache.deleteMember('s', 'k', 'a');
    expect(view(cache.get('s'))).toEqual({ state: 'create', unknown: true });
    expect(cache.get('s')!.fragile).toBe(false);
    cache.destroy('t', 'kt', members('x'));
    cache.markFragile('t');
    cache.create('t', 'kt', members('x'));
    expect(view(cache.get('t'))).toEqual({ state: 'create', unknown: true });
    cache.markFragile('t');
    cache.destroy('t', 'kt', members('x'));
    expect(view(cache.get('t'))).toEqual({ state: 'destroy', unknown: true });
  });

  it('keeps entries in the order sets became dirty, across state changes', () => {
    const cache = new DirtyCache();
    cache.create('b', 'kb', members());
    cache.addMember('a', 'ka', members('x'), 'x');
    cache.destroy('c', 'kc', members());
    cache.destroy('b', 'kb', members()); // forgotten
    cache.destroy('a', 'ka', members('x')); // update → destroy, keeps its place
    cache.create('b', 'kb', members()); // back, at the end
    expect([...cache.values()].map((e) => `${e.name}:${e.state}`)).toEqual(['a:destroy', 'c:destroy', 'b:create']);
    expect(cache.counts()).toEqual({ create: 1, update: 0, destroy: 2 });
  });

  it('adopt copies an entry and forget/clear drop entries', () => {
    const other = new DirtyCache();
    other.addMember('s', 'k', members('x'), 'x');
    const cache = new DirtyCache();
    cache.adopt(other.get('s')!);
    other.deleteMember('s', 'k', 'x');
    expect(view(cache.get('s'))).toEqual({ state: 'update', toAdd: ['x'] });
    cache.forget('s');
    expect(cache.size).toBe(0);
    cache.create('t', 'kt', members());
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
