/**
 * The shared vocabulary of @ipsets: set model, the port, kernel snapshots, desired
 * state, plans, error kinds and reports. Every package speaks these types.
 */
import type { IpsetsErrorCode } from './errors.js';

// ---------------------------------------------------------------------------
// Set model

/** NPM set types (docs/reference-behaviour.md §a.1), camelCase. */
export type SetType =
  | 'namespace'
  | 'keyLabelOfNamespace'
  | 'keyValueLabelOfNamespace'
  | 'keyLabelOfPod'
  | 'keyValueLabelOfPod'
  | 'namedPorts'
  | 'nestedLabelOfPod'
  | 'cidrBlocks'
  | 'emptyHashSet';

/** `set`: a hash set whose members are addresses; `list`: a list:set whose members are sets. */
export type SetKind = 'set' | 'list';

/** A set as callers name it: unprefixed name plus type, and for hash sets optionally a family. */
export interface SetMetadata {
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
export type NamingScheme = 'sha256-base36' | 'fnv32';

/** The tail of a create line, exactly as the reference writes it after `-N name --exist`. */
export type CreateSpec =
  | 'nethash'
  | 'hash:ip,port'
  | 'setlist'
  | 'nethash maxelem 4294967295'
  | 'nethash family inet6'
  | 'hash:ip,port family inet6'
  | 'nethash family inet6 maxelem 4294967295';

/**
 * Address family of a hash set, as `ipset create … family` spells it: `inet` (IPv4,
 * the default) or `inet6` (IPv6). A hash set holds addresses of its family only.
 */
export type AddressFamily = 'inet' | 'inet6';

/** Kernel type names as `ipset save` prints them for the specs above. */
export type KernelSetType = 'hash:net' | 'hash:ip,port' | 'list:set';

// ---------------------------------------------------------------------------
// The port: the only door to a kernel

/** What one `ipset` invocation produced. */
export interface CommandResult {
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
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Options a driver may pass to one port call. */
export interface PortCallOptions {
  /** Aborts the call; the port kills the process and rejects with an `ABORTED` IpsetsError. */
  signal?: AbortSignalLike;
}

/**
 * A kernel's ipset interface. Implementations: `createLinuxPort` (@ipsets/exec-linux),
 * `createFakePort` (@ipsets/testing). Non-zero exit codes resolve (they are data);
 * a port rejects only when the command could not be run at all.
 */
export interface IpsetPort {
  /** `ipset -exist restore` with `text` on stdin. */
  restore(text: string, options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset save`. */
  save(options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset list -n`. */
  listNames(options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset list -t` (headers: References, Number of entries). */
  listHeaders(options?: PortCallOptions): Promise<CommandResult>;
}

// ---------------------------------------------------------------------------
// What the kernel holds

/** One set of an `ipset save` dump. */
export interface SavedSet {
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
export interface ParseProblem {
  /** 1-based line number in the input. */
  line: number;
  /** The line (trimmed), cut to its first 200 characters. */
  text: string;
  reason: string;
  /** Full length of the line when `text` was cut. */
  length?: number;
}

/** Parsed `ipset save` output. */
export interface SaveSnapshot {
  sets: SavedSet[];
  /** The first problems (at most 100 from `parseSave`), in line order. */
  problems: ParseProblem[];
  /** Total number of problems when there were more than `problems` holds (absent otherwise). */
  problemCount?: number;
}

/** One set of `ipset list -t`. */
export interface SetHeader {
  name: string;
  type: string;
  /** The `Header:` line's value. */
  header: string;
  references: number;
  entries: number;
}

// ---------------------------------------------------------------------------
// Desired state

/** One set as it should be in the kernel. */
export interface DesiredSet {
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
export interface DesiredState {
  /** Owner prefix of kernel names (default `azure-npm-`). */
  owner: string;
  sets: readonly DesiredSet[];
}

// ---------------------------------------------------------------------------
// Plans

/** The restore commands a plan uses (`swap`: only in hitless rebuilds, see rebuild.ts). */
export type PlanOp = 'create' | 'add' | 'del' | 'flush' | 'destroy' | 'swap';

/** Error kinds of `ipset` messages. */
export type IpsetErrorKind =
  | 'set-missing'
  | 'set-exists'
  | 'set-in-use'
  | 'member-set-missing'
  | 'element-exists'
  | 'element-missing'
  | 'hash-full'
  | 'max-sets'
  | 'syntax'
  | 'parameter'
  | 'busy'
  | 'crash'
  | 'unknown';

/** Who caught an error: the kernel (lines before it applied) or ipset in userspace (pending batch lost). */
export type ErrorSide = 'kernel' | 'userspace';

/**
 * What skipping a line means for its set:
 * - `not-converged`: the set did not reach its desired state; it stays dirty and is reported.
 * - `in-use`: a destroy was refused because the set is referenced; it stays in the kernel (flushed) and is reported.
 * - `ignorable`: the line's effect already holds (flush/destroy of a set that is gone).
 */
export type Outcome = 'not-converged' | 'in-use' | 'ignorable';

/** One error handler of a line; the first whose `when` matches wins. */
export interface ErrorHandler {
  when: IpsetErrorKind | 'any';
  then: 'skip-line' | 'skip-section';
  report: Outcome;
}

/** One restore line of a plan. */
export interface PlanLine {
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
  /** Lines that are skipped together (seed: `add/update-<prefixed>`, `delete-<prefixed>`). */
  section: string;
  /** First match wins; no match ends the session. */
  onError: readonly ErrorHandler[];
}

/** Something a planner decided that is not a line (reconcile: kept referenced sets, type conflicts …). */
export interface PlanNote {
  /** Kernel name. */
  set: string;
  /**
   * `unreadable-members-rebuilt`: the save showed a member that is not in the canonical
   * form ipset prints for the set's type; it is never echoed into a plan, the set is
   * flushed and refilled with its desired members instead.
   */
  kind:
    | 'type-conflict-recreated'
    | 'type-conflict-referenced'
    | 'referenced-not-destroyed'
    | 'foreign-skipped'
    | 'unreadable-members-rebuilt'
    | 'info';
  message: string;
}

/** An ordered list of restore lines with their recovery rules. */
export interface RestorePlan {
  lines: PlanLine[];
  notes?: PlanNote[];
  /**
   * Opaque token of the manager state the plan was made from; `manager.commit(report)`
   * uses it so that changes made after planning stay dirty.
   */
  basis?: unknown;
}

// ---------------------------------------------------------------------------
// Errors and reports

/** `classifyIpsetError` result. */
export interface ClassifiedError {
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

/** One run of `ipset restore` in a session. */
export interface AttemptRecord {
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
export interface SkippedLine {
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
export interface ApplyReport {
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
  fatal?: { code: IpsetsErrorCode; message: string; error?: ClassifiedError };
  /** Planner notes carried through (reconcile). */
  notes: PlanNote[];
}
