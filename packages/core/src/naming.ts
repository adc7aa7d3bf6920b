/**
 * Kernel set names (spec/azure-npm.md §a.2, DESIGN §3.1): owner prefix + digest of the
 * prefixed name, never longer than the kernel's 31 characters.
 */
import { IpsetsError, quote } from './errors.js';
import { sha256, utf8Bytes } from './sha256.js';
import type { NamingScheme } from './types.js';
import { isValidKernelSetName, validateSetName } from './members.js';

export { sha256, sha256Hex, utf8Bytes } from './sha256.js';

/** Default owner prefix of kernel names, as in Azure NPM. */
export const DEFAULT_OWNER = 'azure-npm-';

/** Longest set name the kernel accepts (spec/ipset-semantics.md §7). */
export const MAX_KERNEL_NAME_LENGTH = 31;

/** The naming schemes, default first. */
export const NAMING_SCHEMES: readonly NamingScheme[] = Object.freeze(['sha256-base36', 'fnv32'] as NamingScheme[]);

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
export function nameDigest(prefixedName: string, scheme: NamingScheme = 'sha256-base36'): string {
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
 * Checks a kernel set name: 1–31 printable ASCII characters without whitespace, `#`
 * or `"`, not starting with `-` (the rule of `members.ts`, so that a name can never
 * change the meaning of a restore line). Throws `INVALID_SET_NAME`.
 */
export function validateKernelSetName(name: unknown): asserts name is string {
  validateSetName(name as string);
}

/**
 * Checks that `owner` is a usable owner prefix for `scheme`: a valid kernel-name start
 * that leaves room for the digest within 31 characters. Throws `INVALID_ARGUMENT`.
 */
export function validateOwner(owner: unknown, scheme: NamingScheme = 'sha256-base36'): asserts owner is string {
  const digestLength = DIGEST_LENGTH[scheme];
  if (digestLength === undefined) nameDigest('', scheme);
  const maxOwner = MAX_KERNEL_NAME_LENGTH - (digestLength ?? 0);
  if (typeof owner !== 'string' || owner.length === 0 || !isValidKernelSetName(owner.slice(0, MAX_KERNEL_NAME_LENGTH))) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `invalid owner prefix ${quote(owner)}: expected a non-empty prefix of printable ASCII characters without whitespace, "#" or quotes, not starting with "-"`,
      { details: { owner } },
    );
  }
  if (owner.length > maxOwner) {
    throw new IpsetsError(
      'INVALID_ARGUMENT',
      `owner prefix ${quote(owner)} is ${owner.length} characters long: with the ${digestLength}-character ${scheme} digest, kernel names would exceed ${MAX_KERNEL_NAME_LENGTH} characters; use at most ${maxOwner} characters`,
      { details: { owner, scheme, maxOwnerLength: maxOwner } },
    );
  }
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
  const scheme = options.scheme ?? 'sha256-base36';
  validateOwner(owner, scheme);
  if (typeof prefixedName !== 'string') {
    throw new IpsetsError('INVALID_SET_NAME', `expected a prefixed set name string, got ${quote(prefixedName)}`);
  }
  return owner + nameDigest(prefixedName, scheme);
}
