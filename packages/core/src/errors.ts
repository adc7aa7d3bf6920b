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

/**
 * The details each code carries, for programs (the bad value, the set, the line …).
 * Every field is optional: an error says what it knows, and a code may be thrown
 * from several places. Other fields may be present too.
 */
export interface IpsetsErrorDetailsMap {
  INVALID_MEMBER: { member?: unknown; set?: string; kind?: unknown; family?: unknown; reason?: string; operation?: string };
  INVALID_SET_NAME: { name?: unknown; reason?: string };
  INVALID_SET_TYPE: { type?: unknown; family?: unknown; set?: string; requested?: unknown; member?: string };
  KERNEL_NAME_COLLISION: { set?: string; kernelName?: string; owner?: string; scheme?: string };
  INVALID_REFERENCE: { set?: string; type?: string; refName?: string; owner?: string };
  SET_NOT_FOUND: { set?: string; refName?: string; refType?: string };
  /** The offending option, under its own name (`{ mode }`, `{ maxAttempts }`, `{ owner, reason }` …). */
  INVALID_ARGUMENT: { reason?: string };
  /** A plan line that cannot be rendered (`line`, and `bytes` or `kind`), or a line index outside the plan. */
  RESTORE_FAILED: { line?: unknown; index?: unknown; lines?: number; bytes?: number; kind?: unknown };
  KERNEL_READ_FAILED: { command?: string; exitCode?: number | null; signal?: string | null; stderr?: string };
  MAX_CONSECUTIVE_FAILURES: { consecutiveApplyFailures?: number; limit?: number };
  /** `reason: 'lock-unavailable'` when the kernel lock could not be taken at all. */
  IPSET_UNAVAILABLE: { reason?: string; path?: string; exitCode?: number | null; signal?: string | null; stderr?: string };
  TIMEOUT: { where?: string; timeoutMs?: number };
  ABORTED: { where?: string; path?: string };
  LOCK_HELD: { path?: string; waitMs?: number; holder?: { pid?: number; host?: string; command?: string } };
  INVALID_INPUT: { source?: string; problems?: readonly unknown[]; total?: number };
}

/** The details of an {@link IpsetsError} of code `C` (see {@link IpsetsErrorDetailsMap}). */
export type IpsetsErrorDetails<C extends IpsetsErrorCode = IpsetsErrorCode> = Readonly<IpsetsErrorDetailsMap[C]> &
  Readonly<Record<string, unknown>>;

/** Options of {@link IpsetsError}. */
export interface IpsetsErrorOptions<C extends IpsetsErrorCode = IpsetsErrorCode> {
  /** The underlying error or value that caused this one. */
  cause?: unknown;
  /** Structured details for programs (the bad value, the set, the line …). */
  details?: IpsetsErrorDetails<C>;
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
export class IpsetsError<C extends IpsetsErrorCode = IpsetsErrorCode> extends Error {
  /** Stable machine-readable code. */
  readonly code: C;
  /** Structured details for programs, typed by code ({@link IpsetsErrorDetailsMap}). */
  readonly details: IpsetsErrorDetails<C>;

  constructor(code: C, message: string, options: IpsetsErrorOptions<C> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IpsetsError';
    this.code = code;
    this.details = options.details ?? ({} as IpsetsErrorDetails<C>);
    Object.defineProperty(this, IPSETS_ERROR_BRAND, { value: true });
  }
}

/**
 * True when `value` is an {@link IpsetsError}, optionally of the given code (then its
 * `code` and `details` are narrowed to that code's). Works for errors created by
 * another copy of this package (it checks a brand, not `instanceof`).
 */
export function isIpsetsError<C extends IpsetsErrorCode = IpsetsErrorCode>(value: unknown, code?: C): value is IpsetsError<C> {
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
