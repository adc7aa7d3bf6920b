/**
 * validateDesiredState: a desired state checked once (a file loader's, say), which
 * planReconcile and reconcileIPSets then plan without checking a million members again.
 * Only core's validator makes one, it is frozen, and anything else that looks like one
 * is validated as any desired state is.
 */
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { parseSave } from '../../../src/parse/save-parser.js';
import { planReconcile, validateDesiredState } from '../../../src/plan/plan-reconcile.js';
import type { DesiredState } from '../../../src/types.js';

const NET = 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1a2b3c4d';
const SAVE = `create azure-npm-a hash:net ${NET}\nadd azure-npm-a 10.0.0.1\nadd azure-npm-a 10.0.0.9\ncreate azure-npm-l list:set size 8\nadd azure-npm-l azure-npm-a\n`;
const desired = (): DesiredState => ({
  owner: 'azure-npm-',
  sets: [
    { name: 'azure-npm-a', label: 'ns-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2/32', '10.0.0.5/24', '10.0.0.2'] },
    { name: 'azure-npm-l', spec: 'setlist', members: ['azure-npm-a'] },
    { name: 'azure-npm-p', spec: 'hash:ip,port', members: ['10.0.0.1,80'], maxelem: 1024 },
  ],
});

describe('validateDesiredState', () => {
  it('holds the canonical members, deduplicated, and plans exactly what the unchecked state plans', () => {
    const validated = validateDesiredState(desired());
    expect(validated).toEqual({
      owner: 'azure-npm-',
      sets: [
        { name: 'azure-npm-a', label: 'ns-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2', '10.0.0.0/24'] },
        { name: 'azure-npm-l', spec: 'setlist', members: ['azure-npm-a'] },
        { name: 'azure-npm-p', spec: 'hash:ip,port', members: ['10.0.0.1,tcp:80'], maxelem: 1024 },
      ],
    });
    expect(planReconcile(validated, parseSave(SAVE), [])).toEqual(planReconcile(desired(), parseSave(SAVE), []));
  });

  it('is frozen all the way to the member arrays, and does not freeze or keep the caller\'s objects', () => {
    const input = desired();
    const validated = validateDesiredState(input);
    expect(Object.isFrozen(validated) && Object.isFrozen(validated.sets)).toBe(true);
    for (const set of validated.sets) expect(Object.isFrozen(set) && Object.isFrozen(set.members)).toBe(true);
    expect(Object.isFrozen(input.sets[0]!.members) || Object.isFrozen(input.sets[0])).toBe(false);
    (input.sets[0]!.members as string[]).push('not a member');
    expect(validated.sets[0]!.members).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.0/24']);
  });

  it('refuses what planReconcile refuses, with the same error', () => {
    const bad: DesiredState = { owner: 'azure-npm-', sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.1', '10.0.0.1 nomatch'] }] };
    let error: unknown;
    try {
      validateDesiredState(bad);
    } catch (e) {
      error = e;
    }
    expect(isIpsetsError(error, 'INVALID_INPUT')).toBe(true);
    expect(() => planReconcile(bad, parseSave(''), [])).toThrow((error as Error).message);
  });

  it('cannot be forged: a copy or a look-alike is validated again', () => {
    const validated = validateDesiredState(desired());
    const forged = { ...validated, sets: [{ ...validated.sets[0]!, members: ['10.0.0.1', '-F azure-npm-x'] }] } as DesiredState;
    expect(() => planReconcile(forged, parseSave(SAVE), [])).toThrow(/Invalid hash:net member "-F azure-npm-x"/);
    const cloned = JSON.parse(JSON.stringify(validated)) as DesiredState;
    expect(planReconcile(cloned, parseSave(SAVE), [])).toEqual(planReconcile(validated, parseSave(SAVE), []));
  });
});
