/**
 * Kernel set names (docs/reference-behaviour.md §a.2): owner prefix + digest of the
 * prefixed name, never longer than the kernel's 31 characters.
 */
import { IpsetsError, quote } from '../errors.js';
import { sha256, utf8Bytes } from './sha256.js';
import type { NamingScheme } from '../types.js';
import { MAX_KERNEL_NAME_LENGTH, checkSetName, isValidKernelSetName } from './set-names.js';

export { MAX_KERNEL_NAME_LENGTH } from './set-names.js';

export { sha256, sha256Hex, utf8Bytes } from './sha256.js';

/** Default owner prefix of kernel names, as in Azure NPM. */
export const DEFAULT_OWNER = 'azure-npm-';

/** The naming scheme when none is given: `sha256-base36`. */
export const DEFAULT_NAMING_SCHEME: NamingScheme = 'sha256-base36';

/** The naming schemes, default first. */
export const NAMING_SCHEMES: readonly NamingScheme[] = Object.freeze([DEFAULT_NAMING_SCHEME, 'fnv32'] as NamingScheme[]);

/** Longest digest each scheme produces. */
export const DIGEST_LENGTH: Readonly<Record<NamingScheme, number>> = Object.freeze({
  'sha256-base36': 20,
  // 4294967295 has ten decimal digits.
  fnv32: 10,
});

/** Options of {@link kernelName}. */
export interface KernelNameOptions {
  /** Owner prefix (default {@link DEFAULT_OWNER}). */
  owner?: string;
  /** Digest scheme (default `sha256-base36`). */
  scheme?: NamingScheme;
}

/** FNV-1a 32-bit hash of the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  const bytes = utf8Bytes(text);
  let hash = 0x811c9dc5;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The `sha256-base36` digest: SHA-256 of the UTF-8 bytes read as a big-endian integer,
 * in lower-case base 36, left-padded with `0` to 20 digits, first 20 digits kept.
 */
export function sha256Base36(text: string): string {
  const digest = sha256(text);
  let value = 0n;
  for (const byte of digest) value = (value << 8n) | BigInt(byte);
  return value.toString(36).padStart(20, '0').slice(0, 20);
}

/** The digest part of a kernel name under `scheme`. */
export function nameDigest(prefixedName: string, scheme: NamingScheme = DEFAULT_NAMING_SCHEME): string {
  switch (scheme) {
    case 'sha256-base36':
      return sha256Base36(prefixedName);
    case 'fnv32':
      return String(fnv1a32(prefixedName));
    default:
      throw new IpsetsError(
        'INVALID_ARGUMENT',
        `unknown naming scheme ${quote(scheme)}; expected one of ${NAMING_SCHEMES.join(', ')}`,
        { details: { scheme } },
      );
  }
}

/**
 * Checks a kernel set name: 1–31 printable ASCII characters without whitespace, quotes
 * or `#`, not starting with `-` (the rule of `set-names.ts`, so that a name can never
 * change the meaning of a restore line). Throws `INVALID_SET_NAME`.
 */
export function validateKernelSetName(name: unknown): asserts name is string {
  checkSetName(name, 'kernel');
}

/** Shortest owner prefix: a one-letter prefix would claim a large part of every name space. */
export const MIN_OWNER_LENGTH = 4;

/** Characters an owner prefix may end in: the prefix must be separated from the digest. */
export const OWNER_SEPARATORS = '-_.:';

/** Why `owner` is not a usable owner prefix (digest room aside), or `undefined`. */
function ownerProblem(owner: unknown): string | undefined {
  if (typeof owner !== 'string' || owner.length === 0) return 'it is empty';
  if (!isValidKernelSetName(owner.slice(0, MAX_KERNEL_NAME_LENGTH))) {
    return 'it must be printable ASCII characters without whitespace, quotes or "#", not starting with "-"';
  }
  if (owner.length < MIN_OWNER_LENGTH) return `it is ${owner.length} character(s) long (at least ${MIN_OWNER_LENGTH})`;
  if (!OWNER_SEPARATORS.includes(owner[owner.length - 1]!)) {
    return `it does not end in a separator (one of ${OWNER_SEPARATORS.split('').map((c) => `"${c}"`).join(', ')})`;
  }
  return undefined;
}

/**
 * Checks that `owner` is a usable owner prefix for `scheme`: at least 4 printable ASCII
 * characters without whitespace, `#` or quotes, not starting with `-`, ending in a
 * separator (`-`, `_`, `.` or `:`), and leaving room for the digest within 31
 * characters. A prefix such as `f` or `kube` would claim sets that merely start with
 * the same letters (`foo`, `fw-ref`, `kubelet`). Throws `INVALID_ARGUMENT`.
 */
export function validateOwner(owner: unknown, scheme: NamingScheme = DEFAULT_NAMING_SCHEME): asserts owner is string {
  const digestLength = DIGEST_LENGTH[scheme];
  if (digestLength === undefined) nameDigest('', scheme);
  const maxOwner = MAX_KERNEL_NAME_LENGTH - (digestLength ?? 0);
  const problem = ownerProblem(owner);
  if (problem !== undefined) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `invalid owner prefix ${quote(owner)}: ${problem}; expected at least ${MIN_OWNER_LENGTH} printable ASCII characters without whitespace, "#" or quotes, not starting with "-" and ending in one of "-", "_", ".", ":" (such as ${JSON.stringify(DEFAULT_OWNER)})`,
      { details: { owner, reason: problem } },
    );
  }
  if ((owner as string).length > maxOwner) {
    const length = (owner as string).length;
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `owner prefix ${quote(owner)} is ${length} characters long: with the ${digestLength}-character ${scheme} digest, kernel names would exceed ${MAX_KERNEL_NAME_LENGTH} characters; use at most ${maxOwner} characters`,
      { details: { owner, scheme, maxOwnerLength: maxOwner } },
    );
  }
}

/**
 * Checks an owner prefix that selects kernel sets (reconcile, reset) rather than
 * naming new ones: the rules of {@link validateOwner} with room for at least one
 * character after the prefix. Throws `INVALID_ARGUMENT`.
 */
export function validateOwnerPrefix(owner: unknown): asserts owner is string {
  const problem = ownerProblem(owner);
  if (problem === undefined && (owner as string).length < MAX_KERNEL_NAME_LENGTH) return;
  if (problem === undefined) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `owner prefix ${quote(owner)} is ${(owner as string).length} characters long: no kernel name (at most ${MAX_KERNEL_NAME_LENGTH} characters) can follow it; use at most ${MAX_KERNEL_NAME_LENGTH - 1} characters`,
      { details: { owner } },
    );
  }
  validateOwner(owner);
}

/**
 * The ownership rule, used by every planner and driver: `name` is owned by `owner`
 * only when it is `owner` followed by one or more characters a naming scheme can
 * produce (`0-9`, `a-z`) and nothing else, within the kernel's 31 characters. The
 * bare prefix (`azure-npm-`), upper-case letters or other punctuation after it
 * (`azure-npm-ABC`, `azure-npm-x.y`), and names that merely start with the same
 * letters as a short prefix are foreign. An empty or non-string owner owns nothing.
 *
 * @example isOwnedSetName('azure-npm-343gyx4g1wf87lwlewvk', 'azure-npm-') === true
 * @example isOwnedSetName('azure-npm-', 'azure-npm-') === false
 */
export function isOwnedSetName(name: string, owner: string): boolean {
  if (typeof name !== 'string' || typeof owner !== 'string' || owner.length === 0) return false;
  const n = name.length;
  if (n <= owner.length || n > MAX_KERNEL_NAME_LENGTH || !name.startsWith(owner)) return false;
  for (let i = owner.length; i < n; i++) {
    const c = name.charCodeAt(i);
    // 0-9 or a-z
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}

/**
 * The kernel name of a prefixed set name: `owner` + digest (`sha256-base36` by default).
 * Always at most 31 characters; an owner prefix too long for that is refused (`INVALID_ARGUMENT`).
 *
 * @example kernelName('ns-test') === 'azure-npm-343gyx4g1wf87lwlewvk'
 * @example kernelName('ns-test', { scheme: 'fnv32' }) === 'azure-npm-3863441321'
 */
export function kernelName(prefixedName: string, options: KernelNameOptions = {}): string {
  const owner = options.owner ?? DEFAULT_OWNER;
  const scheme = options.scheme ?? DEFAULT_NAMING_SCHEME;
  validateOwner(owner, scheme);
  if (typeof prefixedName !== 'string') {
    throw new IpsetsError('INVALID_SET_NAME', `expected a prefixed set name string, got ${quote(prefixedName)}`);
  }
  return owner + nameDigest(prefixedName, scheme);
}
