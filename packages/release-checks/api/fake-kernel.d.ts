// ---- dist/fake-kernel.d.ts ----
import { CommandResult, ErrorSide } from "@ipsets/core";
/** Options of {@link FakeKernel}. */
interface FakeKernelOptions {
  /** Maximal number of sets (default 65,472 like the real kernel; tests may use a small number). */
  maxSets?: number;
}
/** What an injected failure says and who "caught" it. */
interface FaultSpec {
  /** The message after `Error in line N: ` (e.g. `Hash is full, cannot add more elements`). */
  message: string;
  /**
   * `kernel` (default): the pending batch before the line is applied, and for add/del lines
   * the batch up to the line; `userspace`: the pending batch is lost.
   */
  side?: ErrorSide;
}
/** Signals a crash fault ends `ipset` with. */
type CrashSignal = 'SIGKILL' | 'SIGSEGV';
/** Options of {@link FakeKernel.restore}. */
interface RestoreOptions {
  /** `ipset -exist restore`. */
  exist?: boolean;
}
/** The JSON form of a kernel's state (see {@link FakeKernel.toJSON}). */
interface FakeKernelJSON {
  format: 'ipsets-fake-kernel/1';
  maxSets: number;
  seq: number;
  slots: (SlotJSON | null)[];
}
interface SlotJSON {
  name: string;
  iptRefs: number;
  type: string;
  options: Record<string, unknown>;
  entries?: [number | string, number | Record<string, unknown>][];
  members?: string[];
  data?: [string, Record<string, unknown>][];
}
/** A fake kernel (one network namespace) with the ipset 7.17 userspace tool in front of it. */
declare class FakeKernel {
  private state;
  private lineFaults;
  private matchFaults;
  private busyCount;
  private crash;
  private hangArmed;
  constructor(options?: FakeKernelOptions);
  /** `ipset restore` (with `-exist` when `options.exist`) of `text`. Synchronous. */
  restore(text: string, options?: RestoreOptions): CommandResult;
  /** `ipset save [name]`. */
  save(name?: string): CommandResult;
  /** `ipset list [name]` (plain). */
  list(name?: string): CommandResult;
  /** `ipset list -n`. */
  listNames(): CommandResult;
  /** `ipset list -t`. */
  listHeaders(): CommandResult;
  /**
   * Runs an `ipset` command line (without the program name), e.g.
   * `['-exist', 'restore']`, `['list', '-o', 'save']`, `['add', 'a', '1.2.3.4']`;
   * `stdin` feeds `restore`. Non-restore commands report errors without line numbers.
   */
  exec(argv: readonly string[], stdin?: string): CommandResult;
  private newSession;
  private takeRunFaults;
  /** Adds an iptables-style reference (`-m set --match-set name`): the set cannot be destroyed or renamed. */
  reference(name: string): void;
  /** Removes one iptables-style reference. */
  unreference(name: string): void;
  private slotOrThrow;
  /** The next restore fails at input line `line` (1-based fgets line) with `fault`. */
  failLine(line: number, fault: FaultSpec): this;
  /** The next input line (in this or a later restore) matching `regex` fails with `fault`. */
  failNextMatching(regex: RegExp, fault: FaultSpec): this;
  /**
   * The next `times` add/del batches sent fail with `Kernel error received: Device or resource busy`
   * (kernel side, reported at the batch's first line, nothing of that batch applied).
   */
  busy(times?: number): this;
  /** The next restore applies input lines 1..`lines` only, then dies by `signal` (exit 137/139, no stderr). */
  crashAfter(lines: number, signal?: CrashSignal): this;
  /** The next restore through a fake port never finishes until its AbortSignal fires. */
  hang(): this;
  /** Consumes an armed {@link hang} (used by the fake port). */
  takeHang(): boolean;
  /** Disarms every fault. */
  clearFaults(): this;
  /** Set names in `ipset list -n` order. */
  setNames(): string[];
  /** Members of a set as `ipset save` prints them (insertion order), or undefined. */
  members(name: string): string[] | undefined;
  /** References of a set (list:set memberships + iptables), or undefined. */
  references(name: string): number | undefined;
  /** `ipset save` text of everything (same as `save().stdout`). */
  saveText(): string;
  /** The state as JSON (sets in slot order with members and iptables references; faults are not kept). */
  toJSON(): FakeKernelJSON;
  /** Rebuilds a kernel from {@link toJSON}'s output. */
  static fromJSON(json: unknown): FakeKernel;
}
export { FaultSpec as a, FakeKernelOptions as i, FakeKernel as n, RestoreOptions as o, FakeKernelJSON as r, CrashSignal as t };

// ---- dist/index.d.ts ----
/**
 * @ipsets/fake-kernel — a fake Linux kernel faithful to ipset 7.17 (`FakeKernel`: the
 * restore/save/list semantics, one C behaviour per file under `fake/`), an
 * `IpsetPort` over it. It depends on `@ipsets/core` only and uses no Node built-ins, so
 * a browser page, a simulator or a production command can load it. The invariant
 * checks that compare a kernel with a desired state (test assertions) are the
 * `@ipsets/fake-kernel/invariants` subpath; the state file kept between processes is
 * the Node-only subpath `@ipsets/fake-kernel/state-file`.
 *
 * @packageDocumentation
 */
import { a as FaultSpec, i as FakeKernelOptions, n as FakeKernel, o as RestoreOptions, r as FakeKernelJSON, t as CrashSignal } from "./fake-kernel-BRPmjW5u.js";
import { IpsetPort } from "@ipsets/core";
/** Options of {@link createFakePort}. */
interface FakePortOptions {
  /**
   * Awaited before every call (latency injection), e.g.
   * `(op) => new Promise((r) => setTimeout(r, 5))`. Receives the operation name.
   */
  delay?: (op: 'restore' | 'save' | 'listNames' | 'listHeaders') => Promise<void>;
  /** Run restores with `-exist` (default true, like the real port). */
  exist?: boolean;
}
/** A port over a fake kernel. Non-zero exit codes resolve; only aborts reject. */
export declare function createFakePort(kernel: FakeKernel, options?: FakePortOptions): IpsetPort;
export { type CrashSignal, FakeKernel, type FakeKernelJSON, type FakeKernelOptions, type FakePortOptions, type FaultSpec, type RestoreOptions };

// ---- dist/invariants.d.ts ----
import { ApplyReport, CommandResult, DesiredState } from "@ipsets/core";
/** Where a check reads the kernel from: `ipset save` output, or something that prints it (a `FakeKernel`). */
export type SaveSource = string | {
  save(): CommandResult;
};
/** One set of a save dump, normalised for comparison. */
export interface CanonicalSet {
  name: string;
  /** Kernel type, e.g. `hash:net`. */
  type: string;
  /** Create options without `hashsize` and `initval` (they vary by growth and by random seed). */
  options: string;
  /** Hash sets: members sorted (the kernel prints hash order); list:set: members in list order. */
  members: string[];
}
/** Options of {@link assertConverged} and {@link convergenceProblems}. */
export interface ConvergedOptions {
  /** Sets named in `report.failedSets` and `report.inUseSets` are not checked. */
  report?: Pick<ApplyReport, 'failedSets' | 'inUseSets'>;
  /** More kernel names not to check. */
  except?: Iterable<string>;
}
/** Why one owned set is not in its desired state. */
export interface ConvergenceProblem {
  set: string;
  problem: string;
  /** Desired members the kernel set lacks. */
  missing?: string[];
  /** Kernel members that are not desired. */
  extra?: string[];
}
/** The save text of a source; a failed `save()` is itself a violation. */
export declare function saveTextOf(source: SaveSource): string;
/** Create options without the values that differ between equal sets (`hashsize` grows, `initval` is random). */
export declare function normalizeCreateOptions(options: string): string;
/**
 * The sets of a save dump in dump order, normalised: options without `hashsize` and
 * `initval`, hash-set members sorted. `filter` keeps only the sets whose names pass.
 */
export declare function canonicalSave(text: string, filter?: (name: string) => boolean): CanonicalSet[];
/** {@link canonicalSave} printed back as save text (one `create` line, then sorted `add` lines, per set). */
export declare function canonicalSaveText(text: string, filter?: (name: string) => boolean): string;
/**
 * Every owned set (name starts with `desired.owner`) that is not exempt and differs
 * from `desired`: missing, present but undesired, wrong type or options, or with
 * other members (hash sets compared sorted and canonical, lists as sets of names).
 */
export declare function convergenceProblems(source: SaveSource, desired: DesiredState, options?: ConvergedOptions): ConvergenceProblem[];
/**
 * Asserts that every owned set equals its desired state (see {@link convergenceProblems}),
 * except the sets a report names as failed or in use (`options.report`) and `options.except`.
 *
 * @throws Error `InvariantViolation` listing each differing set with a member diff.
 */
export declare function assertConverged(source: SaveSource, desired: DesiredState, options?: ConvergedOptions): void;
/**
 * Asserts that the foreign sets (names not starting with `owner`) of two save dumps are
 * byte-identical: the same sets in the same relative order, each with the same create
 * line and the same add lines in the same order.
 *
 * @throws Error `InvariantViolation` naming the first differing foreign set with both versions.
 */
export declare function assertForeignUntouched(beforeSave: SaveSource, afterSave: SaveSource, owner: string): void;
/**
 * Sets whose kernel state a session cannot know: those with a line in an attempt that
 * ended by a signal or a crash, or that could not be run to the end (exit code -1: the
 * port rejected, a timeout, an abort). Some of their lines may have been applied
 * although the report counts none of them.
 */
export declare function uncertainSets(report: Partial<Pick<ApplyReport, 'plan' | 'attempts'>>): Set<string>;
/** Options of {@link assertReportTruthful}. */
export interface TruthfulOptions {
  /**
   * Sets that may be reported failed although they are in their desired state (a known,
   * harmless false alarm the caller has identified, e.g. a skipped line whose effect a
   * later line achieved anyway). They must still be reported failed or converged.
   */
  tolerateFailed?: Iterable<string>;
}
/**
 * Asserts that a report tells the truth about the kernel: every set named in
 * `report.failedSets` really is not in its desired state; every owned set it does not
 * name (in `failedSets` or `inUseSets`) is; every set in `inUseSets` still exists; and
 * `report.converged` holds exactly when nothing failed and the session was not fatal.
 * A list reported failed while one of its member sets is not in its desired state is
 * a true report (a list is only as converged as its members).
 *
 * A set with a line in an attempt that ended by a signal (a crash, exit without a
 * result) may have reached its desired state without the session knowing: for such
 * sets `failedSets` means "not known to be converged" and `inUseSets` "not known to be
 * destroyed": only the other claims are checked (see {@link uncertainSets}).
 *
 * @throws Error `InvariantViolation` listing every untrue claim.
 */
export declare function assertReportTruthful(report: Pick<ApplyReport, 'converged' | 'failedSets' | 'inUseSets' | 'fatal'> & Partial<Pick<ApplyReport, 'plan' | 'attempts'>>, source: SaveSource, desired: DesiredState, options?: TruthfulOptions): void;

// ---- dist/state-file.d.ts ----
import { n as FakeKernel } from "./fake-kernel-BRPmjW5u.js";
/**
 * Reads a fake kernel's state file; a missing file is an empty kernel.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` when the file cannot be read or is not the
 *   JSON that {@link writeStateFile} writes; the message quotes the path.
 */
export declare function readStateFile(path: string): Promise<FakeKernel>;
/**
 * Writes a fake kernel's state to `path` (creating its folder), atomically: a
 * temporary file beside it, then a rename, so a concurrent reader sees the old state
 * or the new one, never half a file. The temporary name is random and created with
 * `O_EXCL`, so nothing planted at a name someone could guess is ever followed or
 * overwritten. Concurrent writers are not serialised: the last rename wins.
 */
export declare function writeStateFile(path: string, kernel: FakeKernel): Promise<void>;
