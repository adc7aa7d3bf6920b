/**
 * The set pool of the differential restore scripts: the names scripts use, the type
 * each is created with (and how its create line reads), names that are never created,
 * and the valid-or-invalid mix every line generator draws through.
 */
import fc from 'fast-check';

export type SetType =
  | 'hash:ip'
  | 'hash:net'
  | 'hash:ip,port'
  | 'list:set'
  | 'hash:ip6'
  | 'hash:ip-ext'
  | 'hash:ip-skb'
  | 'hash:net6'
  | 'hash:ip,port6';

/** The set names scripts use, with the type each is created with (`x…` are never created). */
export const POOL: readonly { name: string; type: SetType }[] = [
  { name: 'a', type: 'hash:ip' },
  { name: 'n', type: 'hash:net' },
  { name: 'p', type: 'hash:ip,port' },
  { name: 'l', type: 'list:set' },
  { name: 'm', type: 'hash:ip' },
  { name: 'azure-npm-1a2b3c4d5e6f7g8h9i0j', type: 'hash:net' },
  { name: 'six', type: 'hash:ip6' },
  { name: 'l2', type: 'list:set' },
  { name: 'c', type: 'hash:ip-ext' },
  { name: 'k', type: 'hash:ip-skb' },
  { name: 'n6', type: 'hash:net6' },
  { name: 'p6', type: 'hash:ip,port6' },
];

/** The `family inet6` pool types and the hash type they are created with. */
const INET6_BASE: Partial<Record<SetType, string>> = { 'hash:net6': 'hash:net', 'hash:ip,port6': 'hash:ip,port' };

/** The create line of a pool set. */
export function createOf(set: { name: string; type: SetType }): string {
  if (set.type === 'hash:ip6') return `create ${set.name} hash:ip family inet6`;
  if (set.type === 'hash:ip-ext') return `create ${set.name} hash:ip counters comment timeout 0`;
  if (set.type === 'hash:ip-skb') return `create ${set.name} hash:ip skbinfo`;
  const base6 = INET6_BASE[set.type];
  if (base6 !== undefined) return `create ${set.name} ${base6} family inet6`;
  return `create ${set.name} ${set.type}`;
}
const MISSING = ['x', 'nosuch'];
export const ALL_NAMES = [...POOL.map((s) => s.name), ...MISSING];

const poolName = fc.constantFrom(...POOL.map((s) => s.name));

/** A set name: usually one of the pool, rarely (never when `clean`) one that is never created. */
export function setName(clean: boolean): fc.Arbitrary<string> {
  return clean ? poolName : fc.oneof({ weight: 12, arbitrary: poolName }, { weight: 1, arbitrary: fc.constantFrom(...MISSING) });
}

/** `valid`, plus `invalid` unless the script is clean. */
export function mix(clean: boolean, valid: fc.Arbitrary<string>, invalid: fc.Arbitrary<string>, invalidWeight = 1): fc.Arbitrary<string> {
  return clean ? valid : fc.oneof({ weight: 6, arbitrary: valid }, { weight: invalidWeight, arbitrary: invalid });
}

export function typeOf(name: string): SetType {
  return POOL.find((s) => s.name === name)?.type ?? 'hash:ip';
}
