/**
 * A hash set's members checked once, in bulk: canonical, one per kernel entry, and
 * routed to the set's address families (a set without a family sends IPv6 members to
 * its inet6 sibling, as the manager's `addToSets` does). `buildDesiredState`
 * takes a `SetMembers` as it is and checks a plain list itself.
 */
import { IpsetsError, isIpsetsError, quote } from '../errors.js';
import { canonicalMember, entryKey, hostValue, memberFamily } from '../model/members.js';
import { HostTable, HostTablePool } from '../model/host-table.js';
import { NOMATCH_FLAG } from '../model/ipv4-host.js';
import { prefixedName, setTypeInfo } from '../model/set-types.js';
import type { AddressFamily, SetMetadata, SetType } from '../types.js';

/**
 * Receives one problem of {@link SetMembers.check}: the member's index in the list and
 * the error (`details.reason` is `same-entry` for a second spelling of an earlier
 * member's kernel entry, `details.earlier` that spelling). Returns false to stop checking.
 */
export type MemberProblemHandler = (index: number, error: IpsetsError) => boolean;

/**
 * The members of one hash set, checked once: canonical, one per kernel entry, and
 * split by family (a set without a family sends IPv6 members to its inet6 sibling).
 * Made by {@link SetMembers.check}; `buildDesiredState` takes them unchecked.
 */
export class SetMembers {
  private constructor(
    /** The set's type. */
    readonly type: SetType,
    /** The set's declared family, if any. */
    readonly family: AddressFamily | undefined,
    /** Every member, canonical, in list order (first occurrence of each kernel entry). */
    readonly all: readonly string[],
    /** The members of the set's inet kernel set. */
    readonly inet: readonly string[],
    /** The members of the set's inet6 kernel set (the sibling of a set without a family). */
    readonly inet6: readonly string[],
    /**
     * A hash:net set whose inet members are all plain IPv4 hosts (no ` nomatch`): their
     * addresses, in the order of {@link inet}; `undefined` otherwise. `buildDesiredState`
     * hands such a set out with its members as numbers.
     */
    readonly inetHosts: Uint32Array | undefined = undefined,
  ) {}

  /**
   * Checks `members` for the hash set `meta`. Without `onProblem`, the first bad member
   * throws (as the manager's `addToSets` would, with `details.memberIndex`), and a second spelling of a kernel entry
   * (`10.0.0.0/8` then `10.0.0.0/8 nomatch`) replaces the first in its place, as a second
   * `addToSets` does. With `onProblem`, every bad member and every second spelling is
   * reported to it and left out, until it returns false. Exact repeats are dropped.
   *
   * @throws IpsetsError `INVALID_SET_TYPE` (not a hash set), `INVALID_SET_NAME`, `INVALID_MEMBER`.
   */
  static check(meta: SetMetadata, members: readonly unknown[], onProblem?: MemberProblemHandler): SetMembers {
    // The type and family decide the check; the name is only quoted in messages.
    const info = setTypeInfo(meta.type, meta.family);
    if (info.kind !== 'set') {
      throw new IpsetsError('INVALID_SET_TYPE', `cannot add members to ipset ${quote(prefixedName(meta))}: it is not a hash set (type ${meta.type} is a list)`, {
        details: { set: prefixedName(meta), type: meta.type },
      });
    }
    const kind = info.kernelType === 'hash:ip,port' ? 'hash:ip,port' : 'hash:net';
    const declared = meta.family;
    const all: string[] = [];
    // Kernel entries seen, with 1 + the index of their member in `all`: IPv4 hosts (most
    // members of a real state) by address in a table of numbers, the rest by entry text.
    const hosts = kind === 'hash:net' ? new HostTable(members.length, new HostTablePool(0)) : undefined;
    const seen = new Map<string, number>();
    let inet6 = 0;
    // The addresses of the members so far, while every one is a plain host.
    let addresses: Uint32Array | undefined = hosts === undefined ? undefined : new Uint32Array(members.length);
    // One plain loop, nothing made per member but its canonical string (and the entry of
    // a member that is not a host): this runs once per member (1,000,000 in a node-sized
    // desired file).
    for (let j = 0; j < members.length; j++) {
      const member = members[j];
      // A canonical IPv4 host (the bulk of every real state) is its own canonical form:
      // it is read once, for its address. Anything else is canonicalised first.
      let host = hosts !== undefined && declared !== 'inet6' && typeof member === 'string' ? hostValue(member) : -1;
      let canonical: string;
      let family: AddressFamily = 'inet';
      if (host >= 0) canonical = member as string;
      else {
        try {
          if (typeof member !== 'string') {
            throw new IpsetsError('INVALID_MEMBER', `Invalid member ${quote(member)}; expected a string.`, { details: { member } });
          }
          family = declared ?? memberFamily(member);
          canonical = canonicalMember(kind, member, family);
        } catch (error) {
          if (!isIpsetsError(error)) throw error;
          if (onProblem === undefined) throw memberError(meta, kind, member, j, error);
          if (!onProblem(j, error)) break;
          continue;
        }
        if (hosts !== undefined && family === 'inet') host = hostValue(canonical);
      }
      let earlier: number | undefined;
      if (host < 0) {
        const entry = entryKey(canonical);
        earlier = seen.get(entry);
        if (earlier === undefined) seen.set(entry, all.length);
      } else {
        const at = hosts!.insertIfAbsent(host >= NOMATCH_FLAG ? host - NOMATCH_FLAG : host, all.length + 1);
        earlier = at === 0 ? undefined : at - 1;
      }
      if (earlier !== undefined) {
        const first = all[earlier]!;
        if (first === canonical) continue;
        // A second spelling of an entry: rare, so the members stay strings.
        addresses = undefined;
        if (onProblem === undefined) all[earlier] = canonical;
        else if (!onProblem(j, sameEntryError(meta, member as string, first))) break;
        continue;
      }
      if (family === 'inet6') inet6++;
      if (addresses !== undefined) {
        if (host >= 0 && host < NOMATCH_FLAG) addresses[all.length] = host;
        else addresses = undefined;
      }
      all.push(canonical);
    }
    if (declared === 'inet6') return new SetMembers(meta.type, declared, all, [], all);
    if (declared === 'inet' || inet6 === 0) return new SetMembers(meta.type, declared, all, all, [], addresses?.subarray(0, all.length));
    const inetMembers: string[] = [];
    const inet6Members: string[] = [];
    for (let j = 0; j < all.length; j++) {
      const member = all[j]!;
      if (memberFamily(member) === 'inet6') inet6Members.push(member);
      else inetMembers.push(member);
    }
    return new SetMembers(meta.type, declared, all, inetMembers, inet6Members);
  }

  /** True when these are the checked members of a set of `meta`'s type and family. */
  fits(meta: SetMetadata): boolean {
    return meta.type === this.type && meta.family === this.family;
  }
}

/** The manager's message for a bad member: which set refused it, and why. */
function memberError(meta: SetMetadata, kind: string, member: unknown, memberIndex: number, error: IpsetsError): IpsetsError {
  const set = prefixedName(meta);
  return new IpsetsError(error.code, `cannot add ${quote(member)} to ipset ${quote(set)} (type ${meta.type}, ${kind}): ${error.message}`, {
    cause: error,
    details: { ...error.details, set, operation: 'add', memberIndex },
  });
}

function sameEntryError(meta: SetMetadata, member: string, earlier: string): IpsetsError {
  const set = prefixedName(meta);
  return new IpsetsError('INVALID_MEMBER', `member ${quote(member)} of ipset ${quote(set)} is the same kernel entry as ${quote(earlier)}; expected one of them (nomatch is an attribute of the entry)`, {
    details: { member, set, reason: 'same-entry', earlier },
  });
}
