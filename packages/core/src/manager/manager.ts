/**
 * The IPSet manager (docs/reference-behaviour.md §b–§c): the desired sets, their
 * members and references, and the dirty delta that the next apply must send to the
 * kernel. Pure and synchronous; planners turn its state into restore plans.
 *
 * Beyond the reference:
 * - every call validates everything (types, names, members, references, kernel-name
 *   collisions) before it changes anything: a call that throws changed nothing (docs/reference-behaviour.md §g.2.7);
 * - members are canonicalised and checked against the set's kind (docs/reference-behaviour.md §g.2.9, §g.2.10);
 * - asking for an existing set as another type is an error (docs/reference-behaviour.md §g.2.8);
 * - deleting a list releases its members' reference counts (docs/reference-behaviour.md §g.2.6);
 * - re-creating a set that is pending destruction diffs against its current members (docs/reference-behaviour.md §g.2.5);
 * - `getIPSet` returns a frozen snapshot (docs/reference-behaviour.md §g.2.17);
 * - `commit(report)` clears only what reached the kernel (docs/reference-behaviour.md §g.2.1).
 *
 * Why one file: it is the manager's public contract and nothing else: each method
 * checks its arguments and then delegates, and most of its lines are the documentation
 * of what each call does. The parts live
 * beside it: `resolver.ts` (reading set metadata: names, kernel-name claims),
 * `set-store.ts` (the set records and their dirty delta), `kernel-names.ts` (who holds
 * which kernel name), `arguments.ts` (argument and kind rules), `failures.ts` (the
 * failure count), `reading.ts` (snapshots), `basis.ts` (plan bases and commits),
 * `dirty-cache.ts`, `string-pool.ts`, and `bulk.ts` (a whole desired state at once).
 */
import type { SetCapacity } from '../model/capacity.js';
import { IpsetsError, quote } from '../errors.js';
import { memberFamily } from '../model/members.js';
import { DEFAULT_NAMING_SCHEME, DEFAULT_OWNER, validateOwner } from '../model/naming.js';
import { EMPTY_SET, inet6SiblingName } from '../model/set-types.js';
import type { IPSet } from './set-record.js';
import { PlanBasis, plannedSet, settleReport } from './basis.js';
import type { DirtySnapshot, PlannedSet, SettleTarget } from './basis.js';
import {
  checkDeleteOption,
  checkMode,
  checkPodKey,
  checkReference,
  checkReferenceFits,
  isNamespaceList,
  memberFor,
  requireHashSet,
  requireList,
  requireMemberSet,
  routed,
  validateTypeCapacity,
} from './arguments.js';
import { FailureCount } from './failures.js';
import { SetResolver } from './resolver.js';
import { EMPTY_PREFIXED, SetStore } from './set-store.js';
import { desiredSetOf, snapshotOf } from './reading.js';
import type { Resolved } from './arguments.js';
import type { CommitResult, DeleteOption, DirtySetInfo, IPSetManagerConfig, IPSetMode, IPSetSnapshot, ReferenceType } from './manager-types.js';
import type { ApplyReport, DesiredSet, DesiredState, NamingScheme, SetMetadata, SetType } from '../types.js';

export type { CommitResult, DeleteOption, DirtySetInfo, IPSetManagerConfig, IPSetMode, IPSetSnapshot, ReferenceType } from './manager-types.js';

export { DEFAULT_MAX_FAILURES } from './failures.js';

const NO_CAPACITY: SetCapacity = Object.freeze({});

/** One set of {@link IPSetManager.desiredState}, kept while its record's `changedAt` and its capacity stay. */
interface DesiredSetEntry {
  readonly changedAt: number;
  readonly capacity: SetCapacity | undefined;
  readonly set: DesiredSet;
}

/**
 * The IPSet manager: desired sets and the dirty delta towards the kernel (see the
 * module documentation). Method names follow the reference (`CreateIPSets` → `createIPSets` …).
 *
 * Every method either throws an {@link IpsetsError} and changes nothing, or succeeds.
 */
export class IPSetManager {
  /** `all` or `on-need`. */
  readonly mode: IPSetMode;
  /** Whether namespace-label lists get the shared empty set. */
  readonly addEmptySetToLists: boolean;
  /** Owner prefix of kernel names. */
  readonly owner: string;
  /** Kernel naming scheme. */
  readonly scheme: NamingScheme;
  /** Limit of {@link recordApplyResult}. */
  readonly maxConsecutiveFailures: number;

  /** The set records and their dirty delta. */
  private readonly store: SetStore;
  /** Reads set metadata: validated, named, checked against the cache, kernel names claimed. */
  private readonly names: SetResolver;
  private readonly warn: ((message: string) => void) | undefined;
  private readonly capacity: ReadonlyMap<SetType, SetCapacity>;
  /** The sets of the last {@link desiredState}, each with the set record's changedAt and capacity it was made at. */
  private desiredSets = new Map<IPSet, DesiredSetEntry>();
  /** Counts commits and resets: a basis made before the last one is stale. */
  private epoch = 0;
  /** Identity of this manager in the bases it makes. */
  private readonly identity: object = Object.freeze({});
  /** What a commit settles reports against (made once). */
  private settleTarget: SettleTarget | undefined;
  private readonly failures: FailureCount;

  constructor(config: IPSetManagerConfig = {}) {
    this.mode = checkMode(config.mode);
    const scheme = config.scheme ?? DEFAULT_NAMING_SCHEME;
    const owner = config.owner ?? DEFAULT_OWNER;
    validateOwner(owner, scheme);
    this.failures = new FailureCount(config.maxConsecutiveFailures);
    this.addEmptySetToLists = config.addEmptySetToLists ?? false;
    this.owner = owner;
    this.scheme = scheme;
    this.maxConsecutiveFailures = this.failures.limit;
    this.warn = config.onWarning;
    this.store = new SetStore(this.mode, this.addEmptySetToLists, owner, scheme, this.warn);
    this.names = new SetResolver(this.store.sets, this.store.claims, owner, scheme);
    this.capacity = validateTypeCapacity(config.capacity);
  }

  // -------------------------------------------------------------------------
  // Creating and deleting sets

  /**
   * Creates the sets that do not exist yet (docs/reference-behaviour.md §b.4). Existing sets are left as they
   * are. Unlike the reference, an invalid metadata or a kernel-name collision throws and
   * nothing is created.
   *
   * @throws IpsetsError `INVALID_SET_TYPE`, `INVALID_SET_NAME`, `KERNEL_NAME_COLLISION`.
   */
  createIPSets(metas: readonly SetMetadata[]): void {
    const claims = new Map<string, string>();
    const resolved = metas.map((meta) => this.names.resolve(meta, claims));
    this.resolveEmptySetFor(resolved, claims);
    for (const r of resolved) this.declare(this.store.getOrCreate(r), r.meta);
  }

  /**
   * Deletes a set from the cache (docs/reference-behaviour.md §b.5) if it is unused: `force` needs no netpol
   * references and no list holding it; `soft` also needs it to be empty (or hold only
   * the shared empty set). Unknown names and the shared empty set are ignored. In mode
   * `all` the set is destroyed at the next apply. Deleting a list releases its members'
   * reference counts (the reference leaks them, docs/reference-behaviour.md §g.2.6).
   *
   * @returns true when the set was deleted.
   */
  deleteIPSet(prefixedName: string, option: DeleteOption = 'soft'): boolean {
    checkDeleteOption(option);
    // Deleting a logical set deletes its inet6 sibling too (on the same terms).
    const sibling = this.store.sets.get(inet6SiblingName(prefixedName));
    if (sibling !== undefined && sibling.info.family === 'inet6') this.deleteIPSet(sibling.name, option);
    const set = this.store.sets.get(prefixedName);
    if (set === undefined || set === this.store.emptySet) return false;
    if (!(option === 'force' ? this.store.canBeForceDeleted(set) : this.store.canBeDeleted(set))) return false;
    this.store.removeSet(set);
    return true;
  }

  /**
   * Soft-deletes every set that can be deleted (docs/reference-behaviour.md §b.13) and returns their prefixed
   * names, in creation order. One pass suffices: a soft-deletable list holds at most
   * the shared empty set, which is never deleted.
   */
  reconcile(): string[] {
    const deleted: string[] = [];
    for (const set of [...this.store.sets.values()]) {
      if (set !== this.store.emptySet && this.store.canBeDeleted(set)) {
        this.store.removeSet(set);
        deleted.push(set.name);
      }
    }
    return deleted;
  }

  /** Forgets every set and the dirty delta (after a kernel reset, docs/reference-behaviour.md §b.15), and the failure count. */
  reset(): void {
    this.store.clear();
    this.desiredSets = new Map();
    this.epoch++;
    this.failures.count = 0;
  }

  // -------------------------------------------------------------------------
  // Members

  /**
   * Adds `member` with owner `podKey` to every set of `metas`, creating missing sets
   * (docs/reference-behaviour.md §b.9). A member already present gets the new pod key (ownership transfer).
   * The member is canonicalised for each set's kind (`hash:net` or `hash:ip,port`) and
   * everything is validated before anything changes.
   *
   * @throws IpsetsError `INVALID_MEMBER` (bad member or wrong form for a set's kind),
   *   `INVALID_SET_TYPE` (a list, or the empty set), `INVALID_SET_NAME`, `KERNEL_NAME_COLLISION`.
   */
  addToSets(metas: readonly SetMetadata[], member: string, podKey: string): void {
    if (metas.length === 0) return;
    checkPodKey(podKey);
    const claims = new Map<string, string>();
    const family = typeof member === 'string' ? memberFamily(member) : 'inet';
    const resolved = metas.map((meta) => this.names.resolve(routed(meta, family), claims));
    const canon = resolved.map((r) => {
      requireHashSet(r, 'add members to');
      if (r.meta.type === 'emptyHashSet') {
        throw new IpsetsError(
          'INVALID_SET_TYPE',
          `cannot add ${quote(member)} to ipset ${quote(r.prefixed)}: an emptyHashSet must stay empty`,
          { details: { set: r.prefixed, member } },
        );
      }
      return memberFor(r, member, 'add', 'to');
    });
    const pod = this.store.podKeyPool.intern(podKey);
    resolved.forEach((r, i) => this.store.addMemberTo(this.declare(this.store.getOrCreate(r), metas[i]!), canon[i]!, pod));
    this.store.lastMember = undefined;
    this.store.lastMemberKey = '';
  }

  /**
   * Removes `member` from every existing set of `metas` whose copy of it is owned by
   * `podKey` (docs/reference-behaviour.md §b.10); a different owner means the remove is stale and is ignored,
   * and so is a member that is not there (`10.0.0.0/8` and `10.0.0.0/8 nomatch` are
   * different members). Validates everything first.
   *
   * @throws IpsetsError `INVALID_MEMBER` (with "remove" in the message; the reference says
   *   "add", docs/reference-behaviour.md §g.2.15), `INVALID_SET_TYPE`, `INVALID_SET_NAME`.
   */
  removeFromSets(metas: readonly SetMetadata[], member: string, podKey: string): void {
    if (metas.length === 0) return;
    checkPodKey(podKey);
    const family = typeof member === 'string' ? memberFamily(member) : 'inet';
    const checked = metas.map((meta) => {
      const r = this.names.lookup(routed(meta, family));
      requireHashSet(r, 'remove members from');
      return { r, member: memberFor(r, member, 'remove', 'from') };
    });
    for (const { r, member: canon } of checked) {
      const set = this.store.sets.get(r.prefixed);
      if (set !== undefined) this.store.removeMemberFrom(set, canon, podKey);
    }
  }

  /**
   * Adds every set of `setMetas` to every list of `listMetas`, creating missing sets
   * (docs/reference-behaviour.md §b.11). Validates everything first.
   *
   * @throws IpsetsError `INVALID_SET_TYPE` (a list in `setMetas` — lists cannot nest —
   *   or a hash set in `listMetas`), `INVALID_SET_NAME`, `KERNEL_NAME_COLLISION`.
   */
  addToLists(listMetas: readonly SetMetadata[], setMetas: readonly SetMetadata[]): void {
    if (listMetas.length === 0 || setMetas.length === 0) return;
    const claims = new Map<string, string>();
    const members = setMetas.map((meta) => {
      const r = this.names.resolve(this.names.singleFamily(meta), claims);
      requireMemberSet(r);
      return r;
    });
    const lists = listMetas.map((meta) => {
      const r = this.names.resolve(meta, claims);
      requireList(r);
      return r;
    });
    this.resolveEmptySetFor(lists, claims);
    const memberSets = members.map((r) => this.store.getOrCreate(r));
    for (const r of lists) {
      const list = this.store.getOrCreate(r);
      memberSets.forEach((member, i) => {
        if (!list.memberSets!.has(member.kernelName)) this.store.addMemberToList(list, member);
        // A logical member brings its inet6 sibling along, now or when it is created.
        if (members[i]!.meta.family !== undefined || member.info.family !== 'inet' || member === this.store.emptySet) return;
        let holders = this.store.logicalLists.get(member.name);
        if (holders === undefined) this.store.logicalLists.set(member.name, (holders = new Set()));
        holders.add(list);
        const sibling = this.store.sets.get(inet6SiblingName(member.name));
        if (sibling !== undefined && !list.memberSets!.has(sibling.kernelName)) this.store.addMemberToList(list, sibling);
      });
    }
  }

  /**
   * Removes the sets of `setMetas` from the list `listMeta` (docs/reference-behaviour.md §b.12). A missing list
   * or member is ignored; the shared empty set is never removed. Validates everything first.
   *
   * @throws IpsetsError `INVALID_SET_TYPE`, `INVALID_SET_NAME`.
   */
  removeFromList(listMeta: SetMetadata, setMetas: readonly SetMetadata[]): void {
    if (setMetas.length === 0) return;
    const listRef = this.names.lookup(listMeta);
    requireList(listRef);
    const memberRefs = setMetas.map((meta) => {
      const r = this.names.lookup(meta);
      requireMemberSet(r);
      return r;
    });
    const list = this.store.sets.get(listRef.prefixed);
    if (list === undefined) return;
    for (const r of memberRefs) {
      if (this.addEmptySetToLists && r.prefixed === EMPTY_PREFIXED) {
        this.warn?.(`cannot remove the empty set from list ${list.name}: every namespace label list holds it`);
        continue;
      }
      if (r.meta.family === undefined) {
        // The logical set: its inet6 sibling leaves the list with it.
        this.store.logicalLists.get(r.prefixed)?.delete(list);
        const sibling = this.store.sets.get(inet6SiblingName(r.prefixed));
        if (sibling !== undefined) this.store.detachFromList(list, sibling);
      }
      const member = this.store.sets.get(r.prefixed);
      if (member !== undefined) this.store.detachFromList(list, member);
    }
  }

  // -------------------------------------------------------------------------
  // References

  /**
   * Records that netpol `refName` uses the set (docs/reference-behaviour.md §b.7), creating it if missing.
   * In mode `on-need` a set that gains its first reason to be in the kernel is created
   * there, with its list members. Validates before creating anything (the reference creates
   * the set even when the reference is then refused).
   *
   * @throws IpsetsError `INVALID_REFERENCE` (selector on a type that cannot select; a
   *   second netpol on a CIDR set), `INVALID_SET_TYPE`, `INVALID_SET_NAME`,
   *   `KERNEL_NAME_COLLISION`, `INVALID_ARGUMENT`.
   */
  addReference(meta: SetMetadata, refName: string, refType: ReferenceType): void {
    checkReference(refName, refType);
    const claims = new Map<string, string>();
    const r = this.names.resolve(meta, claims);
    checkReferenceFits(r, this.store.sets.get(r.prefixed), refName, refType);
    this.resolveEmptySetFor([r], claims);
    const set = this.declare(this.store.getOrCreate(r), meta);
    this.store.addReferenceTo(set, refName, refType);
    // A logical set's inet6 sibling carries the same references (an inet6 sibling made
    // later copies them when it is created).
    const sibling = meta.family === undefined ? this.store.sets.get(inet6SiblingName(set.name)) : undefined;
    if (sibling !== undefined) this.store.addReferenceTo(sibling, refName, refType);
  }

  /**
   * Removes netpol `refName`'s reference (docs/reference-behaviour.md §b.8); removing an absent reference is
   * fine. In mode `on-need` a set that loses its last reason to be in the kernel is
   * destroyed there (it stays in the cache until {@link reconcile} or {@link deleteIPSet}).
   *
   * @throws IpsetsError `SET_NOT_FOUND` when the set does not exist, `INVALID_ARGUMENT`.
   */
  deleteReference(prefixedName: string, refName: string, refType: ReferenceType): void {
    checkReference(refName, refType);
    const set = this.store.sets.get(prefixedName);
    if (set === undefined) {
      throw new IpsetsError(
        'SET_NOT_FOUND',
        `cannot delete ${refType} reference ${quote(refName)}: ipset ${quote(prefixedName)} does not exist`,
        { details: { set: prefixedName, refName, refType } },
      );
    }
    this.store.deleteReferenceFrom(set, refName, refType);
    const sibling = this.store.sets.get(inet6SiblingName(prefixedName));
    if (sibling !== undefined && sibling.info.family === 'inet6') this.store.deleteReferenceFrom(sibling, refName, refType);
  }

  // -------------------------------------------------------------------------
  // Reading

  /** A frozen snapshot of the set, or `undefined` (the reference hands out the live object, docs/reference-behaviour.md §g.2.17). */
  getIPSet(prefixedName: string): IPSetSnapshot | undefined {
    const set = this.store.sets.get(prefixedName);
    return set === undefined ? undefined : snapshotOf(set, this.store.shouldBeInKernel(set));
  }

  /** Kernel name → prefixed name of every cached set, in creation order (docs/reference-behaviour.md §b.6). */
  getAllIPSets(): Map<string, string> {
    const all = new Map<string, string>();
    for (const set of this.store.sets.values()) all.set(set.kernelName, set.name);
    return all;
  }

  /** True when a set with this prefixed name is cached. */
  hasIPSet(prefixedName: string): boolean {
    return this.store.sets.has(prefixedName);
  }

  /** Number of cached sets. */
  get size(): number {
    return this.store.sets.size;
  }

  /**
   * Every set that should be in the kernel, with its canonical members (lists: member
   * kernel names in list order), in creation order. Each set is a frozen object, members
   * too, and a set that has not changed since the last call is the very same object as
   * then (a `PreparedDesiredState` made with the last one as `previous` checks only the others).
   */
  desiredState(): DesiredState {
    const sets: DesiredSet[] = [];
    const next = new Map<IPSet, DesiredSetEntry>();
    for (const set of this.store.sets.values()) {
      if (!this.store.shouldBeInKernel(set)) continue;
      const capacity = this.capacity.get(set.type);
      const last = this.desiredSets.get(set);
      // Every change of a set in the kernel, and its entering or leaving it, moves its changedAt (set-store.ts).
      const entry = last !== undefined && last.changedAt === set.changedAt && last.capacity === capacity ? last : { changedAt: set.changedAt, capacity, set: desiredSetOf(set, capacity) };
      next.set(set, entry);
      sets.push(entry.set);
    }
    this.desiredSets = next;
    return { owner: this.owner, sets };
  }

  /** The dirty sets in plan order. */
  dirtySets(): DirtySetInfo[] {
    return [...this.store.dirty.values()].map((e) => ({ name: e.name, kernelName: e.kernelName, state: e.state, unknown: e.unknown || e.fragile }));
  }

  /** True when the next apply has something to do. */
  get hasDirtyChanges(): boolean {
    return this.store.dirty.size > 0;
  }

  // -------------------------------------------------------------------------
  // After an apply

  /**
   * The dirty state as planners read it: the dirty entries in plan order, the sets,
   * their capacity, and the basis to put on the plan (see {@link DirtySnapshot}).
   * Changes nothing: a plan made for a preview leaves every other plan committable.
   */
  dirtySnapshot(): DirtySnapshot {
    const entries = [...this.store.dirty.values()];
    const planned = new Map<string, PlannedSet>();
    for (const e of entries) planned.set(e.name, plannedSet(e, this.store.sets.get(e.name)));
    this.store.snapshotAt = this.store.changes;
    return {
      basis: new PlanBasis(this.identity, this.epoch, this.store.changes, planned),
      owner: this.owner,
      entries,
      set: (name) => this.store.sets.get(name),
      capacity: (type) => this.capacity.get(type) ?? NO_CAPACITY,
    };
  }

  /**
   * Takes the basis of a plan made from this manager and the report of running it, and
   * clears from the dirty cache only what that plan covered and reached the kernel:
   * every planned set except `report.failedSets` and `report.inUseSets` (those stay
   * dirty so the next apply retries them). A fatal report names as failed every set
   * with a line not known to be applied, so the sets that landed before a session ended
   * early are cleared too, and the next apply starts past them instead of replaying
   * them. Changes made after planning always stay dirty. A failed set that also changed
   * after planning is re-sent whole at the next apply (its kernel contents are unknown).
   *
   * `commit(report)` takes the basis from `report.plan.basis`.
   *
   * A basis can be committed once, and only until another basis of this manager is
   * committed or the manager is reset: otherwise nothing is cleared and the result says
   * `stale: true` (as for a basis of another manager, or none). Making more plans does
   * not make a plan stale.
   */
  commit(report: ApplyReport): CommitResult;
  commit(basis: PlanBasis | undefined, report: ApplyReport): CommitResult;
  commit(basisOrReport: PlanBasis | ApplyReport | undefined, maybeReport?: ApplyReport): CommitResult {
    const report = maybeReport ?? (basisOrReport as ApplyReport);
    const basis = maybeReport === undefined ? report?.plan?.basis : basisOrReport;
    if (!(basis instanceof PlanBasis) || basis.source !== this.identity || basis.epoch !== this.epoch || report === undefined) {
      return { stale: true, applied: [], kept: [] };
    }
    this.epoch++;
    const { applied, kept } = settleReport(basis, report, (this.settleTarget ??= {
      dirty: this.store.dirty,
      record: (name) => this.store.sets.get(name),
      desired: (set) => this.store.shouldBeInKernel(set),
    }));
    if (this.store.claims.cancelled.size > 0) this.store.settleReclaimed(basis);
    this.store.claims.settled(basis.planned.values());
    return { stale: false, applied, kept };
  }

  /** Consecutive failed applies recorded by {@link recordApplyResult}. */
  get consecutiveApplyFailures(): number {
    return this.failures.count;
  }

  /**
   * Counts an apply: success resets the count, failure increments it.
   *
   * @throws IpsetsError `MAX_CONSECUTIVE_FAILURES` when a failure reaches
   *   {@link maxConsecutiveFailures} (the reference panics here). The count stays at the limit.
   */
  recordApplyResult(ok: boolean): void {
    this.failures.record(ok);
  }

  // -------------------------------------------------------------------------
  // Internals

  /** Notes the family a caller named for `set` (a single-family set: see {@link SetResolver.singleFamily}); returns `set`. */
  private declare(set: IPSet, meta: SetMetadata): IPSet {
    if (meta.family !== undefined && set.info.kind === 'set') set.declaredFamily = meta.family;
    return set;
  }

  /** Also resolves the shared empty set when one of `resolved` is a namespace list that will need it. */
  private resolveEmptySetFor(resolved: readonly Resolved[], claims: Map<string, string>): void {
    if (!this.addEmptySetToLists || this.store.emptySet !== undefined) return;
    if (resolved.some((r) => isNamespaceList(r.meta.type) && !this.store.sets.has(r.prefixed))) this.names.resolve(EMPTY_SET, claims);
  }
}

