/**
 * From a validated desired file to the state the kernel should hold.
 */
import { IPSetManager, isIpsetsError, memberFamily, prefixedName, setTypeInfo } from '@ipsets/core';
import type { AddressFamily, DesiredState, SetCapacity, SetMetadata } from '@ipsets/core';
import { desiredFileError, formatPath, messageOf } from './problems.js';
import { knownInetOnly } from './validate.js';
import type { DesiredFile } from './validate.js';

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
  const declaredFamily = declaredFamilies(file);
  file.sets.forEach((set, i) => {
    const meta: SetMetadata = { type: set.type, name: set.name, ...(set.family === undefined ? {} : { family: set.family }) };
    try {
      manager.createIPSets([meta]);
      for (const member of set.members) manager.addToSets([meta], member, FILE_POD_KEY);
      if (set.memberSets.length > 0) manager.addToLists([meta], set.memberSets.map((m) => withDeclaredFamily(m, declaredFamily)));
    } catch (error) {
      if (!isIpsetsError(error)) throw error;
      throw desiredFileError('(desired state)', [{ path: formatPath(['sets', i]), message: messageOf(error) }]);
    }
  });
  return manager;
}

/** The family of each hash set the file declares with one, by its family-less prefixed name. */
function declaredFamilies(file: DesiredFile): Map<string, AddressFamily> {
  const families = new Map<string, AddressFamily>();
  for (const set of file.sets) {
    if (set.family !== undefined) families.set(prefixedName({ type: set.type, name: set.name }), set.family);
  }
  return families;
}

/**
 * A list's member as the list holds it: a set declared with one family is that
 * family's kernel set alone. A family-less reference would mean both families' sets,
 * and make an empty sibling of the other family just to put it into the list.
 */
function withDeclaredFamily(member: SetMetadata, declared: ReadonlyMap<string, AddressFamily>): SetMetadata {
  if (member.family !== undefined) return member;
  const family = declared.get(prefixedName(member));
  return family === undefined ? member : { ...member, family };
}

/**
 * The file's members of each hash set by the label of the kernel set they go to: a
 * set without a family sends IPv6 members to its inet6 sibling, as the manager does.
 * Members are canonical already, so their family is read off the canonical form.
 */
function membersByLabel(file: DesiredFile): Map<string, readonly string[]> {
  const byLabel = new Map<string, readonly string[]>();
  for (const set of file.sets) {
    if (setTypeInfo(set.type).kind !== 'set') continue;
    if (set.family !== undefined) {
      byLabel.set(prefixedName({ type: set.type, name: set.name, family: set.family }), set.members);
      continue;
    }
    if (knownInetOnly(set.members)) {
      byLabel.set(prefixedName({ type: set.type, name: set.name }), set.members);
      continue;
    }
    const inet6: string[] = [];
    let inet: string[] | undefined;
    const members = set.members;
    for (let j = 0; j < members.length; j++) {
      const member = members[j]!;
      if (memberFamily(member) === 'inet6') {
        // The first IPv6 member: from here on the IPv4 ones are copied out too.
        inet ??= members.slice(0, j) as string[];
        inet6.push(member);
      } else if (inet !== undefined) inet.push(member);
    }
    byLabel.set(prefixedName({ type: set.type, name: set.name }), inet ?? members);
    if (inet6.length > 0) byLabel.set(prefixedName({ type: set.type, name: set.name, family: 'inet6' }), inet6);
  }
  return byLabel;
}

/**
 * Each set's `maxelem`/`hashsize` from the file by the label of its kernel set(s): both
 * families' of a set without a family (the manager names the inet6 sibling by suffix).
 */
export function capacitiesByLabel(file: DesiredFile): Map<string, SetCapacity> {
  const capacities = new Map<string, SetCapacity>();
  for (const set of file.sets) {
    if (set.capacity === undefined) continue;
    const label = prefixedName({ type: set.type, name: set.name });
    capacities.set(label, set.capacity);
    capacities.set(prefixedName({ type: set.type, name: set.name, family: 'inet6' }), set.capacity);
  }
  return capacities;
}

/**
 * The desired state of a file, with each set's `maxelem`/`hashsize` from the file on
 * its kernel set(s) — both families' of a set without a family.
 *
 * The manager lays the sets out (kernel names, collisions, families, lists and their
 * inet6 siblings, creation order) from the calls {@link buildManager} makes, with one
 * member of each (set, family) instead of all of them: the manager has no bulk add,
 * and one `addToSets` per member was most of the CPU of `ipsets apply` at 1,000,000
 * members (its string pool). Validation already made every member canonical and
 * unique, so each kernel set's members are the file's, in file order — what the
 * manager would list.
 */
export function desiredStateOf(file: DesiredFile): DesiredState {
  const byLabel = membersByLabel(file);
  const skeleton: DesiredFile = {
    ...file,
    sets: file.sets.map((set) => {
      if (set.members.length <= 1) return set;
      const first = set.members[0]!;
      const firstFamily = memberFamily(first);
      const other = set.family === undefined && !knownInetOnly(set.members) ? set.members.find((m) => memberFamily(m) !== firstFamily) : undefined;
      return { ...set, members: other === undefined ? [first] : [first, other] };
    }),
  };
  const desired = buildManager(skeleton).desiredState();
  const capacities = capacitiesByLabel(file);
  return {
    ...desired,
    sets: desired.sets.map((s) => {
      const members = s.label === undefined ? undefined : byLabel.get(s.label);
      const capacity = s.label === undefined ? undefined : capacities.get(s.label);
      if (members === undefined && capacity === undefined) return s;
      return { ...s, ...(members === undefined ? {} : { members }), ...capacity };
    }),
  };
}
