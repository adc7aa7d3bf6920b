/**
 * The destroy budget: a desired file that would destroy much of what the node holds is
 * far more often an accident (a truncated file, a template that rendered part of its
 * input) than a wish. `apply` and the agent refuse — bad input, nothing changed — a
 * desired state that would destroy
 *
 * - any owned set, when it has no sets at all (`--allow-empty` or `--allow-destroy` allow it), or
 * - more than {@link DESTROY_BUDGET_SHARE} of the owned sets the kernel holds and more
 *   than {@link DESTROY_BUDGET_MIN_SETS} of them (`--allow-destroy` allows it): a file cut
 *   to 1 of its 50 sets, but never ordinary churn (ten namespaces deleted at once, half
 *   of a node's sets gone).
 *
 * What counts is the kernel's owned sets (core's ownership rule) that the desired state
 * does not name and nothing references (a referenced one stays, members and all): read
 * from `ipset list -t`, which lists no members, without a plan. Members are not
 * budgeted: a deployment scaled down by nine tenths is ordinary churn.
 */
import { IpsetsError, isOwnedSetName } from '@ipsets/core';
import type { DesiredState, IpsetPort } from '@ipsets/core';
import { formatCount } from './format.js';
import { readHeaders } from './kernel/read-kernel.js';

import { DESTROY_BUDGET_MIN_SETS, DESTROY_BUDGET_SHARE } from './defaults.js';

/** The kernel's owned sets and how many of them a desired state would destroy. */
export interface DestroyCount {
  /** Owned sets in the kernel. */
  readonly owned: number;
  /** Owned sets in the kernel that the desired state does not name and nothing references. */
  readonly destroyed: number;
}

/** What the caller allows. */
export interface DestroyBudgetOptions {
  /** `--allow-empty`: a desired state with no sets may destroy every owned set. */
  readonly allowEmpty?: boolean;
  /** `--allow-destroy`: any destroy is allowed. */
  readonly allowDestroy?: boolean;
  /** The desired file, for the message. */
  readonly source?: string;
}

/** The `--allow-empty` / `--allow-destroy` of a command's options, as {@link DestroyBudgetOptions}. */
export function allowed(options: { allowEmpty?: boolean; allowDestroy?: boolean }): { allowEmpty?: true; allowDestroy?: true } {
  return { ...(options.allowEmpty === true ? { allowEmpty: true } : {}), ...(options.allowDestroy === true ? { allowDestroy: true } : {}) };
}

/**
 * Counts the owned kernel sets (`ipset list -t`) and those reconciling `desired` would
 * destroy: not named by it, referenced by nothing.
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when the kernel cannot be read.
 */
export async function countDestroyed(desired: DesiredState, port: IpsetPort): Promise<DestroyCount> {
  const wanted = new Set(desired.sets.map((s) => s.name));
  const seen = new Set<string>();
  let owned = 0;
  let destroyed = 0;
  for (const header of await readHeaders(port)) {
    if (seen.has(header.name) || !isOwnedSetName(header.name, desired.owner)) continue;
    seen.add(header.name);
    owned++;
    if (!wanted.has(header.name) && header.references === 0) destroyed++;
  }
  return { owned, destroyed };
}

/** True when destroying `count.destroyed` of `count.owned` sets is within the budget. */
export function withinDestroyBudget(count: DestroyCount): boolean {
  return count.destroyed <= DESTROY_BUDGET_MIN_SETS || count.destroyed <= DESTROY_BUDGET_SHARE * count.owned;
}

/**
 * Refuses a desired state that would destroy more than the budget allows.
 *
 * @throws IpsetsError `INVALID_INPUT` (with `details.owned` and `details.wouldDestroy`) when refused.
 */
export function checkDestroyBudget(desired: DesiredState, count: DestroyCount, options: DestroyBudgetOptions = {}): void {
  if (options.allowDestroy === true || count.destroyed === 0) return;
  const source = options.source ?? 'the desired state';
  const details = { source, owned: count.owned, wouldDestroy: count.destroyed };
  if (desired.sets.length === 0) {
    if (options.allowEmpty === true) return;
    throw new IpsetsError(
      'INVALID_INPUT',
      `${source} has no sets, and applying it would destroy ${formatCount(count.destroyed)} owned set(s) in the kernel; nothing was changed. Expected at least one set, or --allow-empty (or --allow-destroy) to destroy them on purpose`,
      { details },
    );
  }
  if (withinDestroyBudget(count)) return;
  throw new IpsetsError(
    'INVALID_INPUT',
    `${source} would destroy ${formatCount(count.destroyed)} of the ${formatCount(count.owned)} owned sets in the kernel (more than half, and more than ${DESTROY_BUDGET_MIN_SETS}); nothing was changed. A cut or badly rendered file looks like this: check it, or give --allow-destroy to destroy them on purpose`,
    { details },
  );
}

/**
 * Reads the kernel's owned set names (unless `--allow-destroy`), then
 * {@link checkDestroyBudget}. What `apply` and the agent call inside the kernel lock,
 * before reconciling.
 *
 * @throws IpsetsError `INVALID_INPUT` (refused) or `KERNEL_READ_FAILED`.
 */
export async function guardDestroyBudget(desired: DesiredState, port: IpsetPort, options: DestroyBudgetOptions = {}): Promise<void> {
  if (options.allowDestroy === true) return;
  checkDestroyBudget(desired, await countDestroyed(desired, port), options);
}
