/**
 * From a validated desired file to the state the kernel should hold: core's
 * `buildDesiredState` lays the sets out (kernel names, families and inet6 siblings,
 * lists, capacity) from the members validation already checked.
 */
import { buildDesiredState, isIpsetsError } from '@ipsets/core';
import type { DesiredSetInput, DesiredState } from '@ipsets/core';
import { desiredFileError, formatPath, messageOf } from './problems.js';
import type { DesiredFile } from './validate.js';

/**
 * The desired state of a file (mode `all`: every set is in the kernel), with each
 * set's `maxelem`/`hashsize` from the file on its kernel set(s).
 *
 * @throws IpsetsError `INVALID_INPUT` when core refuses a set (reported with its path;
 *   a file {@link validateDesiredDocument} returned is never refused).
 */
export function desiredStateOf(file: DesiredFile): DesiredState {
  const sets: DesiredSetInput[] = file.sets.map((set) => ({
    meta: { type: set.type, name: set.name, ...(set.family === undefined ? {} : { family: set.family }) },
    // The members validation checked, unless the set was changed since.
    members: set.checkedMembers !== undefined && set.checkedMembers.all === set.members ? set.checkedMembers : set.members,
    ...(set.memberSets.length === 0 ? {} : { memberSets: set.memberSets }),
    ...(set.capacity === undefined ? {} : { capacity: set.capacity }),
  }));
  try {
    return buildDesiredState(sets, { mode: 'all', owner: file.owner, scheme: file.scheme });
  } catch (error) {
    if (!isIpsetsError(error)) throw error;
    const { setIndex, memberIndex } = error.details as { setIndex?: number; memberIndex?: number };
    // Not about one set (the owner or scheme of a hand-made file): core's error as it is.
    if (setIndex === undefined) throw error;
    const path = memberIndex === undefined ? ['sets', setIndex] : ['sets', setIndex, 'members', memberIndex];
    throw desiredFileError('(desired state)', [{ path: formatPath(path), message: messageOf(error) }]);
  }
}
