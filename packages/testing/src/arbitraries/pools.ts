/**
 * The small realistic pools every arbitrary draws from: members of each kind (canonical
 * and raw spellings), set metadata, pod keys, reference names, owned labels and foreign
 * names, so that generated calls, desired sets and kernel sets collide with each other.
 */
import fc from 'fast-check';
import { entryKey } from '@ipsets/core';
import type { CreateSpec, SetMetadata } from '@ipsets/core';

/** Canonical `hash:net` members (with ` nomatch` variants of the same entries). */
export const NET_MEMBERS: readonly string[] = Object.freeze([
  '10.0.0.1',
  '10.0.0.2',
  '10.0.0.3',
  '10.244.1.7',
  '10.244.2.9',
  '10.0.1.0/24',
  '10.0.1.0/24 nomatch',
  '10.1.0.0/16',
  '10.1.0.0/16 nomatch',
  '172.16.0.0/12',
  '192.168.0.0/24',
]);

/** Non-canonical spellings of {@link NET_MEMBERS} entries (the manager canonicalises them). */
export const RAW_NET_MEMBERS: readonly string[] = Object.freeze(['10.0.0.1/32', '10.1.2.3/16', '10.0.1.77/24 nomatch', '172.20.0.0/12']);

/** Canonical `hash:ip,port` members. */
export const PORT_MEMBERS: readonly string[] = Object.freeze([
  '10.0.0.1,tcp:80',
  '10.0.0.1,udp:53',
  '10.0.0.2,tcp:8080',
  '10.0.0.2,tcp:443',
  '10.0.0.3,sctp:9000',
]);

/** Canonical `hash:net family inet6` members (as `ipset save` prints them). */
export const NET6_MEMBERS: readonly string[] = Object.freeze([
  'fd00::1',
  'fd00::2',
  '2001:db8::/64',
  '2001:db8::/64 nomatch',
  '2001:db8:1::/48',
  '::ffff:10.0.0.1',
  'fd00::/8',
]);

/** Canonical `hash:ip,port family inet6` members. */
export const PORT6_MEMBERS: readonly string[] = Object.freeze(['fd00::1,tcp:80', 'fd00::1,udp:53', 'fd00::2,tcp:8080', 'fd00::3,sctp:9000']);

/** Non-canonical spellings of {@link PORT_MEMBERS} entries (`ip,port` means tcp). */
export const RAW_PORT_MEMBERS: readonly string[] = Object.freeze(['10.0.0.1,80', '10.0.0.2,8080']);

/** Hash sets of `hash:net` kind the manager arbitraries use. */
export const NET_SET_METAS: readonly SetMetadata[] = Object.freeze([
  { name: 'default', type: 'namespace' },
  { name: 'kube-system', type: 'namespace' },
  { name: 'app', type: 'keyLabelOfPod' },
  { name: 'app:web', type: 'keyValueLabelOfPod' },
  { name: 'app:db', type: 'keyValueLabelOfPod' },
  { name: 'policy-in-0', type: 'cidrBlocks' },
]);

/** Named-port sets (`hash:ip,port`). */
export const PORT_SET_METAS: readonly SetMetadata[] = Object.freeze([
  { name: 'http', type: 'namedPorts' },
  { name: 'dns', type: 'namedPorts' },
]);

/** List sets (`list:set`). */
export const LIST_SET_METAS: readonly SetMetadata[] = Object.freeze([
  { name: 'team', type: 'keyLabelOfNamespace' },
  { name: 'team:a', type: 'keyValueLabelOfNamespace' },
  { name: 'app:web:db', type: 'nestedLabelOfPod' },
]);

/** Every set metadata of the pools. */
export const ALL_METAS: readonly SetMetadata[] = [...NET_SET_METAS, ...PORT_SET_METAS, ...LIST_SET_METAS];
/** The hash sets of the pools (no lists). */
export const HASH_METAS: readonly SetMetadata[] = [...NET_SET_METAS, ...PORT_SET_METAS];

/** Pod keys (owners of members). */
export const POD_KEYS: readonly string[] = Object.freeze(['default/web-0', 'default/web-1', 'prod/db-0']);

/** Netpol names of references. */
export const REF_NAMES: readonly string[] = Object.freeze(['default/allow-web', 'prod/deny-all']);

/** Labels whose kernel names make the owned-name pool of desired and kernel states. */
export const OWNED_LABELS: readonly string[] = Object.freeze([
  'ns-default',
  'ns-kube-system',
  'podlabel-app',
  'podlabel-app:web',
  'namedport:http',
  'cidr-policy-in-0',
  'nslabel-team',
  'nestedlabel-app:web:db',
]);

/**
 * Names of sets that belong to someone else. `azure-npm` and `azure-npm4242` are near
 * misses of the default owner prefix `azure-npm-`: a prefix test, not a substring test.
 */
export const FOREIGN_NAMES: readonly string[] = Object.freeze(['KUBE-SVC-X1', 'cali40all-hosts', 'azure-npm', 'azure-npm4242', 'weave-list']);

/** The create specs desired states draw from (both families, both maxelem forms). */
export const SPECS: readonly CreateSpec[] = [
  'nethash',
  'nethash maxelem 4294967295',
  'hash:ip,port',
  'setlist',
  'nethash family inet6',
  'hash:ip,port family inet6',
  'nethash family inet6 maxelem 4294967295',
];

/** One item of `pool`. */
export const pick = <T>(pool: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...pool);
/** Up to `max` distinct items of `pool` in pool order (fewer when the pool is smaller). */
export const upTo = <T>(pool: readonly T[], max: number, min = 0): fc.Arbitrary<T[]> =>
  fc.subarray([...pool], { minLength: Math.min(min, pool.length), maxLength: Math.min(max, pool.length) });
/** One to `max` distinct items of `pool`. */
export const some = <T>(pool: readonly T[], max = 3): fc.Arbitrary<T[]> => upTo(pool, max, 1);

/** `members` without a second spelling of an entry (`m` and `m nomatch` are one entry): the first wins. */
export function uniqueByEntry(members: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of members) {
    const key = entryKey(m);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(m);
  }
  return out;
}
