/**
 * ipset 7.17's message texts (lib/errcode.c, lib/parse.c, lib/ipset.c), verbatim.
 * Kernel/session texts get `Error in line N: ` in restore mode; see `docs/ipset-semantics.md` docs/ipset-semantics.md §3.
 */

/** Every line of stderr starts with this. */
export const PREFIX = 'ipset v7.17: ';
/** The line after a parameter problem. */
export const TRY_HELP = "Try `ipset help' for more information.";
/** `ipset version`. */
export const VERSION_TEXT = 'ipset v7.17, protocol version: 7';

export const MSG = {
  setMissing: 'The set with the given name does not exist',
  setExists: 'Set cannot be created: set with the same name already exists',
  swapSecondMissing: 'Sets cannot be swapped: the second set does not exist',
  swapTypeMismatch: 'The sets cannot be swapped: their type does not match',
  destroyInUse: 'Set cannot be destroyed: it is in use by a kernel component',
  renameInUse: 'Set cannot be renamed: it is in use by another system',
  renameExists: 'Set cannot be renamed: a set with the new name already exists',
  maxSets: 'Kernel error received: maximal number of sets reached, cannot create more.',
  noMemory: 'Kernel error received: Cannot allocate memory',
  invalidArgument: 'Kernel error received: Invalid argument',
  protocolError: 'Kernel error received: ipset protocol error',
  busy: 'Kernel error received: Device or resource busy',
  elemExists: "Element cannot be added to the set: it's already added",
  elemMissing: "Element cannot be deleted from the set: it's not added",
  hashFull: 'Hash is full, cannot add more elements',
  nullElement: 'Null-valued element, cannot be stored in a hash type of set',
  invalidCidr: 'The value of the CIDR parameter of the IP address is invalid',
  wholeSpace: 'Invalid range, covers the whole address space',
  invalidProto: 'Invalid protocol specified',
  noTimeout: 'Timeout cannot be used: set was created without timeout support',
  noComment: 'Comment cannot be used: set was created without comment support',
  noCounters: 'Packet/byte counters cannot be used: set was created without counter support',
  noSkbinfo: 'Skbinfo mapping cannot be used: set was created without skbinfo support',
  listMemberMissing: 'Set to be added/deleted/tested as element does not exist.',
  listLoop: 'Sets with list:set type cannot be added to the set.',
  listRefMissing: "The set to which you referred with 'before' or 'after' does not exist.",
  listElemFormat: 'you must specify elements as setname,[before|after],setname',
  listRefNotInList: "The set to which you referred with 'before' or 'after' is not added to the set.",
  invalidAddSetname: 'Invalid add command: missing setname',
  mandatoryFlagsBug: "There are missing mandatory flags but can't check them. It's a bug, please report the problem.",
  noCommand: 'No command specified.',
} as const;

/** `Syntax error: setname '…' is longer than 31 characters`. */
export function nameTooLong(name: string): string {
  return `Syntax error: setname '${name}' is longer than 31 characters`;
}
