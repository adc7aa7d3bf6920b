/**
 * From a validated desired file to the state the kernel should hold.
 */
import { IPSetManager, INET6_NAME_SUFFIX, isIpsetsError, prefixedName } from '@ipsets/core';
import type { DesiredState, SetCapacity, SetMetadata } from '@ipsets/core';
import { desiredFileError, formatPath, messageOf } from './desired-problems.js';
import type { DesiredFile } from './desired-validate.js';

/** A pod key for members that come from a file (the file has no pods). */
const FILE_POD_KEY = 'ipsets-file';

/**
 * Builds an IPSetManager (mode `all`) holding the file's sets through the manager's
 * public API: `createIPSets`, `addToSets` per member, `addToLists` per list.
 *
 * @throws IpsetsError `INVALID_INPUT` when the manager refuses a value (reported with its path).
 */
export function buildManager(file: DesiredFile): IPSetManager {
  const manager = new IPSetManager({ mode: 'all', owner: file.owner, scheme: file.scheme });
  file.sets.forEach((set, i) => {
    const meta: SetMetadata = { type: set.type, name: set.name, ...(set.family === undefined ? {} : { family: set.family }) };
    try {
      manager.createIPSets([meta]);
      for (const member of set.members) manager.addToSets([meta], member, FILE_POD_KEY);
      if (set.memberSets.length > 0) manager.addToLists([meta], set.memberSets);
    } catch (error) {
      if (!isIpsetsError(error)) throw error;
      throw desiredFileError('(desired state)', [{ path: formatPath(['sets', i]), message: messageOf(error) }]);
    }
  });
  return manager;
}

/**
 * The desired state of a file (through {@link buildManager}), with each set's
 * `maxelem`/`hashsize` from the file on its kernel set(s) — both families' of a set
 * without a family.
 */
export function desiredStateOf(file: DesiredFile): DesiredState {
  const desired = buildManager(file).desiredState();
  const capacities = new Map<string, SetCapacity>();
  for (const set of file.sets) {
    if (set.capacity === undefined) continue;
    const label = prefixedName({ type: set.type, name: set.name });
    capacities.set(label, set.capacity);
    capacities.set(label + INET6_NAME_SUFFIX, set.capacity);
  }
  if (capacities.size === 0) return desired;
  return {
    ...desired,
    sets: desired.sets.map((s) => {
      const capacity = s.label === undefined ? undefined : capacities.get(s.label);
      return capacity === undefined ? s : { ...s, ...capacity };
    }),
  };
}
