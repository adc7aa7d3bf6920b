/**
 * The set-name rule, in one place: what a set name may be, why one is refused, and the
 * one message that says so. The desired file (the command), the manager and the render
 * boundary all ask this module.
 *
 * The rule follows what `ipset restore` reads (docs/ipset-semantics.md §1.2, §1.3, §7):
 * the kernel takes 1–31 bytes of any non-blank characters, but a restore line is split
 * at blanks, tabs, `\r` and `\n`, a `"` toggles quoting, a line that starts with `#` is a
 * comment, and a word starting with `-` anywhere on a line may be read as an option.
 * So a name is 1 or more printable ASCII characters (33–126) without `"`, `'` or `#`, not
 * starting with `-`. (`'` means nothing to ipset, but its messages quote names with it:
 * `setname 'a'b' is longer…` would be ambiguous, and so would a shell that pastes one.)
 * Such a name never changes the meaning of a restore line, and string length is its
 * byte length.
 *
 * Two roles differ only in length:
 * - a **kernel name** (a restore line's set, a list:set member) is at most
 *   {@link MAX_KERNEL_NAME_LENGTH} bytes, the kernel's limit;
 * - a **set name** (the unprefixed name a caller gives a set, e.g. `app:web`) is hashed
 *   into its kernel name (model/naming.ts), so it may be longer: at most
 *   {@link MAX_SET_NAME_LENGTH} bytes, room for any Kubernetes `key:value` label. It
 *   has no blank, so the ` inet6` suffix of a sibling's prefixed name can never collide.
 */
import { IpsetsError, quote } from '../errors.js';

/** Longest set name the kernel accepts, in bytes (docs/ipset-semantics.md §7). */
export const MAX_KERNEL_NAME_LENGTH = 31;

/** Longest unprefixed set name (a Kubernetes `prefix/key:value` label fits with room to spare). */
export const MAX_SET_NAME_LENGTH = 512;

/** What a name is checked as: a kernel name, or a set's own (unprefixed) name. */
export type SetNameRole = 'kernel' | 'set';

/** `5000000` as `5,000,000` (no locale: core's messages are the same everywhere). */
function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** What a name of `role` may be, for the message's `expected …` part. */
function expectedSetName(role: SetNameRole): string {
  const max = role === 'kernel' ? MAX_KERNEL_NAME_LENGTH : MAX_SET_NAME_LENGTH;
  return `1-${max} printable ASCII characters without whitespace, quotes or "#", not starting with "-"`;
}

/**
 * Why `name` is not a valid name of `role`, or `undefined` when it is. One pass over
 * the text without allocating: the render boundary asks it once per set of a plan.
 */
export function setNameProblem(name: unknown, role: SetNameRole): string | undefined {
  if (typeof name !== 'string') return 'it is not a string';
  const n = name.length;
  if (n === 0) return 'it is empty';
  const max = role === 'kernel' ? MAX_KERNEL_NAME_LENGTH : MAX_SET_NAME_LENGTH;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    // Blank and control characters (up to 32), DEL (127) and everything past ASCII.
    if (c <= 32 || c >= 127) {
      const ch = c >= 0xd800 && c <= 0xdbff ? String.fromCodePoint(name.codePointAt(i)!) : name[i]!;
      return `it contains ${quote(ch)} (only printable ASCII without whitespace)`;
    }
    if (c === 35 /* # */) return 'it contains "#"';
    if (c === 34 /* " */ || c === 39 /* ' */) return 'it contains a quote';
  }
  if (name.charCodeAt(0) === 45 /* - */) return 'it starts with "-" (ipset would read it as an option)';
  // ASCII only from here on: the length in characters is the length in bytes.
  if (n > max) return `it is ${groupDigits(n)} characters long (at most ${max})`;
  return undefined;
}

/** The one message of a refused name: `Invalid set name "…": <why>; expected <the rule>.` */
export function setNameMessage(name: unknown, problem: string, role: SetNameRole): string {
  return `Invalid set name ${quote(name)}: ${problem}; expected ${expectedSetName(role)}.`;
}

/**
 * Checks `name` as a name of `role` and returns it.
 *
 * @throws IpsetsError `INVALID_SET_NAME` with {@link setNameMessage}.
 */
export function checkSetName(name: unknown, role: SetNameRole): string {
  const problem = setNameProblem(name, role);
  if (problem !== undefined) {
    throw new IpsetsError('INVALID_SET_NAME', setNameMessage(name, problem, role), { details: { name, role, reason: problem } });
  }
  return name as string;
}

/**
 * True when `name` can be a kernel set name (and a list:set member) in a restore
 * file: the rule of this module with the kernel's 31-byte limit.
 */
export function isValidKernelSetName(name: string): boolean {
  return setNameProblem(name, 'kernel') === undefined;
}

/**
 * Validates a kernel set name or list member name (see {@link isValidKernelSetName})
 * and returns it.
 *
 * @throws IpsetsError `INVALID_SET_NAME` quoting the name and saying why.
 */
export function validateSetName(name: string): string {
  return checkSetName(name, 'kernel');
}
