/**
 * What callers of the {@link IPSetManager} pass and get back: its configuration, the
 * options of its calls, and the read-only results (set snapshots, dirty sets, commits).
 * (The links name the class without importing it: manager.ts imports this file, and core's
 * modules never import in a cycle.)
 */
import type { SetCapacity } from '../model/capacity.js';
import type { DirtyState } from './dirty-cache.js';
import type { CreateSpec, NamingScheme, SetKind, SetType } from '../types.js';

/** Which sets the kernel should hold (docs/reference-behaviour.md §b.1). */
export type IPSetMode = 'all' | 'on-need';

/** `soft`: only an unused, empty set; `force`: an unused set even with members (docs/reference-behaviour.md §b.5). */
export type DeleteOption = 'soft' | 'force';

/** `selector`: a netpol selects pods/namespaces by this set; `netpol`: a netpol rule uses it. */
export type ReferenceType = 'selector' | 'netpol';

/** Configuration of {@link IPSetManager}. */
export interface IPSetManagerConfig {
  /** `all` (default): every cached set is in the kernel; `on-need`: only referenced sets and their list members. */
  mode?: IPSetMode;
  /** Give every namespace-label list the shared empty set `empty-emptyhashset` as a member (default false, as on Linux). */
  addEmptySetToLists?: boolean;
  /** Owner prefix of kernel names (default `azure-npm-`). */
  owner?: string;
  /** Kernel naming scheme (default `sha256-base36`). */
  scheme?: NamingScheme;
  /** Consecutive failed applies after which {@link IPSetManager.recordApplyResult} throws (default 100, the reference's limit). */
  maxConsecutiveFailures?: number;
  /** Receives the reference's "unexpected state" warnings (there is no logger in core). */
  onWarning?: (message: string) => void;
  /**
   * `maxelem` and `hashsize` per set type (hash set types only), e.g.
   * `{ namespace: { maxelem: 131072, hashsize: 2048 } }`. A type not listed is created
   * as NPM always created it (`nethash`: the kernel's maxelem 65536 and hashsize 1024).
   */
  capacity?: Partial<Record<SetType, SetCapacity>>;
}

/** A read-only copy of one set, as {@link IPSetManager.getIPSet} returns it. */
export interface IPSetSnapshot {
  /** Prefixed name, e.g. `podlabel-app:web`. */
  readonly name: string;
  readonly unprefixedName: string;
  readonly kernelName: string;
  readonly type: SetType;
  readonly kind: SetKind;
  readonly createSpec: CreateSpec;
  /** Hash sets: canonical members (with ` nomatch`); lists: member prefixed names. Insertion order. */
  readonly members: readonly string[];
  /** Hash sets: member → pod key. Empty for lists. */
  readonly podKeys: ReadonlyMap<string, string>;
  readonly selectorReferences: readonly string[];
  readonly netPolReferences: readonly string[];
  /** Number of cached lists holding this set. */
  readonly ipsetReferCount: number;
  /** Number of lists that should be in the kernel holding this set. */
  readonly kernelReferCount: number;
  /** True when the set should be in the kernel. */
  readonly inKernel: boolean;
}

/** What {@link IPSetManager.commit} did. */
export interface CommitResult {
  /** True when the basis cannot be committed (nothing was cleared): another basis was committed since, the manager was reset, or it is another manager's. */
  readonly stale: boolean;
  /** Prefixed names whose planned change reached the kernel. */
  readonly applied: readonly string[];
  /** Prefixed names that stay dirty (failed, in use, or not reached before a fatal end). */
  readonly kept: readonly string[];
}

/** A dirty set as {@link IPSetManager.dirtySets} lists it. */
export interface DirtySetInfo {
  readonly name: string;
  readonly kernelName: string;
  readonly state: DirtyState;
  /** The set's kernel contents are unknown (a failed apply): the next apply rebuilds it. */
  readonly unknown: boolean;
}
