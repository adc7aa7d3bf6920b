/**
 * Every error code this library throws. Codes are stable strings, meant for
 * `switch` statements and metrics labels; messages are for people.
 */
export type IpsetsErrorCode =
  /** A member string does not fit the grammar of its set's kind. */
  | 'INVALID_MEMBER'
  /** A set name (unprefixed, prefixed or kernel) is empty, too long or contains forbidden characters. */
  | 'INVALID_SET_NAME'
  /** An unknown set type, or a set used as a kind it is not (a list where a hash set is needed, …). */
  | 'INVALID_SET_TYPE'
  /** A kernel name is already owned by another prefixed name (digest collision). */
  | 'KERNEL_NAME_COLLISION'
  /** A reference that the reference rules refuse (selector on a non-selector set, second netpol on a CIDR set). */
  | 'INVALID_REFERENCE'
  /** The named set does not exist in the manager. */
  | 'SET_NOT_FOUND'
  /** Invalid options or configuration passed to a constructor or function. */
  | 'INVALID_ARGUMENT'
  /** A restore session ended without converging (no handler matched, attempts exhausted, fatal kind). */
  | 'RESTORE_FAILED'
  /** `ipset save` / `list` could not be run or its output could not be used. */
  | 'KERNEL_READ_FAILED'
  /** The consecutive apply failure limit was reached (the reference panics here). */
  | 'MAX_CONSECUTIVE_FAILURES'
  /** The `ipset` binary is missing, not executable, or we are not allowed to run it. */
  | 'IPSET_UNAVAILABLE'
  /** A port command ran past its timeout or was aborted. */
  | 'TIMEOUT'
  | 'ABORTED'
  /** Another writer held the kernel lock for longer than the caller was willing to wait. */
  | 'LOCK_HELD'
  /** A desired-state file or other user input failed validation. */
  | 'INVALID_INPUT';

/** Options of {@link IpsetsError}. */
export interface IpsetsErrorOptions {
  /** The underlying error or value that caused this one. */
  cause?: unknown;
  /** Structured details for programs (the bad value, the set, the line …). */
  details?: Readonly<Record<string, unknown>>;
}

/**
 * Marks every {@link IpsetsError} instance. `Symbol.for` gives the same symbol in every
 * copy of this package loaded into one process (the ESM and the CommonJS build, or two
 * versions in a dependency tree), where `instanceof` sees different classes.
 */
const IPSETS_ERROR_BRAND = Symbol.for('@ipsets/core.IpsetsError');

/**
 * The one error class of @ipsets. `code` is a stable {@link IpsetsErrorCode};
 * `message` quotes the bad value and says what was expected.
 */
export class IpsetsError extends Error {
  /** Stable machine-readable code. */
  readonly code: IpsetsErrorCode;
  /** Structured details for programs. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: IpsetsErrorCode, message: string, options: IpsetsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IpsetsError';
    this.code = code;
    this.details = options.details ?? {};
    Object.defineProperty(this, IPSETS_ERROR_BRAND, { value: true });
  }
}

/**
 * True when `value` is an {@link IpsetsError}, optionally of the given code. Works for
 * errors created by another copy of this package (it checks a brand, not `instanceof`).
 */
export function isIpsetsError(value: unknown, code?: IpsetsErrorCode): value is IpsetsError {
  if (typeof value !== 'object' || value === null) return false;
  const branded = value as { [IPSETS_ERROR_BRAND]?: unknown; code?: unknown };
  if (branded[IPSETS_ERROR_BRAND] !== true || typeof branded.code !== 'string') return false;
  return code === undefined || branded.code === code;
}

/** Longest part of a value that {@link quote} shows; longer values are cut and their length stated. */
export const QUOTE_LIMIT = 200;

/**
 * Quotes a user-supplied value for an error message, making control characters
 * visible. A value longer than {@link QUOTE_LIMIT} characters is cut, marked with
 * `…` and followed by its full length — `"aaaa…" (52428800 characters)` — so that no
 * message echoes a hostile 50 MB value.
 */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= QUOTE_LIMIT) return JSON.stringify(text);
  let cut = QUOTE_LIMIT;
  // Never split a surrogate pair: half of one is printed as an escape, not a character.
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return `${JSON.stringify(text.slice(0, cut) + '…')} (${text.length} characters)`;
}
