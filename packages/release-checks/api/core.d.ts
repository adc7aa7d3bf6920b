// ---- dist/index.d.ts ----
/**
 * @ipsets/core — a pure planner for Linux ipsets. No I/O: drive it through an
 * {@link IpsetPort}.
 *
 * The entry exports what programs and the other @ipsets packages use; the building
 * blocks behind it (the dirty cache, rebuild lines, section names, digests …) are
 * internal, and core's own tests import them from `src/`. The names are pinned by
 * `test/unit/exports.test.ts` and listed in docs/architecture.md.
 *
 * @packageDocumentation
 */
/**
 * Every error code this library throws. Codes are stable strings, meant for
 * `switch` statements and metrics labels; messages are for people.
 */
type IpsetsErrorCode =
/** A member string does not fit the grammar of its set's kind. */
'INVALID_MEMBER' |
/** A set name (unprefixed, prefixed or kernel) is empty, too long or contains forbidden characters. */
'INVALID_SET_NAME' |
/** An unknown set type, or a set used as a kind it is not (a list where a hash set is needed, …). */
'INVALID_SET_TYPE' |
/** A kernel name is already owned by another prefixed name (digest collision). */
'KERNEL_NAME_COLLISION' |
/** A reference that the reference rules refuse (selector on a non-selector set, second netpol on a CIDR set). */
'INVALID_REFERENCE' |
/** The named set does not exist in the manager. */
'SET_NOT_FOUND' |
/** Invalid options or configuration passed to a constructor or function. */
'INVALID_ARGUMENT' |
/** A restore session ended without converging (no handler matched, attempts exhausted, fatal kind). */
'RESTORE_FAILED' |
/** `ipset save` / `list` could not be run or its output could not be used. */
'KERNEL_READ_FAILED' |
/** The consecutive apply failure limit was reached (the reference panics here). */
'MAX_CONSECUTIVE_FAILURES' |
/** The `ipset` binary is missing, not executable, or we are not allowed to run it. */
'IPSET_UNAVAILABLE' |
/** A port command ran past its timeout or was aborted. */
'TIMEOUT' | 'ABORTED' |
/** Another writer held the kernel lock for longer than the caller was willing to wait. */
'LOCK_HELD' |
/** A desired-state file or other user input failed validation. */
'INVALID_INPUT';
/**
 * The details each code carries, for programs (the bad value, the set, the line …).
 * Every field is optional: an error says what it knows, and a code may be thrown
 * from several places. Other fields may be present too.
 */
interface IpsetsErrorDetailsMap {
  INVALID_MEMBER: {
    member?: unknown;
    set?: string;
    kind?: unknown;
    family?: unknown;
    reason?: string;
    operation?: string;
  };
  INVALID_SET_NAME: {
    name?: unknown;
    reason?: string;
  };
  INVALID_SET_TYPE: {
    type?: unknown;
    family?: unknown;
    set?: string;
    requested?: unknown;
    member?: string;
  };
  KERNEL_NAME_COLLISION: {
    set?: string;
    kernelName?: string;
    owner?: string;
    scheme?: string;
  };
  INVALID_REFERENCE: {
    set?: string;
    type?: string;
    refName?: string;
    owner?: string;
  };
  SET_NOT_FOUND: {
    set?: string;
    refName?: string;
    refType?: string;
  };
  /** The offending option, under its own name (`{ mode }`, `{ maxAttempts }`, `{ owner, reason }` …). */
  INVALID_ARGUMENT: {
    reason?: string;
  };
  /** A plan line that cannot be rendered (`line`, and `bytes` or `kind`), or a line index outside the plan. */
  RESTORE_FAILED: {
    line?: unknown;
    index?: unknown;
    lines?: number;
    bytes?: number;
    kind?: unknown;
  };
  KERNEL_READ_FAILED: {
    command?: string;
    exitCode?: number | null;
    signal?: string | null;
    stderr?: string;
  };
  MAX_CONSECUTIVE_FAILURES: {
    consecutiveApplyFailures?: number;
    limit?: number;
  };
  /** `reason: 'lock-unavailable'` when the kernel lock could not be taken at all. */
  IPSET_UNAVAILABLE: {
    reason?: string;
    path?: string;
    exitCode?: number | null;
    signal?: string | null;
    stderr?: string;
  };
  TIMEOUT: {
    where?: string;
    timeoutMs?: number;
  };
  ABORTED: {
    where?: string;
    path?: string;
  };
  LOCK_HELD: {
    path?: string;
    waitMs?: number;
    holder?: {
      pid?: number;
      host?: string;
      command?: string;
    };
  };
  INVALID_INPUT: {
    source?: string;
    problems?: readonly unknown[];
    total?: number;
  };
}
/** The details of an {@link IpsetsError} of code `C` (see {@link IpsetsErrorDetailsMap}). */
type IpsetsErrorDetails<C extends IpsetsErrorCode = IpsetsErrorCode> = Readonly<IpsetsErrorDetailsMap[C]> & Readonly<Record<string, unknown>>;
/** Options of {@link IpsetsError}. */
interface IpsetsErrorOptions<C extends IpsetsErrorCode = IpsetsErrorCode> {
  /** The underlying error or value that caused this one. */
  cause?: unknown;
  /** Structured details for programs (the bad value, the set, the line …). */
  details?: IpsetsErrorDetails<C>;
}
/**
 * The one error class of @ipsets. `code` is a stable {@link IpsetsErrorCode};
 * `message` quotes the bad value and says what was expected.
 */
export declare class IpsetsError<C extends IpsetsErrorCode = IpsetsErrorCode> extends Error {
  /** Stable machine-readable code. */
  readonly code: C;
  /** Structured details for programs, typed by code ({@link IpsetsErrorDetailsMap}). */
  readonly details: IpsetsErrorDetails<C>;
  constructor(code: C, message: string, options?: IpsetsErrorOptions<C>);
}
/**
 * True when `value` is an {@link IpsetsError}, optionally of the given code (then its
 * `code` and `details` are narrowed to that code's). Works for errors created by
 * another copy of this package (it checks a brand, not `instanceof`).
 */
export declare function isIpsetsError<C extends IpsetsErrorCode = IpsetsErrorCode>(value: unknown, code?: C): value is IpsetsError<C>;
/** Longest part of a value that {@link quote} shows; longer values are cut and their length stated. */
export declare const QUOTE_LIMIT = 200;
/**
 * Quotes a user-supplied value for an error message, making control characters
 * visible. A value longer than {@link QUOTE_LIMIT} characters is cut, marked with
 * `…` and followed by its full length — `"aaaa…" (52428800 characters)` — so that no
 * message echoes a hostile 50 MB value.
 */
export declare function quote(value: unknown): string;
/** The set model every package speaks: set types and kinds, metadata, create specs, families, naming schemes. */
/** NPM set types (docs/reference-behaviour.md §a.1), camelCase. */
type SetType = 'namespace' | 'keyLabelOfNamespace' | 'keyValueLabelOfNamespace' | 'keyLabelOfPod' | 'keyValueLabelOfPod' | 'namedPorts' | 'nestedLabelOfPod' | 'cidrBlocks' | 'emptyHashSet';
/** `set`: a hash set whose members are addresses; `list`: a list:set whose members are sets. */
type SetKind = 'set' | 'list';
/** A set as callers name it: unprefixed name plus type, and for hash sets optionally a family. */
interface SetMetadata {
  readonly name: string;
  readonly type: SetType;
  /**
   * Hash sets only. Absent: the logical set, whose members go to the kernel set of
   * their own family (IPv4 to the `inet` set, IPv6 to its `inet6` sibling).
   * `inet` or `inet6`: exactly that family's kernel set; a member of the other
   * family is an error. Lists have no family (a list:set holds sets of both).
   */
  readonly family?: AddressFamily;
}
/** How a prefixed name becomes a kernel name. */
type NamingScheme = 'sha256-base36' | 'fnv32';
/** The tail of a create line, exactly as the reference writes it after `-N name --exist`. */
type CreateSpec = 'nethash' | 'hash:ip,port' | 'setlist' | 'nethash maxelem 4294967295' | 'nethash family inet6' | 'hash:ip,port family inet6' | 'nethash family inet6 maxelem 4294967295';
/**
 * Address family of a hash set, as `ipset create … family` spells it: `inet` (IPv4,
 * the default) or `inet6` (IPv6). A hash set holds addresses of its family only.
 */
type AddressFamily = 'inet' | 'inet6';
/** Kernel type names as `ipset save` prints them for the specs above. */
type KernelSetType = 'hash:net' | 'hash:ip,port' | 'list:set';
/** One set as it should be in the kernel. */
interface DesiredSet {
  /** Kernel name. */
  name: string;
  /** Human name (the prefixed name, e.g. `ns-default`) for reports. */
  label?: string;
  spec: CreateSpec;
  /** Canonical members; for lists, member kernel names in list order. */
  members: readonly string[];
  /** Most entries (hash sets only; default: the spec's, 65536 or 4294967295 for CIDR blocks). */
  maxelem?: number;
  /** Initial hash buckets, a power of two 64-1073741824 (hash sets only; default 1024). */
  hashsize?: number;
}
/** What the owned part of a kernel should be. Sets not listed here and owned by `owner` should not exist. */
interface DesiredState {
  /** Owner prefix of kernel names (default `azure-npm-`). */
  owner: string;
  sets: readonly DesiredSet[];
}
/**
 * The port: the only door to a kernel. Core never runs a process; a port does
 * (`createLinuxPort` in @ipsets/exec-linux, `createFakePort` in @ipsets/testing).
 */
/** What one `ipset` invocation produced. */
interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Set when the process was ended by a signal (e.g. `SIGSEGV`, `SIGKILL`). */
  signal?: string;
}
/**
 * The part of the platform's `AbortSignal` that core relies on (core compiles
 * without DOM or Node types; a real `AbortSignal` fits).
 */
interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: {
    once?: boolean;
  }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
/** Options a driver may pass to one port call. */
interface PortCallOptions {
  /** Aborts the call; the port kills the process and rejects with an `ABORTED` IpsetsError. */
  signal?: AbortSignalLike;
}
/**
 * A kernel's ipset interface. Implementations: `createLinuxPort` (@ipsets/exec-linux),
 * `createFakePort` (@ipsets/testing). Non-zero exit codes resolve (they are data);
 * a port rejects only when the command could not be run at all.
 */
interface IpsetPort {
  /** `ipset -exist restore` with `text` on stdin. */
  restore(text: string, options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset save`. */
  save(options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset list -n`. */
  listNames(options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset list -t` (headers: References, Number of entries). */
  listHeaders(options?: PortCallOptions): Promise<CommandResult>;
}
/** What the kernel holds, as the parsers read it from `ipset save` and `ipset list -t`. */
/** One set of an `ipset save` dump. */
interface SavedSet {
  /** Kernel name. */
  name: string;
  /** Kernel type, e.g. `hash:net`. */
  type: string;
  /** The rest of the create line after the type (`family inet hashsize 1024 …`). */
  options: string;
  /** Members, canonical (as `ipset save` prints them, ` nomatch` kept), in dump order. */
  members: string[];
}
/** A line the save parser could not use; parsing went on past it. */
interface ParseProblem {
  /** 1-based line number in the input. */
  line: number;
  /** The line (trimmed), cut to its first 200 characters. */
  text: string;
  reason: string;
  /** Full length of the line when `text` was cut. */
  length?: number;
}
/** Parsed `ipset save` output. */
interface SaveSnapshot {
  sets: SavedSet[];
  /** The first problems (at most 100 from `parseSave`), in line order. */
  problems: ParseProblem[];
  /** Total number of problems when there were more than `problems` holds (absent otherwise). */
  problemCount?: number;
}
/** One set of `ipset list -t`. */
interface SetHeader {
  name: string;
  type: string;
  /** The `Header:` line's value. */
  header: string;
  references: number;
  entries: number;
}
/** What an `ipset` error is (kind), who caught it (side), and what skipping its line means (outcome). */
/** Error kinds of `ipset` messages. */
type IpsetErrorKind = 'set-missing' | 'set-exists' | 'set-in-use' | 'member-set-missing' | 'element-exists' | 'element-missing' | 'hash-full' | 'max-sets' | 'syntax' | 'parameter' | 'busy' | 'crash' | 'unknown';
/** Who caught an error: the kernel (lines before it applied) or ipset in userspace (pending batch lost). */
type ErrorSide = 'kernel' | 'userspace';
/**
 * What skipping a line means for its set:
 * - `not-converged`: the set did not reach its desired state; it stays dirty and is reported.
 * - `in-use`: a destroy was refused because the set is referenced; it stays in the kernel (flushed) and is reported.
 * - `ignorable`: the line's effect already holds (flush/destroy of a set that is gone).
 */
type Outcome = 'not-converged' | 'in-use' | 'ignorable';
/** `classifyIpsetError` result. */
interface ClassifiedError {
  kind: IpsetErrorKind;
  side: ErrorSide;
  /** From `Error in line N:`; absent for parameter problems, port errors and crashes. */
  line?: number;
  /** What stood in `Error in line N:` when N is not a number (then `line` is absent). */
  lineText?: string;
  /** The message without the `ipset vX.Y: ` and `Error in line N: ` prefixes. */
  message: string;
  /** Worth retrying unchanged (busy, a signal). */
  transient: boolean;
}
/** The restore commands a plan uses (`swap`: only in hitless rebuilds, see rebuild.ts). */
type PlanOp = 'create' | 'add' | 'del' | 'flush' | 'destroy' | 'swap';
/** One error handler of a line; the first whose `when` matches wins. */
interface ErrorHandler {
  when: IpsetErrorKind | 'any';
  then: 'skip-line' | 'skip-section';
  report: Outcome;
}
/** One restore line of a plan. */
interface PlanLine {
  op: PlanOp;
  /** Kernel name. */
  set: string;
  /** add/del: the canonical member (del lines render without ` nomatch`). */
  member?: string;
  /** create: the create spec. */
  spec?: CreateSpec;
  /** create: `maxelem` written after the spec (absent: the spec's own). */
  maxelem?: number;
  /** create: `hashsize` written after the spec (absent: the kernel's default). */
  hashsize?: number;
  /** swap: the second set (`-W set to`). */
  to?: string;
  /**
   * The set whose state this line is about, when it is not `set`: the lines of a
   * rebuild act on a temporary set but are reported for the live one.
   */
  subject?: string;
  /** Lines that are skipped together (the reference's `add/update-<prefixed>`, `delete-<prefixed>`). */
  section: string;
  /** First match wins; no match ends the session. */
  onError: readonly ErrorHandler[];
}
/** Something a planner decided that is not a line (reconcile: kept referenced sets, type conflicts …). */
interface PlanNote {
  /** Kernel name. */
  set: string;
  /**
   * `unreadable-members-rebuilt`: the save showed a member that is not in the canonical
   * form ipset prints for the set's type; it is never echoed into a plan, the set is
   * rebuilt through a temporary set and swap with its desired members instead.
   */
  kind: 'type-conflict-recreated' | 'type-conflict-referenced' | 'referenced-not-destroyed' | 'foreign-skipped' | 'unreadable-members-rebuilt' | 'info';
  message: string;
}
/** An ordered list of restore lines with their recovery rules. */
interface RestorePlan {
  lines: PlanLine[];
  notes?: PlanNote[];
  /**
   * Opaque token of the manager state the plan was made from; `manager.commit(report)`
   * uses it so that changes made after planning stay dirty.
   */
  basis?: unknown;
}
/** One run of `ipset restore` in a session. */
interface AttemptRecord {
  /** 1-based. */
  attempt: number;
  /** Plan indices of the lines sent, in order. */
  lineIndices: readonly number[];
  exitCode: number;
  signal?: string;
  error?: ClassifiedError;
  /** What the session did next. */
  action: 'done' | 'skip-line' | 'skip-section' | 'retry-line' | 'retry' | 'resume-batch' | 'abort';
}
/** A plan line that was not applied. */
interface SkippedLine {
  /** Plan index. */
  index: number;
  /** The rendered line. */
  text: string;
  set: string;
  /**
   * `failed`: this line's error; `section-aborted`: dropped with the failing line's
   * section; `same-set`: dropped because an earlier line of the same set failed in a
   * way that repeats for it (a full hash, a missing set, a set of another type).
   */
  reason: 'failed' | 'section-aborted' | 'same-set';
  kind: IpsetErrorKind;
  message: string;
  outcome: Outcome;
}
/** The end of a restore session, or of a driver. */
interface ApplyReport {
  /** True when every set of the plan reached its desired state. */
  converged: boolean;
  /** The plan that was run (with its basis, for `commit`). */
  plan: RestorePlan;
  attempts: AttemptRecord[];
  linesTotal: number;
  /** Lines known to have reached the kernel. */
  linesApplied: number;
  skipped: SkippedLine[];
  /** Kernel names that did not reach their desired state. */
  failedSets: string[];
  /** Kernel names whose destroy was refused because they are referenced. */
  inUseSets: string[];
  /** Why the session ended early, if it did; then nothing after the last known point counts as applied. */
  fatal?: {
    code: IpsetsErrorCode;
    message: string;
    error?: ClassifiedError;
  };
  /** Planner notes carried through (reconcile). */
  notes: PlanNote[];
}
/** Everything the model knows about one {@link SetType}. */
interface SetTypeInfo {
  readonly type: SetType;
  /** `set` (hash set of addresses) or `list` (list:set of sets). */
  readonly kind: SetKind;
  /** Prefix of the prefixed name (`ns-`, `podlabel-`, `namedport:` …). */
  readonly prefix: string;
  /** Tail of the reference's create line after `-N name --exist`. */
  readonly createSpec: CreateSpec;
  /** The kernel type `ipset save` prints for sets made with `createSpec`. */
  readonly kernelType: KernelSetType;
  /** May carry a selector reference (`canSetBeSelectorIPSet` of the reference). */
  readonly selectorCapable: boolean;
  /** Address family of a hash set (`inet` unless asked for `inet6`); `undefined` for lists. */
  readonly family: AddressFamily | undefined;
}
/** The address family a create spec makes: `inet6` for the `family inet6` specs, `inet` for other hash specs, `undefined` for lists. */
export declare function familyOfSpec(spec: CreateSpec): AddressFamily | undefined;
/**
 * What makes the kernel name of a set's `inet6` sibling differ from its `inet` one:
 * appended to the prefixed name before hashing. It starts with a space, which no
 * unprefixed name may contain, so no other set can ever hash the same text, and the
 * `inet` names stay what they always were.
 */
export declare const INET6_NAME_SUFFIX = " inet6";
/** Every create spec the library writes, in the order of {@link CreateSpec}. */
export declare const CREATE_SPECS: readonly CreateSpec[];
/** True when `spec` is one of {@link CREATE_SPECS} (the only texts a create line may carry). */
export declare function isCreateSpec(spec: unknown): spec is CreateSpec;
/** The kernel type (`ipset save` spelling) that a create spec makes. */
export declare function kernelTypeOfSpec(spec: CreateSpec): KernelSetType;
/** Every set type, in the reference's enum order. */
export declare const SET_TYPES: readonly SetType[];
/** Unprefixed name of the shared empty set (`empty-emptyhashset`). */
export declare const EMPTY_SET_NAME = "emptyhashset";
/** Metadata of the shared empty set that namespace label lists may hold. */
export declare const EMPTY_SET: SetMetadata;
/** True when `value` is one of {@link SET_TYPES}. */
export declare function isSetType(value: unknown): value is SetType;
/**
 * Kind, prefix, create spec, kernel type, selector capability and family of `type`
 * (of its `family inet6` sibling when `family` is `inet6`). Throws `INVALID_SET_TYPE`
 * for an unknown type, and for `inet6` on a list or the shared empty set.
 */
export declare function setTypeInfo(type: SetType, family?: AddressFamily): SetTypeInfo;
/**
 * True when two types may name the same prefixed set: equal types, or the pairs that
 * share a prefix (`keyLabelOfPod`/`keyValueLabelOfPod`, `keyLabelOfNamespace`/`keyValueLabelOfNamespace`),
 * which also share kind and create spec.
 */
export declare function sameSetFamily(a: SetType, b: SetType): boolean;
/**
 * Checks an unprefixed set name: a non-empty string without whitespace or control
 * characters. Throws `INVALID_SET_NAME`. (The kernel never sees it: kernel names are digests.)
 */
export declare function validateUnprefixedName(name: unknown): asserts name is string;
/** Validates `meta` (known type, valid name) and returns it. Throws `INVALID_SET_TYPE` or `INVALID_SET_NAME`. */
export declare function validateSetMetadata(meta: SetMetadata): SetMetadata;
/**
 * The prefixed name (the manager's key): type prefix + unprefixed name, e.g.
 * `podlabel-app:web`; for the `inet6` sibling {@link INET6_NAME_SUFFIX} follows
 * (`podlabel-app:web inet6`).
 */
export declare function prefixedName(meta: SetMetadata): string;
/** `maxelem` and `hashsize` of one set; an absent field is the default. */
interface SetCapacity {
  /** Most entries (1-4294967295). */
  readonly maxelem?: number;
  /** Initial hash buckets: a power of two, 64-1073741824. */
  readonly hashsize?: number;
}
/** The kernel's `maxelem` when a create line names none. */
export declare const DEFAULT_MAXELEM = 65536;
/** The kernel's `hashsize` when a create line names none. */
export declare const DEFAULT_HASHSIZE = 1024;
/** The largest `maxelem` the kernel takes (a u32). */
export declare const MAX_MAXELEM = 4294967295;
/** The smallest `hashsize` the kernel keeps (smaller values are raised to it). */
export declare const MIN_HASHSIZE = 64;
/** The largest `hashsize` accepted here (2^30; 2^31 fails in the kernel). */
export declare const MAX_HASHSIZE = 1073741824;
/**
 * Checks a capacity for a set of `spec` and returns it with only the fields given.
 * `where` names it in messages (`desired set "azure-npm-…"`, `capacity of set type "namespace"`).
 *
 * @throws IpsetsError `code` (default `INVALID_INPUT`) for a field that is not an
 *   integer in range, a hashsize that is not a power of two, an unknown field, or any
 *   capacity on a list:set.
 */
export declare function validateCapacity(capacity: unknown, spec: CreateSpec, where: string, code?: IpsetsErrorCode): SetCapacity;
/** Default owner prefix of kernel names, as in Azure NPM. */
export declare const DEFAULT_OWNER = "azure-npm-";
/** Longest set name the kernel accepts (docs/ipset-semantics.md §7). */
export declare const MAX_KERNEL_NAME_LENGTH = 31;
/** The naming schemes, default first. */
export declare const NAMING_SCHEMES: readonly NamingScheme[];
/** Longest digest each scheme produces. */
export declare const DIGEST_LENGTH: Readonly<Record<NamingScheme, number>>;
/** Options of {@link kernelName}. */
interface KernelNameOptions {
  /** Owner prefix (default {@link DEFAULT_OWNER}). */
  owner?: string;
  /** Digest scheme (default `sha256-base36`). */
  scheme?: NamingScheme;
}
/**
 * Checks a kernel set name: 1–31 printable ASCII characters without whitespace, `#`
 * or `"`, not starting with `-` (the rule of `members.ts`, so that a name can never
 * change the meaning of a restore line). Throws `INVALID_SET_NAME`.
 */
export declare function validateKernelSetName(name: unknown): asserts name is string;
/** Shortest owner prefix: a one-letter prefix would claim a large part of every name space. */
export declare const MIN_OWNER_LENGTH = 4;
/** Characters an owner prefix may end in: the prefix must be separated from the digest. */
export declare const OWNER_SEPARATORS = "-_.:";
/**
 * Checks that `owner` is a usable owner prefix for `scheme`: at least 4 printable ASCII
 * characters without whitespace, `#` or quotes, not starting with `-`, ending in a
 * separator (`-`, `_`, `.` or `:`), and leaving room for the digest within 31
 * characters. A prefix such as `f` or `kube` would claim sets that merely start with
 * the same letters (`foo`, `fw-ref`, `kubelet`). Throws `INVALID_ARGUMENT`.
 */
export declare function validateOwner(owner: unknown, scheme?: NamingScheme): asserts owner is string;
/**
 * Checks an owner prefix that selects kernel sets (reconcile, reset) rather than
 * naming new ones: the rules of {@link validateOwner} with room for at least one
 * character after the prefix. Throws `INVALID_ARGUMENT`.
 */
export declare function validateOwnerPrefix(owner: unknown): asserts owner is string;
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
export declare function isOwnedSetName(name: string, owner: string): boolean;
/**
 * The kernel name of a prefixed set name: `owner` + digest (`sha256-base36` by default).
 * Always at most 31 characters; an owner prefix too long for that is refused (`INVALID_ARGUMENT`).
 *
 * @example kernelName('ns-test') === 'azure-npm-343gyx4g1wf87lwlewvk'
 * @example kernelName('ns-test', { scheme: 'fnv32' }) === 'azure-npm-3863441321'
 */
export declare function kernelName(prefixedName: string, options?: KernelNameOptions): string;
/** Kernel set types that hold addresses (list:set members are set names). */
type MemberKind = 'hash:net' | 'hash:ip,port';
/**
 * The family a member is written in: `inet6` when its address part (before the
 * `,` of a hash:ip,port member) contains a `:` or starts with `[`, else `inet`.
 * It reads the text only as far as needed to tell, and says nothing about
 * validity: {@link canonicalMember} checks the member against the family.
 */
export declare function memberFamily(member: string): AddressFamily;
/**
 * Validates a member of a hash set and returns its canonical form: the exact text
 * `ipset save` prints for it, so desired and kernel members compare equal.
 *
 * - `hash:net`: `a.b.c.d[/len][ nomatch]`, IPv4 only, no leading zeros, `len` 1–32;
 *   host bits are cleared (`10.0.0.5/24` → `10.0.0.0/24`) and `/32` is dropped
 *   (`10.0.0.1/32` → `10.0.0.1`); ` nomatch` (exactly one space) is kept.
 *   `/0` is rejected, also `0.0.0.0/0` which the reference accepts: the kernel's hash:net
 *   cannot store a zero prefix (the add fails with "The value of the CIDR parameter
 *   of the IP address is invalid"); use `0.0.0.0/1` and `128.0.0.0/1`.
 * - `hash:ip,port`: `a.b.c.d,proto:port` with proto `tcp`, `udp` or `sctp` and a
 *   numeric port 0–65535; `a.b.c.d,port` means tcp and becomes `a.b.c.d,tcp:port`.
 *   The zero address `0.0.0.0` (and `::`) is refused: the kernel rejects it.
 *
 * With `family` `inet6` the address is IPv6 (any `inet_pton` spelling: either case,
 * leading zeros in groups, `::` anywhere, a dotted IPv4 tail, optionally in
 * brackets), printed as `ipset save` prints it: lower case, the longest zero run
 * compressed, host bits cleared, `/128` dropped, ports as for IPv4
 * (`FE80::0001,80` → `fe80::1,tcp:80`). Prefix lengths are 1–128 (`/0` is refused
 * like IPv4's). A member of the other family is an error, never a line.
 *
 * Returns the input string itself when it is already canonical.
 *
 * @throws IpsetsError `INVALID_MEMBER` quoting the value and saying what was expected.
 */
export declare function canonicalMember(kind: MemberKind, member: string, family?: AddressFamily): string;
/**
 * True when `member` is exactly the canonical text of a member of a set of kernel
 * type `type` and `family` — what `ipset save` prints and what {@link canonicalMember}
 * returns — or, for `list:set`, a valid set name. Anything else (a valid but
 * non-canonical form such as `10.0.0.0/024`, an address of the other family, an
 * element this library never writes) is false. Never throws. This is the test for
 * echoing a kernel member into a plan.
 */
export declare function isCanonicalMember(type: MemberKind | 'list:set', member: string, family?: AddressFamily): boolean;
/** True when `member` is valid for `kind` and `family` (see {@link canonicalMember}). */
export declare function isValidMember(kind: MemberKind, member: string, family?: AddressFamily): boolean;
/**
 * Canonical member of a set of NPM type `type`: list types take set names
 * (validated by {@link validateSetName}, returned unchanged), `namedPorts` takes
 * `hash:ip,port` members, every other hash type takes `hash:net` members, of
 * `family` (default `inet`; lists ignore it).
 *
 * @throws IpsetsError `INVALID_MEMBER` or `INVALID_SET_NAME`.
 */
export declare function canonicalMemberForType(type: SetType, member: string, family?: AddressFamily): string;
/** True when a member carries the ` nomatch` flag. */
export declare function hasNomatch(member: string): boolean;
/** The member without its ` nomatch` flag (as `-D` lines need it); unchanged when it has none. */
export declare function stripNomatch(member: string): string;
/**
 * The kernel entry a canonical member occupies. `nomatch` is an attribute of an
 * entry, not part of its key: `10.0.0.0/8` and `10.0.0.0/8 nomatch` are one entry,
 * so a set holds at most one of them.
 */
export declare function entryKey(member: string): string;
/**
 * True when `name` can be a kernel set name (and a list:set member) in a restore
 * file: 1–31 printable ASCII characters, no whitespace, `#` or `"`, not starting with `-`.
 */
export declare function isValidKernelSetName(name: string): boolean;
/**
 * Validates a kernel set name or list member name (see {@link isValidKernelSetName})
 * and returns it.
 *
 * @throws IpsetsError `INVALID_SET_NAME` quoting the name and saying why.
 */
export declare function validateSetName(name: string): string;
/**
 * The dirty cache (docs/reference-behaviour.md §c): which sets must be created, updated or
 * destroyed in the kernel at the next apply, and each set's member diff.
 *
 * One entry per dirty set, keyed by prefixed name, in the order the sets became
 * dirty (plans follow that order, so the same calls give the same plan). An entry is
 * in exactly one state:
 *
 * - `create`: not in the kernel; to be created with **all** its current members.
 *   The reference keeps an explicit `toAdd` that always equals the current members
 *   (every member change of such a set is recorded); here it is implicit, which
 *   saves a copy of every member when planning from an empty kernel.
 * - `update`: in the kernel; `toAdd` / `toDelete` are the member changes.
 * - `destroy`: in the kernel; to be destroyed. `kernelMembers` are the
 *   members believed to be in the kernel, kept so that a re-create in the same
 *   period can delete stale members.
 *
 * `unknown` marks a set whose kernel contents are not known: a `create` entry is then
 * rebuilt through a temporary set and swap (never flushed in place), and so is a
 * re-create after an unknown `destroy`.
 *
 * `fragile` marks an entry whose plan failed part-way (`IPSetManager.commit`): the
 * kernel holds some of the planned changes. Sent again unchanged the entry is still
 * right (every line is idempotent under `-exist`), but its diff no longer describes
 * the kernel, so the first operation on it turns it `unknown` before applying.
 *
 * Members are canonical member strings for hash sets (` nomatch` kept) and member
 * kernel names for lists.
 *
 * The operations take the set's member view **after** the manager changed the set.
 */
/** State of a dirty set. */
type DirtyState = 'create' | 'update' | 'destroy';
/** The current members of a set, as the dirty cache needs them. */
interface MemberSource {
  /** Calls `fn` for every current member, in insertion order. */
  forEachMember(fn: (member: string) => void): void;
  /** True when `member` is a current member (exact canonical string). */
  hasMember(member: string): boolean;
}
/** One dirty set. Read-only outside this module. */
interface DirtyEntry {
  /** Prefixed name. */
  readonly name: string;
  /** Kernel name. */
  readonly kernelName: string;
  readonly state: DirtyState;
  /** `update`: members to add. */
  readonly toAdd: ReadonlySet<string> | undefined;
  /** `update`: members to delete. */
  readonly toDelete: ReadonlySet<string> | undefined;
  /** `destroy`: members believed to be in the kernel (undefined when {@link unknown}). */
  readonly kernelMembers: readonly string[] | undefined;
  /** The set's kernel contents are unknown (see the module documentation). */
  readonly unknown: boolean;
  /** The entry's last plan failed part-way (see the module documentation). */
  readonly fragile: boolean;
}
/** One cached set. Implements the dirty cache's member view. */
declare class IPSet implements MemberSource {
  readonly name: string;
  readonly unprefixedName: string;
  readonly type: SetType;
  readonly info: SetTypeInfo;
  readonly kernelName: string;
  /** Hash sets: entry (member without ` nomatch`) → pod key. */
  readonly ips: Map<string, string> | undefined;
  /** Hash sets: entries that carry ` nomatch`. */
  nomatch: Set<string> | undefined;
  /** Lists: member kernel name → member set, in list order. */
  readonly memberSets: Map<string, IPSet> | undefined;
  selectorRefs: Set<string> | undefined;
  netPolRefs: Set<string> | undefined;
  ipsetReferCount: number;
  kernelReferCount: number;
  /** The manager's change count at this set's last dirty-cache operation (a plan basis compares it). */
  changedAt: number;
  /** The manager's change count when this set's last dirty-cache create entry was recorded. */
  createdAt: number;
  /** Hash sets: the family a caller named for this set (it then has no sibling of the other family in lists). */
  declaredFamily: AddressFamily | undefined;
  /**
   * Members removed (or switched to or from ` nomatch`) so far. While it stays the same,
   * the first n members in insertion order are the n members a plan saw.
   */
  removals: number;
  constructor(name: string, unprefixedName: string, type: SetType, info: SetTypeInfo, kernelName: string);
  get usedByNetPol(): boolean;
  get memberCount(): number;
  forEachMember(fn: (member: string) => void): void;
  hasMember(member: string): boolean;
  /** The canonical member stored for `key`. */
  memberOf(key: string): string;
}
/** A set as the planners see it. */
interface PlanSetView extends MemberSource {
  readonly name: string;
  readonly kernelName: string;
  readonly info: SetTypeInfo;
  /** Number of current members. */
  readonly memberCount: number;
}
/**
 * The manager's dirty state, as planners read it. Read it before the manager changes
 * again: `entries` and `set` show the manager as it is (the basis keeps what commit
 * needs of the state at snapshot time).
 */
interface DirtySnapshot {
  /** What the snapshot covered; put it on the plan (`RestorePlan.basis`) for commit. */
  readonly basis: PlanBasis;
  /** Owner prefix of the manager's kernel names (temporary rebuild sets are owned by it too). */
  readonly owner: string;
  /** The dirty entries in plan order (the order the sets became dirty). */
  readonly entries: readonly DirtyEntry[];
  /** A cached set, for a create/update entry. */
  set(name: string): PlanSetView | undefined;
  /** The configured capacity of a set type (`{}` when none). */
  capacity(type: SetType): SetCapacity;
}
/** @internal What a basis recorded of one dirty set. */
interface PlannedSet {
  readonly name: string;
  readonly kernelName: string;
  readonly state: DirtyState;
  readonly unknown: boolean;
  readonly fragile: boolean;
  /** `update`: the planned diff (copies). */
  readonly toAdd: readonly string[] | undefined;
  readonly toDelete: readonly string[] | undefined;
  /** The set record at snapshot time (absent for a removed set to destroy). */
  readonly record: IPSet | undefined;
  /** `record.memberCount` and `record.removals` at snapshot time. */
  readonly memberCount: number;
  readonly removals: number;
}
/**
 * The basis of a plan made from a manager's {@link DirtySnapshot}: which dirty sets it
 * covered, at which change count, with which planned operations. Opaque to everyone
 * but the manager that made it.
 */
export declare class PlanBasis {
  /** @internal Identity of the manager that made the basis. */
  readonly source: object;
  /** @internal The manager's commit count when the basis was made. */
  readonly epoch: number;
  /** The manager's change count when the basis was made. */
  readonly changes: number;
  /** @internal */
  readonly planned: ReadonlyMap<string, PlannedSet>;
  /** Number of dirty sets the plan covered. */
  readonly size: number;
  /** @internal */
  constructor(source: object, epoch: number, changes: number, planned: ReadonlyMap<string, PlannedSet>);
}
/** Which sets the kernel should hold (docs/reference-behaviour.md §b.1). */
type IPSetMode = 'all' | 'on-need';
/** `soft`: only an unused, empty set; `force`: an unused set even with members (docs/reference-behaviour.md §b.5). */
type DeleteOption = 'soft' | 'force';
/** `selector`: a netpol selects pods/namespaces by this set; `netpol`: a netpol rule uses it. */
type ReferenceType = 'selector' | 'netpol';
/** Configuration of {@link IPSetManager}. */
interface IPSetManagerConfig {
  /** `all` (default): every cached set is in the kernel; `on-need`: only referenced sets and their list members. */
  mode?: IPSetMode;
  /** Give every namespace-label list the shared empty set `empty-emptyhashset` as a member (default false, as on Linux). */
  addEmptySetToLists?: boolean;
  /** Owner prefix of kernel names (default `azure-npm-`). */
  owner?: string;
  /** Kernel naming scheme (default `sha256-base36`). */
  scheme?: NamingScheme;
  /** Consecutive failed applies after which {@link IPSetManager.recordApplyResult} throws (default 100, the reference's limit). */
  maxConsecutiveFailures?: number;
  /** Receives the reference's "unexpected state" warnings (there is no logger in core). */
  onWarning?: (message: string) => void;
  /**
   * `maxelem` and `hashsize` per set type (hash set types only), e.g.
   * `{ namespace: { maxelem: 131072, hashsize: 2048 } }`. A type not listed is created
   * as NPM always created it (`nethash`: the kernel's maxelem 65536 and hashsize 1024).
   */
  capacity?: Partial<Record<SetType, SetCapacity>>;
}
/** A read-only copy of one set, as {@link IPSetManager.getIPSet} returns it. */
interface IPSetSnapshot {
  /** Prefixed name, e.g. `podlabel-app:web`. */
  readonly name: string;
  readonly unprefixedName: string;
  readonly kernelName: string;
  readonly type: SetType;
  readonly kind: SetKind;
  readonly createSpec: CreateSpec;
  /** Hash sets: canonical members (with ` nomatch`); lists: member prefixed names. Insertion order. */
  readonly members: readonly string[];
  /** Hash sets: member → pod key. Empty for lists. */
  readonly podKeys: ReadonlyMap<string, string>;
  readonly selectorReferences: readonly string[];
  readonly netPolReferences: readonly string[];
  /** Number of cached lists holding this set. */
  readonly ipsetReferCount: number;
  /** Number of lists that should be in the kernel holding this set. */
  readonly kernelReferCount: number;
  /** True when the set should be in the kernel. */
  readonly inKernel: boolean;
}
/** What {@link IPSetManager.commit} did. */
interface CommitResult {
  /** True when the basis cannot be committed (nothing was cleared): another basis was committed since, the manager was reset, or it is another manager's. */
  readonly stale: boolean;
  /** Prefixed names whose planned change reached the kernel. */
  readonly applied: readonly string[];
  /** Prefixed names that stay dirty (failed, in use, or not reached before a fatal end). */
  readonly kept: readonly string[];
}
/** A dirty set as {@link IPSetManager.dirtySets} lists it. */
interface DirtySetInfo {
  readonly name: string;
  readonly kernelName: string;
  readonly state: DirtyState;
  /** The set's kernel contents are unknown (a failed apply): the next apply rebuilds it. */
  readonly unknown: boolean;
}
/**
 * The IPSet manager: desired sets and the dirty delta towards the kernel (see the
 * module documentation). Method names follow the reference (`CreateIPSets` → `createIPSets` …).
 *
 * Every method either throws an {@link IpsetsError} and changes nothing, or succeeds.
 */
export declare class IPSetManager {
  /** `all` or `on-need`. */
  readonly mode: IPSetMode;
  /** Whether namespace-label lists get the shared empty set. */
  readonly addEmptySetToLists: boolean;
  /** Owner prefix of kernel names. */
  readonly owner: string;
  /** Kernel naming scheme. */
  readonly scheme: NamingScheme;
  /** Limit of {@link recordApplyResult}. */
  readonly maxConsecutiveFailures: number;
  private readonly sets;
  /** Kernel name → prefixed name that claimed it (entries of deleted sets are cleaned lazily). */
  private readonly owners;
  /**
   * Lists that hold a logical hash set (added without a family), by the prefixed name
   * of its inet set: they also hold its inet6 sibling, whenever that comes to exist.
   */
  private readonly logicalLists;
  private readonly dirty;
  private readonly warn;
  private readonly capacity;
  private emptySet;
  /** Counts dirty-cache operations: a plan basis records it, and set records their last one. */
  private changes;
  /** Counts commits and resets: a basis made before the last one is stale. */
  private epoch;
  /** Identity of this manager in the bases it makes. */
  private readonly identity;
  /**
   * Prefixed name → kernel name of sets whose create was cancelled (deleted, or no
   * longer needed in the kernel, before they reached it) since the last commit, after
   * a plan was made that may hold the create: that plan may still create them. Their
   * kernel names are free at once (as in the reference); a set that takes one is in
   * {@link reclaimed}.
   */
  private readonly cancelled;
  /**
   * Prefixed names of sets that took the kernel name of a {@link cancelled} set since the
   * last commit: the kernel may come to hold that name with the cancelled set's members,
   * so their kernel contents are unknown (rebuilt, never merged or destroyed).
   */
  private readonly reclaimed;
  /** {@link changes} when the last plan snapshot was taken (-1: none yet). */
  private snapshotAt;
  /** What a commit settles reports against (made once). */
  private settleTarget;
  private failures;
  private readonly memberPool;
  private readonly podKeyPool;
  /** The last metadata {@link named} checked: its fields, type info and prefixed name. */
  private namedName;
  private namedType;
  private namedFamily;
  private namedInfo;
  private namedPrefixed;
  /** The last member value interned by the running addToSets call, and its pooled copy. */
  private lastMember;
  private lastMemberKey;
  constructor(config?: IPSetManagerConfig);
  /**
   * Creates the sets that do not exist yet (docs/reference-behaviour.md §b.4). Existing sets are left as they
   * are. Unlike the reference, an invalid metadata or a kernel-name collision throws and
   * nothing is created.
   *
   * @throws IpsetsError `INVALID_SET_TYPE`, `INVALID_SET_NAME`, `KERNEL_NAME_COLLISION`.
   */
  createIPSets(metas: readonly SetMetadata[]): void;
  /**
   * Deletes a set from the cache (docs/reference-behaviour.md §b.5) if it is unused: `force` needs no netpol
   * references and no list holding it; `soft` also needs it to be empty (or hold only
   * the shared empty set). Unknown names and the shared empty set are ignored. In mode
   * `all` the set is destroyed at the next apply. Deleting a list releases its members'
   * reference counts (the reference leaks them, docs/reference-behaviour.md §g.2.6).
   *
   * @returns true when the set was deleted.
   */
  deleteIPSet(prefixedName: string, option?: DeleteOption): boolean;
  /**
   * Soft-deletes every set that can be deleted (docs/reference-behaviour.md §b.13) and returns their prefixed
   * names, in creation order. One pass suffices: a soft-deletable list holds at most
   * the shared empty set, which is never deleted.
   */
  reconcile(): string[];
  /** Forgets every set and the dirty delta (after a kernel reset, docs/reference-behaviour.md §b.15), and the failure count. */
  reset(): void;
  /**
   * Adds `member` with owner `podKey` to every set of `metas`, creating missing sets
   * (docs/reference-behaviour.md §b.9). A member already present gets the new pod key (ownership transfer).
   * The member is canonicalised for each set's kind (`hash:net` or `hash:ip,port`) and
   * everything is validated before anything changes.
   *
   * @throws IpsetsError `INVALID_MEMBER` (bad member or wrong form for a set's kind),
   *   `INVALID_SET_TYPE` (a list, or the empty set), `INVALID_SET_NAME`, `KERNEL_NAME_COLLISION`.
   */
  addToSets(metas: readonly SetMetadata[], member: string, podKey: string): void;
  /**
   * Removes `member` from every existing set of `metas` whose copy of it is owned by
   * `podKey` (docs/reference-behaviour.md §b.10); a different owner means the remove is stale and is ignored,
   * and so is a member that is not there (`10.0.0.0/8` and `10.0.0.0/8 nomatch` are
   * different members). Validates everything first.
   *
   * @throws IpsetsError `INVALID_MEMBER` (with "remove" in the message; the reference says
   *   "add", docs/reference-behaviour.md §g.2.15), `INVALID_SET_TYPE`, `INVALID_SET_NAME`.
   */
  removeFromSets(metas: readonly SetMetadata[], member: string, podKey: string): void;
  /**
   * Adds every set of `setMetas` to every list of `listMetas`, creating missing sets
   * (docs/reference-behaviour.md §b.11). Validates everything first.
   *
   * @throws IpsetsError `INVALID_SET_TYPE` (a list in `setMetas` — lists cannot nest —
   *   or a hash set in `listMetas`), `INVALID_SET_NAME`, `KERNEL_NAME_COLLISION`.
   */
  addToLists(listMetas: readonly SetMetadata[], setMetas: readonly SetMetadata[]): void;
  /**
   * Removes the sets of `setMetas` from the list `listMeta` (docs/reference-behaviour.md §b.12). A missing list
   * or member is ignored; the shared empty set is never removed. Validates everything first.
   *
   * @throws IpsetsError `INVALID_SET_TYPE`, `INVALID_SET_NAME`.
   */
  removeFromList(listMeta: SetMetadata, setMetas: readonly SetMetadata[]): void;
  private detachFromList;
  /**
   * Records that netpol `refName` uses the set (docs/reference-behaviour.md §b.7), creating it if missing.
   * In mode `on-need` a set that gains its first reason to be in the kernel is created
   * there, with its list members. Validates before creating anything (the reference creates
   * the set even when the reference is then refused).
   *
   * @throws IpsetsError `INVALID_REFERENCE` (selector on a type that cannot select; a
   *   second netpol on a CIDR set), `INVALID_SET_TYPE`, `INVALID_SET_NAME`,
   *   `KERNEL_NAME_COLLISION`, `INVALID_ARGUMENT`.
   */
  addReference(meta: SetMetadata, refName: string, refType: ReferenceType): void;
  private addReferenceTo;
  /**
   * Removes netpol `refName`'s reference (docs/reference-behaviour.md §b.8); removing an absent reference is
   * fine. In mode `on-need` a set that loses its last reason to be in the kernel is
   * destroyed there (it stays in the cache until {@link reconcile} or {@link deleteIPSet}).
   *
   * @throws IpsetsError `SET_NOT_FOUND` when the set does not exist, `INVALID_ARGUMENT`.
   */
  deleteReference(prefixedName: string, refName: string, refType: ReferenceType): void;
  private deleteReferenceFrom;
  /** A frozen snapshot of the set, or `undefined` (the reference hands out the live object, docs/reference-behaviour.md §g.2.17). */
  getIPSet(prefixedName: string): IPSetSnapshot | undefined;
  /** Kernel name → prefixed name of every cached set, in creation order (docs/reference-behaviour.md §b.6). */
  getAllIPSets(): Map<string, string>;
  /** True when a set with this prefixed name is cached. */
  hasIPSet(prefixedName: string): boolean;
  /** Number of cached sets. */
  get size(): number;
  /**
   * Every set that should be in the kernel, with its canonical members (lists: member
   * kernel names in list order), in creation order.
   */
  desiredState(): DesiredState;
  /** The dirty sets in plan order. */
  dirtySets(): DirtySetInfo[];
  /** True when the next apply has something to do. */
  get hasDirtyChanges(): boolean;
  /**
   * The dirty state as planners read it: the dirty entries in plan order, the sets,
   * their capacity, and the basis to put on the plan (see {@link DirtySnapshot}).
   * Changes nothing: a plan made for a preview leaves every other plan committable.
   */
  dirtySnapshot(): DirtySnapshot;
  /**
   * Takes the basis of a plan made from this manager and the report of running it, and
   * clears from the dirty cache only what that plan covered and reached the kernel:
   * every planned set except `report.failedSets` and `report.inUseSets` (those stay
   * dirty so the next apply retries them). A fatal report names as failed every set
   * with a line not known to be applied, so the sets that landed before a session ended
   * early are cleared too, and the next apply starts past them instead of replaying
   * them. Changes made after planning always stay dirty. A failed set that also changed
   * after planning is re-sent whole at the next apply (its kernel contents are unknown).
   *
   * `commit(report)` takes the basis from `report.plan.basis`.
   *
   * A basis can be committed once, and only until another basis of this manager is
   * committed or the manager is reset: otherwise nothing is cleared and the result says
   * `stale: true` (as for a basis of another manager, or none). Making more plans does
   * not make a plan stale.
   */
  commit(report: ApplyReport): CommitResult;
  commit(basis: PlanBasis | undefined, report: ApplyReport): CommitResult;
  /** Consecutive failed applies recorded by {@link recordApplyResult}. */
  get consecutiveApplyFailures(): number;
  /**
   * Counts an apply: success resets the count, failure increments it.
   *
   * @throws IpsetsError `MAX_CONSECUTIVE_FAILURES` when a failure reaches
   *   {@link maxConsecutiveFailures} (the reference panics here). The count stays at the limit.
   */
  recordApplyResult(ok: boolean): void;
  private shouldBeInKernel;
  private canBeForceDeleted;
  private canBeDeleted;
  /**
   * Validates `meta` and returns its type info; its prefixed name is left in
   * `namedPrefixed`. The last metadata's are kept: a caller adding members one at a time
   * names the same set again and again (a file's set, an agent's label), and the check
   * and the name depend on the name, type and family alone.
   */
  private named;
  /** Validates `meta` for lookup only (no creation): a known type that fits an existing set. */
  private lookup;
  /** Validates `meta` for use with creation: also claims (tentatively, in `claims`) the kernel name of a new set. */
  private resolve;
  /** Notes the family a caller named for `set` (a single-family set: see {@link singleFamily}); returns `set`. */
  private declare;
  /**
   * A list member as the list holds it: a family-less member that names a set declared
   * with one family (and no set of the other family) is that kernel set alone, so no
   * empty sibling of the other family is made just to be put into the list.
   */
  private singleFamily;
  /** Also resolves the shared empty set when one of `resolved` is a namespace list that will need it. */
  private resolveEmptySetFor;
  /**
   * The prefixed name holding a kernel name: a cached set, or a deleted one the kernel
   * holds until its destroy lands. A set deleted before it reached the kernel holds
   * none (see {@link cancelled}).
   */
  private claimant;
  /**
   * At a commit: a cancelled set that the committed plan held may now exist in the
   * kernel under a name another set took since. The destroy the report settles for it
   * would destroy that set, so it is dropped, and the set that holds the name now is
   * rebuilt (its kernel contents are unknown).
   */
  private settleReclaimed;
  private kernelWorkPending;
  private releaseIdleClaim;
  private checkFamily;
  private requireHashSet;
  private requireMemberSet;
  private requireList;
  /** The reference's `createAndGetIPSet` after validation (cannot fail). */
  private getOrCreate;
  private ensureEmptySet;
  private addMemberTo;
  private removeMemberFrom;
  private addMemberToList;
  private takeKernelReference;
  private releaseKernelReference;
  private removeSet;
  /** The pooled copy of a member, looked up once per call however many sets it goes to. */
  private internMember;
  private dCreate;
  private dDestroy;
  private dAddMember;
  private dDeleteMember;
}
/**
 * The set a plan line is for, in reports that group lines by set: its `subject` (a
 * rebuild's lines 1-4, reported for the live set), the live set of a rebuild's cleanup
 * line, else the set it names.
 */
export declare function lineSubject(line: PlanLine): string;
/** Growth of hash sets past their `maxelem` (see {@link growMaxelem}). */
interface GrowthPolicy {
  /** Grow at all (default `true`). Without growth, a set whose members do not fit gets `hash-full` for that set only. */
  readonly enabled?: boolean;
  /** The largest maxelem growth may pick (default {@link DEFAULT_GROWTH_CEILING}). A larger configured maxelem is kept as it is. */
  readonly ceiling?: number;
}
/** Default growth ceiling: 1,048,576 entries (Calico's default `MaxIpsetSize`). */
export declare const DEFAULT_GROWTH_CEILING = 1048576;
/** Options of {@link planApply} and {@link planApplyWithSave}. */
interface PlanApplyOptions {
  /**
   * Kernel names of the sets the kernel holds (`ipset list -n`), when known. A dirty
   * set to update that is not among them was destroyed outside this library: it is
   * planned as a create with all its members (and a note) instead of its delta, which
   * would recreate it with only the newest members. A rebuild's temporary is chosen
   * among names the kernel does not hold, and leftover temporaries are removed.
   */
  kernelSets?: ReadonlySet<string>;
  /** Growth of hash sets past their maxelem, as in `planReconcile` (default: on, doubling, up to 1,048,576). */
  growth?: GrowthPolicy;
  /** Writer id that makes temporary set names unique per writer (default `''`), as in `planReconcile`. */
  writer?: string;
}
/** What planners plan from: a manager's {@link DirtySnapshot}, or the manager (whose snapshot is taken). */
type PlanSource = IPSetManager | DirtySnapshot;
/**
 * The reference's apply file (`fileCreatorForApply`, docs/reference-behaviour.md §d.1) for the manager's dirty
 * delta: creates (`-N … --exist`) for every set to add or update, then per set its
 * deletes (`-D`) and adds (`-A`; a set to create gets all its members), then destroys
 * (`-X`, lists first, never a flush) of the sets to destroy. Sections and handlers are
 * the reference's (docs/reference-behaviour.md §e.1, {@link APPLY_HANDLERS}), except
 * that destroys are not flushed first: a destroy the kernel refuses leaves the set
 * intact (reported in use) instead of empty under a live rule. A set whose kernel
 * contents are unknown (after a failed apply, see `IPSetManager.commit`), or whose
 * members outgrow its maxelem, is rebuilt through a temporary set and `swap`
 * (rebuild.ts), so rules matching it never see it empty or partial.
 *
 * With `options.kernelSets` (the names `ipset list -n` printed), a set to update that
 * the kernel no longer holds is planned as a create with all its members, temporaries
 * are chosen among free names and leftover ones are removed.
 *
 * `source` is the manager or its {@link DirtySnapshot}; planning changes nothing in the
 * manager. The plan's `basis` lets `manager.commit(basis, report)` clear exactly what
 * reached the kernel.
 */
export declare function planApply(source: PlanSource, options?: PlanApplyOptions): RestorePlan;
/**
 * The reference's save-file variant (`fileCreatorForApplyWithSaveFile`, docs/reference-behaviour.md §d.2) without
 * its parser quirks, with the fates of set-fate.ts: a dirty set the save holds with
 * another type or family is destroyed and recreated (its `-X` first, lists first, after
 * every owned list holding it lets go of it, `-D`, to hold it again once created;
 * refused, the set stays intact and its section is dropped); one with another maxelem (or that outgrew
 * it), or holding a member that is not in the canonical form ipset prints for its type
 * (never copied into a `-D` line, `unreadable-members-rebuilt` note), is rebuilt
 * through a temporary set and swap. Then creates for every set to add or update; then
 * the dirty sets the snapshot holds, in snapshot order, diffed against their kernel
 * members (`-D` for kernel members not desired, in snapshot order, then `-A` for
 * desired members not in the kernel, in set order); then every other set to add or
 * update with all its members; then destroys, lists first.
 */
export declare function planApplyWithSave(source: PlanSource, save: SaveSnapshot, options?: Omit<PlanApplyOptions, 'kernelSets'>): RestorePlan;
/** Options of {@link planReconcile}. */
interface PlanReconcileOptions {
  /**
   * Destroy and recreate an unreferenced set whose kernel type conflicts with the
   * desired spec (default `true`). With `false`, every conflict is only reported.
   */
  recreateTypeConflicts?: boolean;
  /**
   * Growth of hash sets whose desired members do not fit their maxelem (default: on,
   * doubling, up to 1,048,576): such a set is created, or rebuilt through a temporary
   * set and swap, with a larger maxelem, and a note says so. Off: the set keeps its
   * maxelem and gets `hash-full` for itself only.
   */
  growth?: GrowthPolicy;
  /**
   * Writer id that makes temporary set names of rebuilds unique per writer (default
   * `''`): concurrent writers of one kernel must pass different ids.
   */
  writer?: string;
}
/**
 * Plans the restore lines that make the owned part of the kernel (`snapshot`, with
 * references from `headers`) equal to `desired` (see the module documentation).
 * Decisions that are not lines are in `plan.notes`.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an owner prefix `validateOwnerPrefix` refuses; `INVALID_INPUT` for a
 *   desired set that is not owned, listed twice, has an unknown spec or contradictory
 *   members; `INVALID_MEMBER` / `INVALID_SET_NAME` for a member that does not fit its set.
 */
export declare function planReconcile(desired: DesiredState, snapshot: SaveSnapshot, headers: readonly SetHeader[], options?: PlanReconcileOptions): RestorePlan;
/**
 * The destroy plan of a reset: `-X <name>` for each name that is not in `leaked`, in
 * the order given. Leaked names (still referenced after the owned lists went, e.g. by an
 * iptables rule or a leaked kernel reference count) get no line — destroying them
 * would fail and, in the reference, burn one of its five tries each (issue #2997) — but a
 * `referenced-not-destroyed` note, so the report lists them as in use. With `owner`,
 * every name must be owned ({@link isOwnedSetName}): the guard that keeps a reset from
 * ever touching a set it does not own (the reference's substring `grep azure-npm-`
 * matched names that merely contain the prefix, docs/reference-behaviour.md §g.2.12).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an invalid owner prefix or a name it does not own.
 */
export declare function planResetDestroy(names: Iterable<string>, leaked?: Iterable<string>, owner?: string): RestorePlan;
/** Handlers of the apply planners' lines, per line kind (docs/reference-behaviour.md §e.1), shared by every line of a kind. */
export declare const APPLY_HANDLERS: Readonly<{
  /** `-N`: abort the set's section (its adds and deletes). */
  create: readonly ErrorHandler[];
  /** `-A` to a list. */
  addToList: readonly ErrorHandler[];
  /** `-A` to a hash set. */
  addToSet: readonly ErrorHandler[];
  /** `-D` from a hash set. */
  del: readonly ErrorHandler[];
  /** `-D` from a list (not in the reference): a member set that no longer exists is not in the list. */
  delFromList: readonly ErrorHandler[];
  /** `-X` of a set to destroy (not after a `-F`, unlike the reference: set-fate.ts). */
  destroy: readonly ErrorHandler[];
  /** `-X` of a set the save holds with another type or family, before it is recreated: if refused its create would fail too. */
  destroyToRecreate: readonly ErrorHandler[];
}>;
/** Handlers of a reset `-X` line: referenced sets stay (reported), gone sets are fine, anything else failed. */
export declare const RESET_DESTROY_HANDLERS: readonly ErrorHandler[];
/**
 * Longest restore line, newline included, that ipset reads in one piece and counts as
 * one line (its reader takes 1,023 bytes at a time; measured on ipset 7.17 by the
 * real-kernel tests of @ipsets/exec-linux).
 */
export declare const MAX_RESTORE_LINE_BYTES = 1023;
/**
 * One plan line as restore text, without the trailing newline.
 *
 * Checked as described in the module documentation; a line alone does not say its
 * set's kind, so a member must fit one of the library's member grammars
 * ({@link renderRestore} checks it against the kind of its set's create line). `del`
 * lines drop ` nomatch` because ipset rejects the flag on `del`
 * (``Unknown argument: `nomatch'``, the reference's issue #2840).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` when an add/del line has no member, a create
 *   line no spec or an unknown spec, the op is unknown, or the line would exceed
 *   {@link MAX_RESTORE_LINE_BYTES}; `INVALID_SET_NAME` for a set name that is not a
 *   kernel set name; `INVALID_MEMBER` for a member that is not canonical for the set.
 */
export declare function renderLine(line: PlanLine): string;
/**
 * The restore text of a plan: every line (or the lines at `indices`, in the order
 * given, for a retry attempt) followed by `\n`. An empty selection gives `''`.
 * Every line is checked first (see the module documentation); members are checked
 * against the kind of their set's create line anywhere in the plan, so a retry
 * attempt is checked exactly as the whole plan was.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an index that is not a plan line, or any
 *   error of {@link renderLine}; then no text is produced.
 */
export declare function renderRestore(plan: RestorePlan, indices?: readonly number[]): string;
/**
 * Default number of `ipset restore` runs without progress per session (the reference's
 * `maxTryCount`, which counted every run).
 */
export declare const DEFAULT_MAX_ATTEMPTS = 5;
/** One run of `ipset -exist restore` that the session asks for. */
interface Attempt {
  /** 1-based attempt number. */
  readonly number: number;
  /** The restore text: `renderRestore(plan, indices)`. Line k of it is plan line `indices[k - 1]`. */
  readonly text: string;
  /** Plan indices of the lines sent, in order. */
  readonly indices: readonly number[];
}
/** Options of {@link createRestoreSession}. */
interface RestoreSessionOptions {
  /**
   * Most `ipset restore` runs without progress before giving up (default
   * {@link DEFAULT_MAX_ATTEMPTS}, at least 1). A run makes progress when it applies or
   * skips a line the session did not know about before: handled errors are free, so a
   * plan with any number of independently failing sets still ends with every other set
   * applied. Runs that change nothing (busy, a crash) count. Every progressing run
   * settles at least one line, so a session never makes more than
   * `lines + maxAttempts` runs.
   */
  maxAttempts?: number;
}
/** Options of {@link runRestoreSession} and the drivers. */
interface RunRestoreSessionOptions extends RestoreSessionOptions {
  /** Passed to every port call; once aborted, no further attempt is started. */
  signal?: AbortSignalLike;
}
/** A restore session (see the module documentation). */
interface RestoreSession {
  /**
   * The next attempt to run, or `undefined` when the session is over. Calling it
   * again before {@link record} returns the same attempt.
   */
  next(): Attempt | undefined;
  /**
   * The result of running the attempt last returned by {@link next}.
   *
   * @throws IpsetsError `INVALID_ARGUMENT` when no attempt is outstanding.
   */
  record(result: CommandResult): void;
  /**
   * Ends the session because the outstanding attempt (or the next one) could not be
   * run at all: the port rejected, the caller aborted. Nothing of the outstanding
   * attempt counts as applied. An {@link IpsetsError} keeps its code; anything else
   * ends with `RESTORE_FAILED`.
   */
  fail(error: unknown): void;
  /** The report so far (final once {@link next} returned `undefined`). */
  report(): ApplyReport;
}
/**
 * Starts a restore session over `plan` (see the module documentation). Attempt 1 is
 * the whole plan; an empty plan ends at once, converged.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a `maxAttempts` that is not a positive integer.
 */
export declare function createRestoreSession(plan: RestorePlan, options?: RestoreSessionOptions): RestoreSession;
/**
 * Runs a restore session over `port` until it ends and returns its report. An empty
 * plan makes no port call. A port rejection with an {@link IpsetsError} (binary
 * missing, timeout, abort) ends the session with that code; other rejections are
 * bugs and propagate.
 */
export declare function runRestoreSession(plan: RestorePlan, port: IpsetPort, options?: RunRestoreSessionOptions): Promise<ApplyReport>;
/** The command of the line an error is reported for, when the caller knows it. */
type ClassifyOp = PlanOp | 'test' | 'rename' | 'swap';
/** Options of {@link classifyIpsetError}. */
interface ClassifyOptions {
  /** Exit status of `ipset` (`2` means a parameter problem; `128 + n` means killed by signal n). */
  exitCode?: number;
  /** The signal that ended `ipset`, e.g. `SIGSEGV`. */
  signal?: string;
  /**
   * The command of the failing line. Needed for one message only: "The set with the
   * given name does not exist" is caught in userspace on add/del/test lines (the
   * pending batch is lost) but by the kernel on flush/destroy/rename/swap (the batch
   * was sent). Without it that message is classified as kernel-side.
   */
  op?: ClassifyOp;
}
/**
 * Classifies the stderr of a failed `ipset` run (restore, save or list).
 *
 * - `kind`: from the message, per docs/ipset-semantics.md §3; `crash` when the
 *   process was killed by a signal (`options.signal`, or exit status 128+n with no
 *   output, e.g. 139 for SIGSEGV); `parameter` for rc=2 or the
 *   ``Try `ipset help'`` line; `unknown` otherwise.
 * - `side`: `kernel` when lines before the failing one were applied, `userspace`
 *   when ipset stopped while parsing and its pending add/del batch was never sent.
 *   "The set with the given name does not exist" depends on the line's command
 *   (pass `options.op`; kernel-side without it). Unrecognised messages are
 *   `userspace` unless they say `Kernel error received:`: resending a batch under
 *   `-exist` is harmless, losing one is not.
 * - `line`: from `Error in line N:` on the first stderr line that has one (its message
 *   decides the kind); absent for parameter problems, the multi-line port errors and
 *   crashes. `lineText` instead when N is not a number. The session takes both from
 *   here: this is the only reader of line numbers.
 * - `message`: without `ipset vX.Y: ` and `Error in line N: `; multi-line messages
 *   keep their lines, joined by `\n`.
 * - `transient`: `busy`, and signals other than the deterministic ones (SIGSEGV,
 *   SIGABRT, SIGBUS, SIGILL, SIGFPE, …): a SIGSEGV recurs on the same input, a
 *   SIGKILL or SIGTERM came from outside.
 */
export declare function classifyIpsetError(stderr: string, options?: ClassifyOptions): ClassifiedError;
/** Options of the drivers: the session's attempt budget and an abort signal passed to every port call. */
type DriverOptions = RunRestoreSessionOptions;
/** Options of {@link applyIPSets}. */
interface ApplyOptions extends DriverOptions {
  /**
   * Count the result toward the manager's consecutive-failure limit (default true, as
   * the reference's `ApplyIPSets` does). A caller with a failure policy of its own —
   * the agent of `@ipsets/exec-linux`, which also counts reconciles — passes false, so
   * that one policy decides.
   */
  countFailures?: boolean;
}
/** Options of {@link reconcileIPSets}. */
interface ReconcileOptions extends DriverOptions, PlanReconcileOptions {}
/** Options of {@link resetIPSets}. */
interface ResetOptions extends DriverOptions {
  /**
   * Owner prefix: only sets it owns ({@link isOwnedSetName}) are destroyed
   * (default: the manager's owner, else {@link DEFAULT_OWNER}).
   */
  owner?: string;
  /**
   * A manager to reset with the kernel: its cache, dirty state and failure count are
   * cleared ({@link IPSetManager.reset}) whatever the kernel outcome, as the reference's
   * `ResetIPSets` does. Sets the kernel reset could not remove stay in the kernel
   * (reported in the result); the next reconcile removes or repairs them.
   */
  manager?: IPSetManager;
}
/** What {@link resetIPSets} did. */
interface ResetReport {
  /** The owner prefix used. */
  owner: string;
  /**
   * True when every owned set is gone or reported in {@link leaked}: nothing failed
   * and no session ended early. Leaked sets are reported, not failures (they cannot
   * be destroyed until whatever references them lets go).
   */
  converged: boolean;
  /** Owned sets found by `ipset list -n`, in kernel order. */
  found: string[];
  /** Sets destroyed by this reset. */
  destroyed: string[];
  /** Sets that were already gone when destroyed (someone else removed them). */
  vanished: string[];
  /**
   * Sets not destroyed because something still references them (an iptables rule, a
   * list that stays, a leaked kernel count). They are left intact: a reset never
   * flushes (destroying the owned lists first releases their members).
   */
  leaked: string[];
  /** Sets whose destroy failed for another reason, or that a session never reached. */
  failed: string[];
  /** The first session: destroys of the owned lists nothing references (empty when the references could not be read). */
  lists: ApplyReport;
  /** @deprecated The same report as {@link lists}: a reset no longer flushes. */
  flush: ApplyReport;
  /** The second session: destroys of the rest (absent when the first ended early). */
  destroy?: ApplyReport;
  /** Things that went wrong but did not stop the reset (e.g. `list -t` failed). */
  problems: string[];
}
/**
 * Applies the manager's dirty delta (the reference's default path, `ApplyIPSets`): plans
 * it ({@link planApply}), runs the restore session, commits the report to the
 * manager — only what reached the kernel leaves the dirty cache — and counts the
 * result toward the consecutive-failure limit. With nothing dirty no command runs and
 * the count is untouched (as in the reference).
 *
 * Beyond the reference: when a dirty set is to be updated (not created or destroyed), the
 * driver first reads `ipset list -n` (names only, cheap) so that a set destroyed
 * outside the library is recreated with all its members instead of only the newest
 * ones, which the reference then reported as converged. If `list -n` fails, the apply goes
 * on without the check and says so in a note.
 *
 * Resolves with the report also when the apply did not converge (`report.converged`).
 *
 * @throws IpsetsError `MAX_CONSECUTIVE_FAILURES` when this failure reaches the
 *   manager's limit (the reference panics here); the manager has committed the report first.
 */
export declare function applyIPSets(manager: IPSetManager, port: IpsetPort, options?: ApplyOptions): Promise<ApplyReport>;
/**
 * Applies the manager's dirty sets against what the kernel holds (the reference's
 * save-file variant, `applyIPSetsWithSaveFile`): `ipset save`, parse, plan with
 * {@link planApplyWithSave} (dirty sets that exist are diffed against their kernel
 * members; saved members that are not canonical are never echoed), run the session,
 * commit the report. As in the reference this path does not count toward the
 * consecutive-failure limit. With nothing dirty, nothing runs; as in the reference,
 * the save (seconds on a big node) is read only when a set is to be created or
 * updated — with only destroys pending the plan needs no kernel members.
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `ipset save` fails (nothing is applied).
 */
export declare function applyIPSetsWithSave(manager: IPSetManager, port: IpsetPort, options?: DriverOptions): Promise<ApplyReport>;
/**
 * Makes the owned part of the kernel equal to `desired` (beyond the reference): reads
 * `ipset save` and `ipset list -t`, plans with {@link planReconcile} (drift repaired,
 * undesired owned sets destroyed unless referenced, type conflicts recreated or
 * reported, foreign sets untouched), and runs the session. Planner notes are in
 * `report.notes`; referenced sets left in place are in `report.inUseSets`, type
 * conflicts that could not be fixed in `report.failedSets`.
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `save` or `list -t` fails (nothing is
 *   applied); the planner's validation errors for an invalid desired state.
 */
export declare function reconcileIPSets(desired: DesiredState, port: IpsetPort, options?: ReconcileOptions): Promise<ApplyReport>;
/**
 * Removes every owned set from the kernel (the reference's `resetIPSets`
 * without its fast path), agreeing with reconcile on referenced sets, and never
 * flushing (set-fate.ts: emptying a set a rule still matches changes traffic):
 *
 * 1. `ipset list -n`; keep the owned names ({@link isOwnedSetName}).
 * 2. `ipset list -t` BEFORE anything changes: types and references.
 * 3. Destroy the owned lists nothing references, in one restore: that releases their
 *    members.
 * 4. `ipset list -t` again: sets still referenced are left in the kernel, intact, and
 *    reported `leaked`.
 * 5. Destroy the free ones in a second restore (lists first).
 *
 * When the first `list -t` fails, step 3 is skipped; the destroys still run, and the
 * kernel refuses those of referenced sets (reported leaked, left intact).
 *
 * Never `ipset flush && ipset destroy` of everything (the reference's fast path empties and
 * destroys every set on the host, including ones created a moment later by someone
 * else), and ownership is {@link isOwnedSetName}, not the reference's substring `grep`
 * (docs/reference-behaviour.md §g.2.12): the bare prefix and names with other characters after it are foreign.
 *
 * With `options.manager`, the manager is reset ({@link IPSetManager.reset}) whatever
 * the kernel outcome, also when a kernel read throws (the reference's rule).
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when `list -n` fails (nothing is touched —
 *   the reference read a failure as "no sets"); `INVALID_ARGUMENT` for an owner prefix
 *   {@link validateOwnerPrefix} refuses (then nothing is reset, the manager neither).
 */
export declare function resetIPSets(port: IpsetPort, options?: ResetOptions): Promise<ResetReport>;
/**
 * Problems {@link parseSave} keeps in full; past them it only counts
 * (`SaveSnapshot.problemCount`), so a 100 MB garbage save costs bounded memory.
 */
export declare const MAX_PARSE_PROBLEMS = 100;
/** Longest line text a {@link ParseProblem} keeps (the full length is in `length`). */
export declare const PROBLEM_TEXT_LIMIT = 200;
/**
 * Parses `ipset save` output into sets in dump order, each with its type, create
 * options and members (as printed, which is canonical; a ` nomatch` flag is kept as
 * the member suffix, other element options such as `timeout`, `packets`, `bytes`,
 * `comment` are dropped).
 *
 * Never throws. Problems (line number, text, reason) are collected and parsing goes
 * on: an unknown command, a `create` without a type or for a name already created
 * (its later `add` lines go to the first set), an `add` without a member or for a set
 * whose `create` line has not been seen. Blank lines and `#` comments are skipped;
 * CRLF line ends and a missing final newline are accepted.
 *
 * Unlike the reference (docs/reference-behaviour.md §d.2, §g.2.11) a `create` on the last line is
 * parsed, and a `nomatch` entry does not end the reading of its set.
 *
 * Members are slices of `text`; a snapshot kept for long keeps the text alive. Each
 * set's `members` array is made on first read: until then the set holds only where
 * its members lie in `text`, which `planReconcile` reads directly (a resync of
 * a million-member save then makes no string per unchanged member). Reading or
 * assigning `members` makes a plain array that every later reader sees.
 *
 * Bounded on hostile input: the first {@link MAX_PARSE_PROBLEMS} problems are kept,
 * each with at most {@link PROBLEM_TEXT_LIMIT} characters of its line; the rest are
 * only counted in `problemCount` (the total, kept ones included). Time is linear in
 * the length of `text`.
 *
 * Members are kept as printed and not checked against their set's type here (foreign
 * sets may be of any type); planners echo a saved member into a plan only when it is
 * canonical for the set ({@link isCanonicalMember}).
 */
export declare function parseSave(text: string): SaveSnapshot;
/**
 * Parses `ipset list -n`: one set name per line, in kernel order. Surrounding
 * whitespace is trimmed; blank lines are skipped. Never throws.
 */
export declare function parseListNames(text: string): string[];
/**
 * Parses `ipset list -t` (or plain `ipset list`, whose member lines are skipped):
 * blocks of `Field: value` lines separated by blank lines. `Name:` also starts a new
 * block. Unknown fields are ignored; a block without `Name:` is dropped; a missing
 * `Type:` or `Header:` reads as `''`, and a missing or non-numeric `References:` or
 * `Number of entries:` as `0`. Never throws.
 */
export declare function parseListHeaders(text: string): SetHeader[];
export type { AbortSignalLike, AddressFamily, ApplyOptions, ApplyReport, Attempt, AttemptRecord, ClassifiedError, ClassifyOp, ClassifyOptions, CommandResult, CommitResult, CreateSpec, DeleteOption, DesiredSet, DesiredState, DirtyEntry, DirtySetInfo, DirtySnapshot, DirtyState, DriverOptions, ErrorHandler, ErrorSide, GrowthPolicy, IPSetManagerConfig, IPSetMode, IPSetSnapshot, IpsetErrorKind, IpsetPort, IpsetsErrorCode, IpsetsErrorDetails, IpsetsErrorDetailsMap, IpsetsErrorOptions, KernelNameOptions, KernelSetType, MemberKind, MemberSource, NamingScheme, Outcome, ParseProblem, PlanApplyOptions, PlanLine, PlanNote, PlanOp, PlanReconcileOptions, PlanSetView, PlanSource, PortCallOptions, ReconcileOptions, ReferenceType, ResetOptions, ResetReport, RestorePlan, RestoreSession, RestoreSessionOptions, RunRestoreSessionOptions, SaveSnapshot, SavedSet, SetCapacity, SetHeader, SetKind, SetMetadata, SetType, SetTypeInfo, SkippedLine };
