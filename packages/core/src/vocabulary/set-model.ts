/** The set model every package speaks: set types and kinds, metadata, create specs, families, naming schemes. */

/** NPM set types (docs/reference-behaviour.md §a.1), camelCase. */
export type SetType =
  | 'namespace'
  | 'keyLabelOfNamespace'
  | 'keyValueLabelOfNamespace'
  | 'keyLabelOfPod'
  | 'keyValueLabelOfPod'
  | 'namedPorts'
  | 'nestedLabelOfPod'
  | 'cidrBlocks'
  | 'emptyHashSet';

/** `set`: a hash set whose members are addresses; `list`: a list:set whose members are sets. */
export type SetKind = 'set' | 'list';

/** A set as callers name it: unprefixed name plus type, and for hash sets optionally a family. */
export interface SetMetadata {
  readonly name: string;
  readonly type: SetType;
  /**
   * Hash sets only. Absent: the logical set, whose members go to the kernel set of
   * their own family (IPv4 to the `inet` set, IPv6 to its `inet6` sibling).
   * `inet` or `inet6`: exactly that family's kernel set; a member of the other
   * family is an error. Lists have no family (a list:set holds sets of both).
   */
  readonly family?: AddressFamily;
}

/** How a prefixed name becomes a kernel name. */
export type NamingScheme = 'sha256-base36' | 'fnv32';

/** The tail of a create line, exactly as the reference writes it after `-N name --exist`. */
export type CreateSpec =
  | 'nethash'
  | 'hash:ip,port'
  | 'setlist'
  | 'nethash maxelem 4294967295'
  | 'nethash family inet6'
  | 'hash:ip,port family inet6'
  | 'nethash family inet6 maxelem 4294967295';

/**
 * Address family of a hash set, as `ipset create … family` spells it: `inet` (IPv4,
 * the default) or `inet6` (IPv6). A hash set holds addresses of its family only.
 */
export type AddressFamily = 'inet' | 'inet6';

/** Kernel type names as `ipset save` prints them for the specs above. */
export type KernelSetType = 'hash:net' | 'hash:ip,port' | 'list:set';
