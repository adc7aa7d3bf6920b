/**
 * The NPM set model (docs/reference-behaviour.md §a.1): set types, their kinds, name prefixes
 * and kernel create specs.
 */
import { IpsetsError, quote } from '../errors.js';
import { checkSetName } from './set-names.js';
import type { AddressFamily, CreateSpec, KernelSetType, SetKind, SetMetadata, SetType } from '../types.js';

/** Everything the model knows about one {@link SetType}. */
export interface SetTypeInfo {
  readonly type: SetType;
  /** `set` (hash set of addresses) or `list` (list:set of sets). */
  readonly kind: SetKind;
  /** Prefix of the prefixed name (`ns-`, `podlabel-`, `namedport:` …). */
  readonly prefix: string;
  /** Tail of the reference's create line after `-N name --exist`. */
  readonly createSpec: CreateSpec;
  /** The kernel type `ipset save` prints for sets made with `createSpec`. */
  readonly kernelType: KernelSetType;
  /** May carry a selector reference (`canSetBeSelectorIPSet` of the reference). */
  readonly selectorCapable: boolean;
  /** Address family of a hash set (`inet` unless asked for `inet6`); `undefined` for lists. */
  readonly family: AddressFamily | undefined;
}

/**
 * The member grammar of a set made by a create spec: its kernel type, plus
 * ` family inet6` for an IPv6 hash set (what the render boundary checks members against).
 */
export type MemberGrammar = KernelSetType | 'hash:net family inet6' | 'hash:ip,port family inet6';

/** What a create spec makes: one row of {@link SPEC_INFO}. */
export interface SpecInfo {
  readonly spec: CreateSpec;
  /** The kernel type (`ipset save` spelling) the spec makes. */
  readonly kernelType: KernelSetType;
  /** `inet6` for the `family inet6` specs, `inet` for other hash specs, `undefined` for lists. */
  readonly family: AddressFamily | undefined;
  /**
   * The `family inet6` spec of the same set (itself for an inet6 spec; `undefined` for
   * lists). ipset accepts `family` after the reference's old type names and prints
   * `hash:net family inet6` (measured on 7.17).
   */
  readonly inet6: CreateSpec | undefined;
  /** The member grammar of the set (see {@link MemberGrammar}). */
  readonly grammar: MemberGrammar;
  /** True for the list:set spec. */
  readonly list: boolean;
}

function specRow(spec: CreateSpec, kernelType: KernelSetType, family: AddressFamily | undefined, inet6: CreateSpec | undefined): SpecInfo {
  const grammar: MemberGrammar = family === 'inet6' ? (kernelType === 'hash:net' ? 'hash:net family inet6' : 'hash:ip,port family inet6') : kernelType;
  return Object.freeze({ spec, kernelType, family, inet6, grammar, list: kernelType === 'list:set' });
}

/**
 * Every create spec the library writes, with what it makes, in the order of
 * {@link CreateSpec}: the one place a spec's kernel type and family are written down.
 * Planners, fates and the renderer read a spec's row once instead of re-deriving it.
 */
export const SPEC_INFO: Readonly<Record<CreateSpec, SpecInfo>> = Object.freeze({
  nethash: specRow('nethash', 'hash:net', 'inet', 'nethash family inet6'),
  'hash:ip,port': specRow('hash:ip,port', 'hash:ip,port', 'inet', 'hash:ip,port family inet6'),
  setlist: specRow('setlist', 'list:set', undefined, undefined),
  'nethash maxelem 4294967295': specRow('nethash maxelem 4294967295', 'hash:net', 'inet', 'nethash family inet6 maxelem 4294967295'),
  'nethash family inet6': specRow('nethash family inet6', 'hash:net', 'inet6', 'nethash family inet6'),
  'hash:ip,port family inet6': specRow('hash:ip,port family inet6', 'hash:ip,port', 'inet6', 'hash:ip,port family inet6'),
  'nethash family inet6 maxelem 4294967295': specRow('nethash family inet6 maxelem 4294967295', 'hash:net', 'inet6', 'nethash family inet6 maxelem 4294967295'),
});

/** The {@link SPEC_INFO} row of `spec`, or `undefined` when it is not a create spec the library knows. */
export function specInfoOf(spec: unknown): SpecInfo | undefined {
  return typeof spec === 'string' && Object.prototype.hasOwnProperty.call(SPEC_INFO, spec) ? SPEC_INFO[spec as CreateSpec] : undefined;
}

/** The address family a create spec makes: `inet6` for the `family inet6` specs, `inet` for other hash specs, `undefined` for lists. */
export function familyOfSpec(spec: CreateSpec): AddressFamily | undefined {
  // A lookup in SPEC_INFO (undefined for a text that is no create spec).
  return specInfoOf(spec)?.family;
}

/**
 * What makes the kernel name of a set's `inet6` sibling differ from its `inet` one:
 * appended to the prefixed name before hashing. It starts with a space, which no
 * unprefixed name may contain, so no other set can ever hash the same text, and the
 * `inet` names stay what they always were.
 */
export const INET6_NAME_SUFFIX = ' inet6';

/** Every create spec the library writes, in the order of {@link CreateSpec}. */
export const CREATE_SPECS: readonly CreateSpec[] = Object.freeze(Object.keys(SPEC_INFO) as CreateSpec[]);

/** True when `spec` is one of {@link CREATE_SPECS} (the only texts a create line may carry). */
export function isCreateSpec(spec: unknown): spec is CreateSpec {
  return specInfoOf(spec) !== undefined;
}

/** The kernel type (`ipset save` spelling) that a create spec makes. */
export function kernelTypeOfSpec(spec: CreateSpec): KernelSetType {
  // A lookup in SPEC_INFO; a text that is no create spec has none (the type says it cannot happen).
  return specInfoOf(spec)?.kernelType as KernelSetType;
}

function info(type: SetType, kind: SetKind, prefix: string, createSpec: CreateSpec, selectorCapable: boolean): SetTypeInfo {
  const spec = SPEC_INFO[createSpec];
  return Object.freeze({ type, kind, prefix, createSpec, kernelType: spec.kernelType, selectorCapable, family: spec.family });
}

const INFO: Readonly<Record<SetType, SetTypeInfo>> = Object.freeze({
  namespace: info('namespace', 'set', 'ns-', 'nethash', true),
  keyLabelOfNamespace: info('keyLabelOfNamespace', 'list', 'nslabel-', 'setlist', false),
  keyValueLabelOfNamespace: info('keyValueLabelOfNamespace', 'list', 'nslabel-', 'setlist', false),
  keyLabelOfPod: info('keyLabelOfPod', 'set', 'podlabel-', 'nethash', true),
  keyValueLabelOfPod: info('keyValueLabelOfPod', 'set', 'podlabel-', 'nethash', true),
  namedPorts: info('namedPorts', 'set', 'namedport:', 'hash:ip,port', false),
  nestedLabelOfPod: info('nestedLabelOfPod', 'list', 'nestedlabel-', 'setlist', true),
  cidrBlocks: info('cidrBlocks', 'set', 'cidr-', 'nethash maxelem 4294967295', false),
  emptyHashSet: info('emptyHashSet', 'set', 'empty-', 'nethash', false),
});

/** The `inet6` siblings of the hash types the library creates (lists and the shared empty set have none). */
const INFO6: Readonly<Partial<Record<SetType, SetTypeInfo>>> = Object.freeze(
  Object.fromEntries(
    Object.values(INFO)
      .filter((i) => i.kind === 'set' && i.type !== 'emptyHashSet')
      .map((i) => [i.type, info(i.type, i.kind, i.prefix, SPEC_INFO[i.createSpec].inet6!, i.selectorCapable)]),
  ),
);

/** Every set type, in the reference's enum order. */
export const SET_TYPES: readonly SetType[] = Object.freeze(Object.keys(INFO) as SetType[]);

/** Unprefixed name of the shared empty set (`empty-emptyhashset`). */
export const EMPTY_SET_NAME = 'emptyhashset';

/** Metadata of the shared empty set that namespace label lists may hold. */
export const EMPTY_SET: SetMetadata = Object.freeze({ name: EMPTY_SET_NAME, type: 'emptyHashSet' });

/** True when `value` is one of {@link SET_TYPES}. */
export function isSetType(value: unknown): value is SetType {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(INFO, value);
}

/**
 * Kind, prefix, create spec, kernel type, selector capability and family of `type`
 * (of its `family inet6` sibling when `family` is `inet6`). Throws `INVALID_SET_TYPE`
 * for an unknown type, and for `inet6` on a list or the shared empty set.
 */
export function setTypeInfo(type: SetType, family?: AddressFamily): SetTypeInfo {
  if (!isSetType(type)) {
    throw new IpsetsError('INVALID_SET_TYPE', `unknown set type ${quote(type)}; expected one of ${SET_TYPES.join(', ')}`, {
      details: { type },
    });
  }
  if (family === undefined || family === 'inet') return INFO[type];
  if (family !== 'inet6') {
    throw new IpsetsError('INVALID_ARGUMENT', `unknown address family ${quote(family)}; expected "inet" or "inet6"`, {
      details: { type, family },
    });
  }
  const v6 = INFO6[type];
  if (v6 === undefined) {
    throw new IpsetsError(
      'INVALID_SET_TYPE',
      `set type ${type} has no family inet6: ${INFO[type].kind === 'list' ? 'a list:set has no family and holds sets of both families' : 'the shared empty set exists once'}`,
      { details: { type, family } },
    );
  }
  return v6;
}

/**
 * True when two types may name the same prefixed set: equal types, or the pairs that
 * share a prefix (`keyLabelOfPod`/`keyValueLabelOfPod`, `keyLabelOfNamespace`/`keyValueLabelOfNamespace`),
 * which also share kind and create spec.
 */
export function sameSetFamily(a: SetType, b: SetType): boolean {
  if (a === b) return true;
  const ia = setTypeInfo(a);
  const ib = setTypeInfo(b);
  return ia.prefix === ib.prefix && ia.kind === ib.kind && ia.createSpec === ib.createSpec;
}

/**
 * Checks an unprefixed set name with the set-name rule (model/set-names.ts, role `set`:
 * 1-512 printable ASCII characters without whitespace, quotes or `#`, not starting with
 * `-`). The kernel never sees it (kernel names are digests), but reports, logs and the
 * desired file do. Throws `INVALID_SET_NAME`.
 */
export function validateUnprefixedName(name: unknown): asserts name is string {
  checkSetName(name, 'set');
}

/** Validates `meta` (known type, valid name) and returns it. Throws `INVALID_SET_TYPE` or `INVALID_SET_NAME`. */
export function validateSetMetadata(meta: SetMetadata): SetMetadata {
  if (meta === null || typeof meta !== 'object') {
    throw new IpsetsError('INVALID_ARGUMENT', `expected set metadata { name, type }, got ${quote(meta)}`);
  }
  setTypeInfo(meta.type, meta.family);
  validateUnprefixedName(meta.name);
  return meta;
}

/**
 * The prefixed name (the manager's key): type prefix + unprefixed name, e.g.
 * `podlabel-app:web`; for the `inet6` sibling {@link INET6_NAME_SUFFIX} follows
 * (`podlabel-app:web inet6`).
 */
export function prefixedName(meta: SetMetadata): string {
  return prefixedNameOf(setTypeInfo(meta.type, meta.family), meta.name);
}

/** The prefixed name of the set named `name` with type info `info` (of either family): the one place the inet6 sibling's name is made. */
export function prefixedNameOf(info: SetTypeInfo, name: string): string {
  return info.family === 'inet6' ? inet6SiblingName(info.prefix + name) : info.prefix + name;
}

/** The prefixed name of the `inet6` sibling of the set whose (inet) prefixed name is `prefixed`. */
export function inet6SiblingName(prefixed: string): string {
  return prefixed + INET6_NAME_SUFFIX;
}

/** The (inet) prefixed name whose sibling is `sibling` ({@link inet6SiblingName} undone). */
export function inetNameOfSibling(sibling: string): string {
  return sibling.slice(0, -INET6_NAME_SUFFIX.length);
}

const LIST_PREFIXES: readonly string[] = [...new Set(Object.values(INFO).filter((i) => i.kind === 'list').map((i) => i.prefix))];

/** True when a prefixed name (`nslabel-…`, `nestedlabel-…`) names a list:set. */
export function isListName(prefixed: string): boolean {
  return LIST_PREFIXES.some((p) => prefixed.startsWith(p));
}
