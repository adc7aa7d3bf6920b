/**
 * The bulk entry point is the manager called set by set: for random sets (mixed
 * families, single-family sets, lists naming sets before and after them, references,
 * bad members, second spellings of an entry) under random manager configurations,
 * `buildDesiredState` gives the state the manager's own calls give — or refuses with
 * the error code the first refused call has, naming that set.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIST_SET_METAS, NET_SET_METAS, PORT_SET_METAS, NET6_MEMBERS, NET_MEMBERS, PORT6_MEMBERS, PORT_MEMBERS, RAW_NET_MEMBERS, RAW_PORT_MEMBERS, REF_NAMES, managerConfigArb } from '@ipsets/testing/arbitraries';
import { isIpsetsError } from '../../../src/errors.js';
import type { IpsetsError } from '../../../src/errors.js';
import { buildDesiredState } from '../../../src/manager/bulk.js';
import type { DesiredSetInput } from '../../../src/manager/bulk.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import type { IPSetManagerConfig } from '../../../src/manager/manager.js';
import { prefixedName } from '../../../src/model/set-types.js';
import type { AddressFamily, DesiredState, SetMetadata } from '../../../src/types.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 200;

const HASH_METAS = [...NET_SET_METAS, ...PORT_SET_METAS];
const V4 = (m: string) => !m.startsWith('[') && !m.includes(':') || /^\d+\.\d+\.\d+\.\d+,/.test(m);
/** The pool of a set's kind and family: both families' members (raw spellings, an entry with and without nomatch) for a set without one. */
function pool(type: string, family: AddressFamily | undefined): string[] {
  const kind = type === 'namedPorts' ? [...PORT_MEMBERS, ...PORT6_MEMBERS, ...RAW_PORT_MEMBERS] : [...NET_MEMBERS, ...NET6_MEMBERS, ...RAW_NET_MEMBERS];
  return family === undefined ? kind : kind.filter((m) => V4(m) === (family === 'inet'));
}
/** Members of the set's kind and family; now and then a bad one (another kind's, another family's, or no member). */
const membersArb = (type: string, family: AddressFamily | undefined): fc.Arbitrary<string[]> =>
  fc.array(
    fc.oneof(
      { arbitrary: fc.constantFrom(...pool(type, family)), weight: 300 },
      { arbitrary: fc.constantFrom('10.0.0.256', 'not a member', type === 'namedPorts' ? '10.0.0.1' : '10.0.0.1,tcp:80', family === 'inet' ? 'fd00::1' : '10.0.0.1'), weight: 1 },
    ),
    { maxLength: 8 },
  );

const familyArb = fc.option(fc.constantFrom<AddressFamily>('inet', 'inet6'), { nil: undefined, freq: 3 });

const hashInputArb: fc.Arbitrary<DesiredSetInput> = fc
  .tuple(fc.constantFrom(...HASH_METAS), familyArb)
  .chain(([meta, family]) =>
    fc.record({
      meta: fc.constant<SetMetadata>(family === undefined ? meta : { ...meta, family }),
      members: membersArb(meta.type, family),
      references: fc.array(fc.record({ name: fc.constantFrom(...REF_NAMES), type: fc.constant<'netpol'>('netpol') }), { maxLength: 1 }),
    }),
  );

const listInputArb: fc.Arbitrary<DesiredSetInput> = fc.record({
  meta: fc.constantFrom(...LIST_SET_METAS),
  // A list's members are hash sets given before or after it, or not at all (the list makes them).
  memberSets: fc.array(fc.constantFrom(...HASH_METAS), { maxLength: 4 }),
  references: fc.array(fc.record({ name: fc.constantFrom(...REF_NAMES), type: fc.constant<'selector'>('selector') }), { maxLength: 1 }),
});

/** Each set once (by its family-less name), as the bulk entry asks. */
const inputsArb = fc.uniqueArray(fc.oneof({ arbitrary: hashInputArb, weight: 3 }, { arbitrary: listInputArb, weight: 1 }), {
  maxLength: 8,
  selector: (input) => prefixedName({ type: input.meta.type, name: input.meta.name }),
});

/** The manager's calls, set by set and member by member; the first refused call ends it. */
function callByCall(inputs: readonly DesiredSetInput[], config: IPSetManagerConfig): { state: DesiredState } | { error: IpsetsError; index: number } {
  const manager = new IPSetManager(config);
  const declared = new Map<string, AddressFamily>();
  for (const { meta } of inputs) if (meta.family !== undefined) declared.set(prefixedName({ type: meta.type, name: meta.name }), meta.family);
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i]!;
    try {
      manager.createIPSets([input.meta]);
      for (const member of (input.members as readonly string[] | undefined) ?? []) manager.addToSets([input.meta], member, 'pod');
      const memberSets = (input.memberSets ?? []).map((m) => {
        const family = declared.get(prefixedName(m));
        return family === undefined ? m : { ...m, family };
      });
      if (memberSets.length > 0) manager.addToLists([input.meta], memberSets);
      for (const ref of input.references ?? []) manager.addReference(input.meta, ref.name, ref.type);
    } catch (error) {
      if (!isIpsetsError(error)) throw error;
      return { error, index: i };
    }
  }
  return { state: manager.desiredState() };
}

describe('buildDesiredState', () => {
  it('equals the manager called set by set and member by member', () => {
    const outcomes = { built: 0, refused: 0 };
    fc.assert(
      fc.property(inputsArb, managerConfigArb(), fc.constantFrom<IPSetManagerConfig['scheme']>('sha256-base36', 'fnv32'), (inputs, base, scheme) => {
        const config: IPSetManagerConfig = { ...base, scheme, owner: 'prop-' };
        const expected = callByCall(inputs, config);
        let actual: DesiredState | IpsetsError;
        try {
          actual = buildDesiredState(inputs, config);
        } catch (error) {
          if (!isIpsetsError(error)) throw error;
          actual = error;
        }
        outcomes[isIpsetsError(actual) ? 'refused' : 'built']++;
        if ('error' in expected) {
          expect(isIpsetsError(actual) ? [actual.code, actual.details['setIndex']] : actual).toEqual([expected.error.code, expected.index]);
        } else {
          expect(actual).toEqual(expected.state);
        }
      }),
      { numRuns },
    );
    // Both branches are exercised (a run that only ever refused would check little).
    expect(outcomes.built).toBeGreaterThan(numRuns / 4);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});
