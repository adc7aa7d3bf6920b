/**
 * The manager's argument rules: what a call may pass (mode and capacity configuration,
 * pod keys, delete options, references, members for a set's kind, a set of the kind
 * the call needs) and where a member goes. Each check
 * throws an {@link IpsetsError} that quotes the bad value, before the manager changes
 * anything.
 */
import { validateCapacity } from '../model/capacity.js';
import type { SetCapacity } from '../model/capacity.js';
import { IpsetsError, isIpsetsError, quote } from '../errors.js';
import { canonicalMember } from '../model/members.js';
import { SET_TYPES, isSetType, sameSetFamily, setTypeInfo } from '../model/set-types.js';
import type { SetTypeInfo } from '../model/set-types.js';
import type { AddressFamily, SetMetadata, SetType } from '../types.js';
import type { IPSet } from './set-record.js';
import type { IPSetMode, ReferenceType } from './manager-types.js';

/** A set's metadata checked and resolved to its names. */
export interface Resolved {
  readonly meta: SetMetadata;
  readonly prefixed: string;
  readonly info: SetTypeInfo;
  readonly kernelName: string;
}

/** Checks the manager's per-type capacity configuration (`IPSetManagerConfig.capacity`). */
export function validateTypeCapacity(config: unknown): ReadonlyMap<SetType, SetCapacity> {
  const out = new Map<SetType, SetCapacity>();
  if (config === undefined) return out;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new IpsetsError('INVALID_ARGUMENT', `invalid capacity ${quote(config)}; expected an object of set type → { maxelem, hashsize }`, {
      details: { capacity: config },
    });
  }
  for (const [type, capacity] of Object.entries(config)) {
    if (!isSetType(type)) {
      throw new IpsetsError('INVALID_SET_TYPE', `unknown set type ${quote(type)} in capacity; expected one of ${SET_TYPES.join(', ')}`, {
        details: { type },
      });
    }
    const checked = validateCapacity(capacity, setTypeInfo(type).createSpec, `capacity of set type ${quote(type)}`, 'INVALID_ARGUMENT');
    if (checked.maxelem !== undefined || checked.hashsize !== undefined) out.set(type, Object.freeze(checked));
  }
  return out;
}

/** True for the namespace-label lists (they hold the shared empty set when configured). */
export function isNamespaceList(type: SetType): boolean {
  return type === 'keyLabelOfNamespace' || type === 'keyValueLabelOfNamespace';
}

/**
 * The set a member goes to: a family-less hash set's IPv6 member goes to its `inet6`
 * sibling (a set of its own, with its own kernel name); a set with an explicit
 * family keeps it, so a member of the other family is refused by the grammar.
 */
export function routed(meta: SetMetadata, family: AddressFamily): SetMetadata {
  if (family !== 'inet6' || meta === null || typeof meta !== 'object' || meta.family !== undefined) return meta;
  if (!isSetType(meta.type) || setTypeInfo(meta.type).kind !== 'set' || meta.type === 'emptyHashSet') return meta;
  return { name: meta.name, type: meta.type, family: 'inet6' };
}

/** The canonical form of `member` for the set `r`, or an `INVALID_MEMBER` error naming the set. */
export function memberFor(r: Resolved, member: string, verb: 'add' | 'remove', preposition: 'to' | 'from'): string {
  const kind = r.info.kernelType === 'hash:ip,port' ? 'hash:ip,port' : 'hash:net';
  try {
    return canonicalMember(kind, member, r.info.family ?? 'inet');
  } catch (error) {
    if (!isIpsetsError(error)) throw error;
    throw new IpsetsError(
      error.code,
      `cannot ${verb} ${quote(member)} ${preposition} ipset ${quote(r.prefixed)} (type ${r.meta.type}, ${kind}): ${error.message}`,
      { cause: error, details: { ...error.details, set: r.prefixed, operation: verb } },
    );
  }
}

/** A pod key is a string. */
export function checkPodKey(podKey: unknown): void {
  if (typeof podKey !== 'string') {
    throw new IpsetsError('INVALID_ARGUMENT', `invalid pod key ${quote(podKey)}; expected a string`, { details: { podKey } });
  }
}

/** A reference is a non-empty name of type `selector` or `netpol`. */
export function checkReference(refName: unknown, refType: unknown): void {
  if (refType !== 'selector' && refType !== 'netpol') {
    throw new IpsetsError('INVALID_ARGUMENT', `invalid reference type ${quote(refType)}; expected "selector" or "netpol"`, {
      details: { refType },
    });
  }
  if (typeof refName !== 'string' || refName.length === 0) {
    throw new IpsetsError('INVALID_ARGUMENT', `invalid reference name ${quote(refName)}; expected a non-empty string`, {
      details: { refName },
    });
  }
}

/** The mode of a manager configuration (default `all`). */
export function checkMode(mode: unknown): IPSetMode {
  const m = mode ?? 'all';
  if (m !== 'all' && m !== 'on-need') {
    throw new IpsetsError('INVALID_ARGUMENT', `invalid ipset mode ${quote(m)}; expected "all" or "on-need"`, { details: { mode: m } });
  }
  return m;
}

/** A delete option is `soft` or `force`. */
export function checkDeleteOption(option: unknown): void {
  if (option !== 'soft' && option !== 'force') {
    throw new IpsetsError('INVALID_ARGUMENT', `invalid delete option ${quote(option)}; expected "soft" or "force"`, { details: { option } });
  }
}

/** An existing set asked for with `meta`'s type must have a type of the same family (docs/reference-behaviour.md §g.2.8). */
export function checkSameType(set: IPSet, meta: SetMetadata): void {
  if (!sameSetFamily(set.type, meta.type)) {
    throw new IpsetsError(
      'INVALID_SET_TYPE',
      `ipset ${quote(set.name)} exists with type ${set.type} (${set.info.kind}); it was requested as type ${meta.type}`,
      { details: { set: set.name, type: set.type, requested: meta.type } },
    );
  }
}

/** `r` is a hash set, for `action` (e.g. `add members to`). */
export function requireHashSet(r: Resolved, action: string): void {
  if (r.info.kind !== 'set') {
    throw new IpsetsError('INVALID_SET_TYPE', `cannot ${action} ipset ${quote(r.prefixed)}: it is not a hash set (type ${r.meta.type} is a list)`, {
      details: { set: r.prefixed, type: r.meta.type },
    });
  }
}

/** `r` may be a list's member: a hash set (lists do not nest). */
export function requireMemberSet(r: Resolved): void {
  if (r.info.kind !== 'set') {
    throw new IpsetsError('INVALID_SET_TYPE', `ipset ${quote(r.prefixed)} is not a hash set and nested list sets are not supported`, {
      details: { set: r.prefixed, type: r.meta.type },
    });
  }
}

/** `r` is a list. */
export function requireList(r: Resolved): void {
  if (r.info.kind !== 'list') {
    throw new IpsetsError('INVALID_SET_TYPE', `ipset ${quote(r.prefixed)} is not a list set (type ${r.meta.type} is a hash set)`, {
      details: { set: r.prefixed, type: r.meta.type },
    });
  }
}

/**
 * The reference rules for a new reference to `r` (`existing` is its record, if any): a
 * selector only on a selector-capable type; a CIDR set used by one netpol alone.
 */
export function checkReferenceFits(r: Resolved, existing: IPSet | undefined, refName: string, refType: ReferenceType): void {
  if (refType === 'selector' && !r.info.selectorCapable) {
    const capable = SET_TYPES.filter((t) => setTypeInfo(t).selectorCapable).join(', ');
    throw new IpsetsError(
      'INVALID_REFERENCE',
      `ipset ${quote(r.prefixed)} is not a selector ipset: it is of type ${r.meta.type}; selector sets are of type ${capable}`,
      { details: { set: r.prefixed, type: r.meta.type, refName } },
    );
  }
  if (refType === 'netpol' && r.meta.type === 'cidrBlocks' && existing?.netPolRefs !== undefined) {
    for (const owner of existing.netPolRefs) {
      if (owner !== refName) {
        throw new IpsetsError(
          'INVALID_REFERENCE',
          `cidr ipset ${quote(r.prefixed)} is already owned by netpol ${quote(owner)}; refusing reference from netpol ${quote(refName)}`,
          { details: { set: r.prefixed, owner, refName } },
        );
      }
    }
  }
}
