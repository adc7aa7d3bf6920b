/**
 * The human names of kernel sets: a desired set's prefixed name (`ns-shop`) next to
 * its kernel name (`azure-npm-…`), for every output that names sets.
 */
import type { DesiredState } from '@ipsets/core';

/** Labels (kernel name → prefixed name) of a desired state. */
export function labelsOf(desired: DesiredState): Map<string, string> {
  const labels = new Map<string, string>();
  for (const set of desired.sets) if (set.label !== undefined) labels.set(set.name, set.label);
  return labels;
}
