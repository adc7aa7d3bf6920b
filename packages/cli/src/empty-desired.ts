/**
 * An empty desired state is never an accident: a desired file with no sets (a
 * truncated file, a template that rendered nothing) would destroy every owned set of
 * the node. `apply` and the agent refuse it — bad input, nothing changed — when it
 * would destroy any owned set, unless the caller says `--allow-empty`.
 *
 * Which sets it would destroy is what the reconcile planner says (core's ownership
 * rule, references counted), read only when the desired state is empty: a non-empty
 * desired state costs nothing here.
 */
import { IpsetsError, planReconcile } from '@ipsets/core';
import type { DesiredState, IpsetPort } from '@ipsets/core';
import { formatCount } from './format.js';
import { readKernel } from './kernel/read-kernel.js';

/**
 * Owned kernel sets that reconciling `desired` would destroy: the sets with a destroy
 * line in the reconcile plan made from the kernel's `ipset save` and `ipset list -t`.
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when the kernel cannot be read.
 */
export async function setsDestroyedBy(desired: DesiredState, port: IpsetPort): Promise<string[]> {
  const { snapshot, headers } = await readKernel(port);
  const plan = planReconcile(desired, snapshot, headers);
  return [...new Set(plan.lines.filter((l) => l.op === 'destroy').map((l) => l.set))];
}

/**
 * Refuses an empty desired state that would destroy owned sets.
 *
 * @param desired The desired state about to be applied.
 * @param wouldDestroy How many owned kernel sets applying it would destroy (see {@link setsDestroyedBy}).
 * @param allowEmpty The caller's explicit consent (`--allow-empty`).
 * @param source The desired file, for the message.
 * @throws IpsetsError `INVALID_INPUT` when `desired` has no sets, `wouldDestroy > 0` and not `allowEmpty`.
 */
export function checkEmptyDesired(desired: DesiredState, wouldDestroy: number, allowEmpty: boolean, source = 'the desired state'): void {
  if (allowEmpty || desired.sets.length > 0 || wouldDestroy === 0) return;
  throw new IpsetsError(
    'INVALID_INPUT',
    `${source} has no sets, and applying it would destroy ${formatCount(wouldDestroy)} owned set(s) in the kernel; nothing was changed. Expected at least one set, or --allow-empty to destroy them on purpose`,
    { details: { source, wouldDestroy } },
  );
}

/**
 * Reads the kernel only when `desired` is empty and `allowEmpty` is not set, then
 * {@link checkEmptyDesired}. What `apply` and the agent call before reconciling.
 *
 * @throws IpsetsError `INVALID_INPUT` (refused) or `KERNEL_READ_FAILED`.
 */
export async function guardEmptyDesired(
  desired: DesiredState,
  port: IpsetPort,
  options: { allowEmpty?: boolean; source?: string } = {},
): Promise<void> {
  if (options.allowEmpty === true || desired.sets.length > 0) return;
  const destroyed = await setsDestroyedBy(desired, port);
  checkEmptyDesired(desired, destroyed.length, false, options.source);
}
