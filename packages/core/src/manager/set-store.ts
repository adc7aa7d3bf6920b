/**
 * The manager's set records and the dirty delta towards the kernel: every change to a
 * record (created, removed, a member or list member added or removed, a reference that
 * puts it in or takes it out of the kernel) is recorded in the dirty cache in the same
 * step, stamped so that a commit can tell which planned sets changed after their plan.
 * The manager validates a call, then makes these transitions; they cannot fail.
 */
import { DirtyCache } from './dirty-cache.js';
import { KernelNameClaims } from './kernel-names.js';
import { IPSet } from './set-record.js';
import { StringPool } from './string-pool.js';
import { isNamespaceList } from './arguments.js';
import type { Resolved } from './arguments.js';
import type { PlanBasis } from './basis.js';
import { NOMATCH, hasNomatch, stripNomatch } from '../model/members.js';
import { kernelName as computeKernelName } from '../model/naming.js';
import { EMPTY_SET, inetNameOfSibling, prefixedName, setTypeInfo } from '../model/set-types.js';
import type { IPSetMode, ReferenceType } from './manager-types.js';
import type { NamingScheme } from '../types.js';

/** Prefixed name of the shared empty set. */
export const EMPTY_PREFIXED = prefixedName(EMPTY_SET);

/** The set records and their dirty delta (see the module documentation). */
export class SetStore {
  readonly sets = new Map<string, IPSet>();
  /**
   * Lists that hold a logical hash set (added without a family), by the prefixed name
   * of its inet set: they also hold its inet6 sibling, whenever that comes to exist.
   */
  readonly logicalLists = new Map<string, Set<IPSet>>();
  readonly dirty: DirtyCache;
  /** Who holds each kernel name, and the claims the next commit settles. */
  readonly claims: KernelNameClaims;
  emptySet: IPSet | undefined;
  /** Counts dirty-cache operations: a plan basis records it, and set records their last one. */
  changes = 0;
  /** {@link changes} when the last plan snapshot was taken (-1: none yet). */
  snapshotAt = -1;
  // Two pools: pod keys repeat in other patterns than members (a file's members share
  // one pod key; an agent's pod brings one key for all its sets), and each pool is on
  // only while it pays (string-pool.ts).
  readonly memberPool = new StringPool(this.sets, 'member');
  readonly podKeyPool = new StringPool(this.sets, 'podKey');
  /** The last member value interned by the running addToSets call, and its pooled copy. */
  lastMember: string | undefined = undefined;
  lastMemberKey = '';

  constructor(
    readonly mode: IPSetMode,
    readonly addEmptySetToLists: boolean,
    readonly owner: string,
    readonly scheme: NamingScheme,
    warn: ((message: string) => void) | undefined,
  ) {
    this.dirty = new DirtyCache(warn);
    this.claims = new KernelNameClaims(this.sets, this.dirty);
  }

  /** Forgets every set, claim and dirty entry. */
  clear(): void {
    this.sets.clear();
    this.claims.clear();
    this.logicalLists.clear();
    this.dirty.clear();
    this.emptySet = undefined;
    this.memberPool.clear();
    this.podKeyPool.clear();
  }

  detachFromList(list: IPSet, member: IPSet): void {
    if (!list.memberSets!.has(member.kernelName)) return;
    const listInKernel = this.shouldBeInKernel(list);
    list.memberSets!.delete(member.kernelName);
    list.removals++;
    member.ipsetReferCount = Math.max(0, member.ipsetReferCount - 1);
    if (listInKernel) {
      this.dDeleteMember(list, member.kernelName);
      this.releaseKernelReference(member);
    }
  }

  addReferenceTo(set: IPSet, refName: string, refType: ReferenceType): void {
    const wasInKernel = this.shouldBeInKernel(set);
    if (refType === 'selector') (set.selectorRefs ??= new Set()).add(refName);
    else (set.netPolRefs ??= new Set()).add(refName);
    if (!wasInKernel && this.shouldBeInKernel(set)) {
      this.dCreate(set);
      for (const member of set.memberSets?.values() ?? []) this.takeKernelReference(member);
    }
  }

  deleteReferenceFrom(set: IPSet, refName: string, refType: ReferenceType): void {
    const wasInKernel = this.shouldBeInKernel(set);
    if (refType === 'selector') set.selectorRefs?.delete(refName);
    else set.netPolRefs?.delete(refName);
    if (wasInKernel && !this.shouldBeInKernel(set)) {
      this.dDestroy(set);
      for (const member of set.memberSets?.values() ?? []) this.releaseKernelReference(member);
    }
  }

  shouldBeInKernel(set: IPSet): boolean {
    return this.mode === 'all' || set === this.emptySet || set.usedByNetPol || set.kernelReferCount > 0;
  }

  canBeForceDeleted(set: IPSet): boolean {
    return !set.usedByNetPol && set.ipsetReferCount === 0;
  }

  canBeDeleted(set: IPSet): boolean {
    if (!this.canBeForceDeleted(set)) return false;
    if (set.hash !== undefined) return set.hash.size === 0;
    const members = set.memberSets!;
    if (members.size === 0) return true;
    if (members.size > 1 || this.emptySet === undefined) return false;
    return members.has(this.emptySet.kernelName);
  }

  /**
   * At a commit: a cancelled set that the committed plan held may now exist in the
   * kernel under a name another set took since. The destroy the report settles for it
   * would destroy that set, so it is dropped, and the set that holds the name now is
   * rebuilt (its kernel contents are unknown).
   */
  settleReclaimed(basis: PlanBasis): void {
    for (const [name, kernelName] of this.claims.cancelled) {
      const owner = this.claims.ownerOf(kernelName);
      if (owner === undefined || owner === name || !basis.planned.has(name)) continue;
      if (this.dirty.get(name)?.kernelName === kernelName) this.dirty.forget(name);
      const set = this.sets.get(owner);
      if (set === undefined) continue;
      set.changedAt = ++this.changes;
      this.dirty.markUnknown(set.name, kernelName, this.shouldBeInKernel(set));
    }
  }

  /** The reference's `createAndGetIPSet` after validation (cannot fail). */
  getOrCreate(r: Resolved): IPSet {
    const existing = this.sets.get(r.prefixed);
    if (existing !== undefined) return existing;
    const set = new IPSet(r.prefixed, r.meta.name, r.meta.type, r.info, r.kernelName);
    if (set.info.family === 'inet6') {
      const base = this.sets.get(inetNameOfSibling(set.name));
      if (base?.selectorRefs !== undefined && base.selectorRefs.size > 0) set.selectorRefs = new Set(base.selectorRefs);
      if (base?.netPolRefs !== undefined && base.netPolRefs.size > 0) set.netPolRefs = new Set(base.netPolRefs);
    }
    this.sets.set(set.name, set);
    this.claims.take(set);
    if (this.mode === 'all' || this.shouldBeInKernel(set)) this.dCreate(set);
    if (set.type === EMPTY_SET.type && set.name === EMPTY_PREFIXED && this.addEmptySetToLists && this.emptySet === undefined) {
      this.emptySet = set;
      this.dCreate(set);
    }
    if (this.addEmptySetToLists && isNamespaceList(set.type)) {
      const empty = this.ensureEmptySet();
      if (!set.memberSets!.has(empty.kernelName)) this.addMemberToList(set, empty);
    }
    if (set.info.family === 'inet6') {
      const holders = this.logicalLists.get(inetNameOfSibling(set.name));
      for (const list of holders ?? []) {
        if (this.sets.get(list.name) === list && !list.memberSets!.has(set.kernelName)) this.addMemberToList(list, set);
      }
    }
    return set;
  }

  ensureEmptySet(): IPSet {
    if (this.emptySet !== undefined) return this.emptySet;
    const set =
      this.sets.get(EMPTY_PREFIXED) ??
      this.getOrCreate({
        meta: EMPTY_SET,
        prefixed: EMPTY_PREFIXED,
        info: setTypeInfo(EMPTY_SET.type),
        kernelName: computeKernelName(EMPTY_PREFIXED, { owner: this.owner, scheme: this.scheme }),
      });
    // The empty set is always in the kernel, in both modes (docs/reference-behaviour.md §b.3 step 5).
    this.emptySet = set;
    this.dCreate(set);
    return set;
  }

  addMemberTo(set: IPSet, member: string, podKey: string): void {
    const members = set.hash!;
    const nomatch = hasNomatch(member);
    const key = nomatch ? stripNomatch(member) : member;
    const slot = members.slotOf(key);
    if (slot < 0) {
      // Only a new entry takes a string, and only one kept as text (an existing one keeps its own).
      members.add(key, nomatch, podKey, this.keepMember);
      if (this.shouldBeInKernel(set)) this.dAddMember(set, member);
      return;
    }
    if (members.podAt(slot) !== podKey) {
      members.setPod(slot, podKey);
      this.podKeyPool.noteDropped();
    }
    const wasNomatch = members.nomatchAt(slot);
    if (wasNomatch === nomatch) return;
    // One kernel entry, two spellings: switching the flag is a delete then an add.
    set.removals++;
    members.setNomatch(slot, nomatch);
    if (this.shouldBeInKernel(set)) {
      this.dDeleteMember(set, wasNomatch ? key + NOMATCH : key);
      this.dAddMember(set, member);
    }
  }

  removeMemberFrom(set: IPSet, member: string, podKey: string): void {
    const members = set.hash!;
    const nomatch = hasNomatch(member);
    const slot = members.slotOf(nomatch ? stripNomatch(member) : member);
    if (slot < 0 || members.nomatchAt(slot) !== nomatch || members.podAt(slot) !== podKey) return;
    if (members.remove(slot)) this.memberPool.noteDropped();
    this.podKeyPool.noteDropped();
    set.removals++;
    if (this.shouldBeInKernel(set)) this.dDeleteMember(set, member);
  }

  addMemberToList(list: IPSet, member: IPSet): void {
    list.memberSets!.set(member.kernelName, member);
    member.ipsetReferCount++;
    if (this.shouldBeInKernel(list)) {
      this.dAddMember(list, member.kernelName);
      this.takeKernelReference(member);
    }
  }

  takeKernelReference(member: IPSet): void {
    const wasInKernel = this.shouldBeInKernel(member);
    member.kernelReferCount++;
    if (!wasInKernel) this.dCreate(member);
  }

  releaseKernelReference(member: IPSet): void {
    const wasInKernel = this.shouldBeInKernel(member);
    member.kernelReferCount = Math.max(0, member.kernelReferCount - 1);
    if (wasInKernel && !this.shouldBeInKernel(member)) this.dDestroy(member);
  }

  removeSet(set: IPSet): void {
    const inKernel = this.shouldBeInKernel(set);
    if (inKernel) this.dDestroy(set);
    this.sets.delete(set.name);
    if (set.hash !== undefined && set.hash.size > 0) {
      this.memberPool.noteDropped(set.hash.textCount);
      this.podKeyPool.noteDropped(set.hash.size);
    }
    if (set.memberSets !== undefined) {
      // The reference leaves these counts behind, so former members can never be deleted (docs/reference-behaviour.md §g.2.6).
      for (const member of set.memberSets.values()) {
        this.logicalLists.get(member.name)?.delete(set);
        member.ipsetReferCount = Math.max(0, member.ipsetReferCount - 1);
        if (inKernel) this.releaseKernelReference(member);
      }
    }
    this.claims.releaseIdle(set.name, set.kernelName);
  }

  /** {@link internMember}, for a set's members to keep a text entry with. */
  readonly keepMember = (value: string): string => this.internMember(value);

  /** The pooled copy of a member, looked up once per call however many sets it goes to. */
  internMember(value: string): string {
    if (value === this.lastMember) return this.lastMemberKey;
    const key = this.memberPool.intern(value);
    this.lastMember = value;
    this.lastMemberKey = key;
    return key;
  }

  // Dirty-cache operations also stamp the set record, so that a commit can tell which
  // planned sets changed after their plan's snapshot.

  dCreate(set: IPSet): void {
    const fresh = this.dirty.get(set.name) === undefined;
    set.changedAt = ++this.changes;
    if (fresh) set.createdAt = set.changedAt;
    if (fresh && this.claims.reclaimed.has(set.name)) this.dirty.markUnknown(set.name, set.kernelName, true);
    else this.dirty.create(set.name, set.kernelName, set);
  }

  dDestroy(set: IPSet): void {
    const planned = this.dirty.get(set.name)?.state === 'create';
    set.changedAt = ++this.changes;
    this.dirty.destroy(set.name, set.kernelName, set);
    // A create cancelled before any commit may be in flight in a plan made since it was recorded.
    if (planned && this.dirty.get(set.name) === undefined && this.snapshotAt >= set.createdAt) this.claims.cancelled.set(set.name, set.kernelName);
  }

  dAddMember(set: IPSet, member: string): void {
    set.changedAt = ++this.changes;
    this.dirty.addMember(set.name, set.kernelName, set, member);
  }

  dDeleteMember(set: IPSet, member: string): void {
    set.changedAt = ++this.changes;
    this.dirty.deleteMember(set.name, set.kernelName, member);
  }
}
