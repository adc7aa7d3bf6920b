/**
 * The manager's kernel-name claims: which prefixed name holds each kernel name, and
 * the claims a commit must settle — creates cancelled after a plan that may still
 * make them, and the sets that took such a cancelled set's name since
 * (docs/reference-behaviour.md §g.2.5). Names are checked and claimed here; what a
 * claim means for the dirty cache stays with the manager.
 */
import { IpsetsError, quote } from '../errors.js';
import type { DirtyCache } from './dirty-cache.js';
import type { IPSet } from './set-record.js';
import type { NamingScheme } from '../types.js';

/** Kernel names and who holds them (see the module documentation). */
export class KernelNameClaims {
  /** Kernel name → prefixed name that claimed it (entries of deleted sets are cleaned lazily). */
  private readonly owners = new Map<string, string>();
  /**
   * Prefixed name → kernel name of sets whose create was cancelled (deleted, or no
   * longer needed in the kernel, before they reached it) since the last commit, after
   * a plan was made that may hold the create: that plan may still create them. Their
   * kernel names are free at once (as in the reference); a set that takes one is in
   * {@link reclaimed}.
   */
  readonly cancelled = new Map<string, string>();
  /**
   * Prefixed names of sets that took the kernel name of a {@link cancelled} set since the
   * last commit: the kernel may come to hold that name with the cancelled set's members,
   * so their kernel contents are unknown (rebuilt, never merged or destroyed).
   */
  readonly reclaimed = new Set<string>();

  constructor(
    private readonly sets: ReadonlyMap<string, IPSet>,
    private readonly dirty: DirtyCache,
  ) {}

  /** The prefixed name that last claimed `kernelName`, live or not. */
  ownerOf(kernelName: string): string | undefined {
    return this.owners.get(kernelName);
  }

  /**
   * The prefixed name holding a kernel name: a cached set, or a deleted one the kernel
   * holds until its destroy lands. A set deleted before it reached the kernel holds
   * none (see {@link cancelled}).
   */
  claimant(kernelName: string): string | undefined {
    const owner = this.owners.get(kernelName);
    if (owner === undefined) return undefined;
    return this.sets.has(owner) || this.dirty.get(owner) !== undefined ? owner : undefined;
  }

  /**
   * Throws unless `prefixed` may take `kernelName`: no other name holds it, here or in
   * the tentative `claims` of the running call; then records it in `claims`.
   *
   * @throws IpsetsError `KERNEL_NAME_COLLISION`.
   */
  check(prefixed: string, kernelName: string, scheme: NamingScheme, claims: Map<string, string>): void {
    const owner = claims.get(kernelName) ?? this.claimant(kernelName);
    if (owner !== undefined && owner !== prefixed) {
      throw new IpsetsError(
        'KERNEL_NAME_COLLISION',
        `ipset ${quote(prefixed)} resolves to kernel name ${quote(kernelName)} already owned by ${quote(owner)}` +
          (scheme === 'fnv32' ? '; the fnv32 scheme collides, use sha256-base36' : ''),
        { details: { set: prefixed, kernelName, owner, scheme } },
      );
    }
    claims.set(kernelName, prefixed);
  }

  /** A new set takes its kernel name (a cancelled set's name makes it {@link reclaimed}). */
  take(set: IPSet): void {
    const previous = this.owners.get(set.kernelName);
    if (previous !== undefined && previous !== set.name && this.cancelled.has(previous)) this.reclaimed.add(set.name);
    this.owners.set(set.kernelName, set.name);
  }

  /** Frees the claim of a set that is gone and has no kernel work pending. */
  releaseIdle(name: string, kernelName: string): void {
    if (this.owners.get(kernelName) === name && !this.sets.has(name) && this.dirty.get(name) === undefined && !this.cancelled.has(name)) {
      this.owners.delete(kernelName);
    }
  }

  /** After a commit: frees the idle claims of the planned and the cancelled sets, and forgets both lists of {@link cancelled} and {@link reclaimed}. */
  settled(planned: Iterable<{ readonly name: string; readonly kernelName: string }>): void {
    for (const p of planned) this.releaseIdle(p.name, p.kernelName);
    if (this.cancelled.size > 0) {
      const cancelled = [...this.cancelled];
      this.cancelled.clear();
      for (const [name, kernelName] of cancelled) this.releaseIdle(name, kernelName);
    }
    this.reclaimed.clear();
  }

  clear(): void {
    this.owners.clear();
    this.cancelled.clear();
    this.reclaimed.clear();
  }
}
