import { describe, expect, it } from 'vitest';
import {
  CREATE_SPECS,
  EMPTY_SET,
  SPEC_INFO,
  isCreateSpec,
  specInfoOf,
  INET6_NAME_SUFFIX,
  familyOfSpec,
  SET_TYPES,
  isSetType,
  kernelTypeOfSpec,
  prefixedName,
  sameSetFamily,
  setTypeInfo,
  validateSetMetadata,
} from '../../../src/model/set-types.js';
import type { CreateSpec, KernelSetType, SetType } from '../../../src/types.js';

// docs/reference-behaviour.md §a.1
const TABLE: ReadonlyArray<[SetType, 'set' | 'list', string, string, string, boolean]> = [
  ['namespace', 'set', 'ns-', 'nethash', 'hash:net', true],
  ['keyLabelOfNamespace', 'list', 'nslabel-', 'setlist', 'list:set', false],
  ['keyValueLabelOfNamespace', 'list', 'nslabel-', 'setlist', 'list:set', false],
  ['keyLabelOfPod', 'set', 'podlabel-', 'nethash', 'hash:net', true],
  ['keyValueLabelOfPod', 'set', 'podlabel-', 'nethash', 'hash:net', true],
  ['namedPorts', 'set', 'namedport:', 'hash:ip,port', 'hash:ip,port', false],
  ['nestedLabelOfPod', 'list', 'nestedlabel-', 'setlist', 'list:set', true],
  ['cidrBlocks', 'set', 'cidr-', 'nethash maxelem 4294967295', 'hash:net', false],
  ['emptyHashSet', 'set', 'empty-', 'nethash', 'hash:net', false],
];

describe('set types', () => {
  it('lists every type of the spec in enum order', () => {
    expect(SET_TYPES).toEqual(TABLE.map((row) => row[0]));
  });

  it.each(TABLE)('%s: kind %s, prefix %s, spec %s, kernel type %s, selector %s', (type, kind, prefix, spec, kernelType, selector) => {
    expect(setTypeInfo(type)).toEqual({
      type,
      kind,
      prefix,
      createSpec: spec,
      kernelType,
      selectorCapable: selector,
      family: kind === 'list' ? undefined : 'inet',
    });
    expect(kernelTypeOfSpec(setTypeInfo(type).createSpec)).toBe(kernelType);
  });

  it('builds prefixed names by concatenation', () => {
    expect(prefixedName({ name: 'test', type: 'namespace' })).toBe('ns-test');
    expect(prefixedName({ name: 'app', type: 'keyLabelOfPod' })).toBe('podlabel-app');
    expect(prefixedName({ name: 'app:web', type: 'keyValueLabelOfPod' })).toBe('podlabel-app:web');
    expect(prefixedName({ name: 'http', type: 'namedPorts' })).toBe('namedport:http');
    expect(prefixedName(EMPTY_SET)).toBe('empty-emptyhashset');
  });

  it('shared-prefix pairs are one family, other types are not', () => {
    expect(sameSetFamily('keyLabelOfPod', 'keyValueLabelOfPod')).toBe(true);
    expect(sameSetFamily('keyLabelOfNamespace', 'keyValueLabelOfNamespace')).toBe(true);
    expect(sameSetFamily('namespace', 'namespace')).toBe(true);
    expect(sameSetFamily('namespace', 'keyLabelOfPod')).toBe(false);
    expect(sameSetFamily('nestedLabelOfPod', 'keyLabelOfNamespace')).toBe(false);
  });

  it.each([['Namespace'], ['unknown'], [''], [undefined], [1]])('rejects unknown type %j', (type) => {
    expect(isSetType(type)).toBe(false);
    expect(() => setTypeInfo(type as SetType)).toThrow(/unknown set type/);
  });

  it('rejects the prototype keys as types', () => {
    expect(isSetType('toString')).toBe(false);
    expect(isSetType('__proto__')).toBe(false);
  });

  it.each(['', 'a b', 'a\nb', 'tab\there', '\u0000'])('rejects set name %j', (name) => {
    expect(() => validateSetMetadata({ name, type: 'namespace' })).toThrow(/invalid set name/i);
  });

  it('accepts label-style names', () => {
    expect(validateSetMetadata({ name: 'app:web', type: 'keyValueLabelOfPod' })).toEqual({ name: 'app:web', type: 'keyValueLabelOfPod' });
    expect(() => validateSetMetadata({ name: 'k8s.io/role:', type: 'keyValueLabelOfPod' })).not.toThrow();
  });
});

describe('family inet6 siblings', () => {
  it.each([
    ['namespace', 'nethash family inet6', 'hash:net'],
    ['keyLabelOfPod', 'nethash family inet6', 'hash:net'],
    ['keyValueLabelOfPod', 'nethash family inet6', 'hash:net'],
    ['namedPorts', 'hash:ip,port family inet6', 'hash:ip,port'],
    ['cidrBlocks', 'nethash family inet6 maxelem 4294967295', 'hash:net'],
  ] as const)('%s: spec %s (ipset prints it as %s family inet6)', (type, spec, kernelType) => {
    const info = setTypeInfo(type, 'inet6');
    expect(info).toMatchObject({ type, createSpec: spec, kernelType, family: 'inet6', prefix: setTypeInfo(type).prefix });
    expect(familyOfSpec(spec)).toBe('inet6');
    expect(kernelTypeOfSpec(spec)).toBe(kernelType);
  });

  it.each(['keyLabelOfNamespace', 'keyValueLabelOfNamespace', 'nestedLabelOfPod', 'emptyHashSet'] as const)('%s has no inet6 sibling', (type) => {
    expect(() => setTypeInfo(type, 'inet6')).toThrow(/has no family inet6/);
    expect(() => validateSetMetadata({ name: 'x', type, family: 'inet6' })).toThrow(/has no family inet6/);
  });

  it('the inet6 sibling has its own prefixed name; inet names are unchanged', () => {
    expect(prefixedName({ name: 'default', type: 'namespace' })).toBe('ns-default');
    expect(prefixedName({ name: 'default', type: 'namespace', family: 'inet' })).toBe('ns-default');
    expect(prefixedName({ name: 'default', type: 'namespace', family: 'inet6' })).toBe(`ns-default${INET6_NAME_SUFFIX}`);
    // No valid unprefixed name contains the suffix's leading space, so no set can collide with a sibling.
    expect(() => validateSetMetadata({ name: `default${INET6_NAME_SUFFIX}`, type: 'namespace' })).toThrow(/invalid set name/i);
  });

  it('refuses an unknown family', () => {
    expect(() => setTypeInfo('namespace', 'ipv6' as never)).toThrow(/unknown address family "ipv6"/);
  });
});

describe('SPEC_INFO: one table of create specs', () => {
  // Written out here, not derived: what ipset prints for each spec (measured on 7.17).
  const ROWS: ReadonlyArray<[CreateSpec, KernelSetType, 'inet' | 'inet6' | undefined, CreateSpec | undefined, string]> = [
    ['nethash', 'hash:net', 'inet', 'nethash family inet6', 'hash:net'],
    ['hash:ip,port', 'hash:ip,port', 'inet', 'hash:ip,port family inet6', 'hash:ip,port'],
    ['setlist', 'list:set', undefined, undefined, 'list:set'],
    ['nethash maxelem 4294967295', 'hash:net', 'inet', 'nethash family inet6 maxelem 4294967295', 'hash:net'],
    ['nethash family inet6', 'hash:net', 'inet6', 'nethash family inet6', 'hash:net family inet6'],
    ['hash:ip,port family inet6', 'hash:ip,port', 'inet6', 'hash:ip,port family inet6', 'hash:ip,port family inet6'],
    ['nethash family inet6 maxelem 4294967295', 'hash:net', 'inet6', 'nethash family inet6 maxelem 4294967295', 'hash:net family inet6'],
  ];

  it('has one frozen row per create spec, in the order of CREATE_SPECS', () => {
    expect(Object.keys(SPEC_INFO)).toEqual(CREATE_SPECS);
    expect(CREATE_SPECS).toEqual(ROWS.map((r) => r[0]));
    expect(Object.isFrozen(SPEC_INFO)).toBe(true);
    for (const spec of CREATE_SPECS) expect(Object.isFrozen(SPEC_INFO[spec])).toBe(true);
  });

  it.each(ROWS)('%s: kernel type %s, family %s, inet6 spec %s, member grammar %s', (spec, kernelType, family, inet6, grammar) => {
    expect(SPEC_INFO[spec]).toEqual({ spec, kernelType, family, inet6, grammar, list: kernelType === 'list:set' });
    expect(kernelTypeOfSpec(spec)).toBe(kernelType);
    expect(familyOfSpec(spec)).toBe(family);
    expect(specInfoOf(spec)).toBe(SPEC_INFO[spec]);
  });

  it.each(['toString', '__proto__', 'hash:net', 'nethash ', '', 1, undefined, null])('knows no spec %j', (spec) => {
    expect(isCreateSpec(spec)).toBe(false);
    expect(specInfoOf(spec)).toBeUndefined();
  });
});
