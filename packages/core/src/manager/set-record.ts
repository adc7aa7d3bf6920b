/**
 * The manager's record of one cached set and the storage of its members: what a set
 * holds (entries and pod keys, or member sets) and who references it. The manager
 * decides what changes (and interns the strings it stores, string-pool.ts); this
 * module only stores it.
 */
import type { MemberSource } from './dirty-cache.js';
import { HashMembers } from './hash-members.js';
import { hasNomatch, stripNomatch } from '../model/members.js';
import type { SetTypeInfo } from '../model/set-types.js';
import type { AddressFamily, SetType } from '../types.js';

/** One cached set. Implements the dirty cache's member view. */
export class IPSet implements MemberSource {
  readonly name: string;
  readonly unprefixedName: string;
  readonly type: SetType;
  readonly info: SetTypeInfo;
  readonly kernelName: string;
  /** Hash sets: the members, each with its pod key (IPv4 hosts as numbers, hash-members.ts). */
  readonly hash: HashMembers | undefined;
  /** Lists: member kernel name → member set, in list order. */
  readonly memberSets: Map<string, IPSet> | undefined;
  selectorRefs: Set<string> | undefined;
  netPolRefs: Set<string> | undefined;
  ipsetReferCount = 0;
  kernelReferCount = 0;
  /** The manager's change count at this set's last dirty-cache operation (a plan basis compares it). */
  changedAt = 0;
  /** The manager's change count when this set's last dirty-cache create entry was recorded. */
  createdAt = 0;
  /** Hash sets: the family a caller named for this set (it then has no sibling of the other family in lists). */
  declaredFamily: AddressFamily | undefined = undefined;
  /**
   * Members removed (or switched to or from ` nomatch`) so far. While it stays the same,
   * the first n members in insertion order are the n members a plan saw.
   */
  removals = 0;

  constructor(name: string, unprefixedName: string, type: SetType, info: SetTypeInfo, kernelName: string) {
    this.name = name;
    this.unprefixedName = unprefixedName;
    this.type = type;
    this.info = info;
    this.kernelName = kernelName;
    this.hash = info.kind === 'set' ? new HashMembers() : undefined;
    this.memberSets = info.kind === 'list' ? new Map() : undefined;
    this.selectorRefs = undefined;
    this.netPolRefs = undefined;
  }

  get usedByNetPol(): boolean {
    return (this.selectorRefs?.size ?? 0) > 0 || (this.netPolRefs?.size ?? 0) > 0;
  }

  get memberCount(): number {
    return this.hash?.size ?? this.memberSets?.size ?? 0;
  }

  forEachMember(fn: (member: string) => void): void {
    if (this.hash !== undefined) this.hash.forEachMember(fn);
    else if (this.memberSets !== undefined) for (const key of this.memberSets.keys()) fn(key);
  }

  hasMember(member: string): boolean {
    if (this.hash !== undefined) {
      const nomatch = hasNomatch(member);
      const slot = this.hash.slotOf(nomatch ? stripNomatch(member) : member);
      return slot >= 0 && this.hash.nomatchAt(slot) === nomatch;
    }
    return this.memberSets !== undefined && this.memberSets.has(member);
  }

  /** Hash sets of IPv4 hosts only (no ` nomatch`): their addresses, in member order (see PlanSetView). */
  plainHosts(): Uint32Array | undefined {
    return this.hash?.plainHosts();
  }
}
