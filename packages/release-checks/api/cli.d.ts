// ---- dist/index.d.ts ----
/**
 * @ipsets/cli — the `ipsets` command. The programmatic surface is what a program
 * that embeds the command needs: `runCli` (or `createProgram` for its commander
 * program) with an io of its own or `processIo()`, the exit codes, and the readers of
 * the desired-state file and its parts with the agent's scheduler, for simulators that
 * model a fleet of agents.
 *
 * @packageDocumentation
 */
import { Command } from "commander";
import { AddressFamily, DesiredState, NamingScheme, SetCapacity, SetMetadata, SetType } from "@ipsets/core";
import { AgentClock } from "@ipsets/exec-linux";
/** A writable text stream (process.stdout fits). */
interface OutStream {
  readonly isTTY?: boolean;
  /** Returns `false` when the stream's buffer is full (then wait for `drain`, if it has `once`). */
  write(text: string): unknown;
  /** A Node stream's events: long outputs wait for `drain` after a full buffer. */
  once?(event: 'drain' | 'error' | 'close', listener: (...args: any[]) => void): unknown;
  /** Removes a listener set with {@link OutStream.once}. */
  off?(event: 'drain' | 'error' | 'close', listener: (...args: any[]) => void): unknown;
}
/** The world a command runs in. */
interface CliIo {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Milliseconds, monotonic enough for durations. */
  now(): number;
}
/** The process's streams, environment and folder. */
export declare function processIo(): CliIo;
/** Exit codes of every command. */
export declare const EXIT: {
  /** Done; for apply: converged. */
  readonly ok: 0;
  /** Apply did not converge, the demo's check failed, or the kernel could not be used. */
  readonly failed: 1;
  /** Bad input: a bad file, option or argument (or a refused empty desired state). Nothing was changed. */
  readonly badInput: 2;
  /** Converged except owned sets the kernel still references (in use). */
  readonly inUse: 3;
  /** Another writer holds the kernel lock and `--wait` ran out. */
  readonly lockHeld: 4;
  /** Agent: the consecutive-failure limit was reached (the supervisor should restart it). */
  readonly tooManyFailures: 5;
  /** `diff --exit-code`: the kernel could not be read, so whether it differs is unknown (kubectl diff's "more than 1"). */
  readonly diffKernelUnreadable: 6;
};
/** This package's version (from its package.json). */
export declare function cliVersion(): string;
/**
 * Builds the program. Each action stores its exit code in `result.code`; commander's
 * own errors (unknown option, missing argument) become exit 2.
 */
export declare function createProgram(io: CliIo, result: {
  code: number;
}): Command;
/**
 * Runs the command line `argv` (without `node` and the script) and returns the exit code.
 */
export declare function runCli(argv: readonly string[], io: CliIo): Promise<number>;
/** One problem of a desired-state file. */
interface FileProblem {
  /** Where the bad value is, e.g. `sets[3].members[0]` (`(root)` for the whole document). */
  readonly path: string;
  /** 1-based line and column in the text, when known. */
  readonly line?: number;
  readonly column?: number;
  /** Quotes the bad value and says what was expected. */
  readonly message: string;
}
/** Options of {@link validateDesiredDocument}. */
interface ValidateDesiredOptions {
  /**
   * The owner prefix the caller asks for (the command's `--owner`): used when the file
   * names none; a file that names another one is refused (default {@link DEFAULT_FILE_OWNER}
   * for files that name none).
   */
  readonly owner?: string;
  /** How messages name where {@link ValidateDesiredOptions.owner} came from (default `the owner option`; the command says `--owner`). */
  readonly ownerSource?: string;
  /**
   * The document is one part of a desired state made of parts: a list's member set
   * may be declared in another part. Such members are returned in `external` instead
   * of being refused, for the caller to check against the other parts.
   */
  readonly externalSets?: boolean;
}
/** One declared set, validated: hash-set members canonical, list members as set metadata. */
interface DesiredFileSet {
  readonly type: SetType;
  /** Unprefixed name. */
  readonly name: string;
  /** Hash sets: canonical members (duplicates removed, first occurrence kept). */
  readonly members: readonly string[];
  /** Lists: member sets (each declared as a hash set in the same file, or in another part of a desired state made of parts). */
  readonly memberSets: readonly SetMetadata[];
  /**
   * Hash sets: the one address family of the set, when the file names it; otherwise
   * IPv4 and IPv6 members go to the set's `inet` and `inet6` kernel sets.
   */
  readonly family?: AddressFamily;
  /** Hash sets: `maxelem` and `hashsize` of the set's kernel set(s), when the file names them. */
  readonly capacity?: SetCapacity;
}
/** A validated desired-state file. */
interface DesiredFile {
  /** Owner prefix of kernel names. */
  readonly owner: string;
  readonly scheme: NamingScheme;
  readonly sets: readonly DesiredFileSet[];
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
export declare function desiredStateOf(file: DesiredFile): DesiredState;
/** Options of {@link parseDesiredText}. */
interface ParseDesiredOptions extends ValidateDesiredOptions {
  /** `json` or `yaml`; by default JSON when the text starts with `{` or `[`, else YAML (YAML reads JSON too). */
  readonly format?: 'json' | 'yaml';
  /** File name for messages. */
  readonly source?: string;
}
/**
 * Parses and validates a desired-state text.
 *
 * @throws IpsetsError `INVALID_INPUT` listing every problem (with lines), when any value is bad.
 */
export declare function parseDesiredText(text: string, options?: ParseDesiredOptions): DesiredFile;
/**
 * The most text a `.gz` part may expand to: 64 MiB, about 3,000,000 members (a
 * ConfigMap holds 1 MiB, which gzip makes 5–10 MiB of desired-state text).
 */
export declare const MAX_DECOMPRESSED_PART_BYTES: number;
/** Options of {@link loadDesiredParts} and {@link DesiredParts}. */
interface DesiredPartsOptions extends ValidateDesiredOptions {
  /** Largest part read, in bytes (default {@link MAX_INPUT_BYTES}). */
  readonly limit?: number;
  /** Largest decompressed text of a `.gz` part (default {@link MAX_DECOMPRESSED_PART_BYTES}). */
  readonly decompressedLimit?: number;
}
/** One problem of the folder, with the part it is about. */
interface PartProblem {
  /** The part (`DIR/name`). */
  readonly file: string;
  readonly message: string;
}
/** What one {@link DesiredParts.check} saw. */
interface PartsCheck {
  /** The desired state in force changed (see {@link DesiredParts.file}). */
  readonly changed: boolean;
  /** Parts whose bytes changed and were parsed again. */
  readonly reread: readonly string[];
  /** Parts not in force as they are on disk (bad, or conflicting with the others): their last good content stays. */
  readonly problems: readonly PartProblem[];
  /** The folder itself cannot be read or holds no part: everything stays as it was. */
  readonly missing?: string;
}
/**
 * Reads a folder of parts as one desired file (`ipsets apply DIR`, `plan`, `diff`).
 *
 * @throws IpsetsError `INVALID_INPUT` naming every bad part, every conflict between
 *   parts (both files), or a folder that holds no part.
 */
export declare function loadDesiredParts(dir: string, options?: DesiredPartsOptions): Promise<DesiredFile>;
/**
 * The parts of a folder as the agent follows them: the content in force of each part
 * and its digest; {@link DesiredParts.check} parses only the parts whose bytes changed.
 */
export declare class DesiredParts {
  readonly dir: string;
  private readonly options;
  /** The parts in force, by file; always a consistent whole. */
  private inForce;
  /** The last bytes seen of each part that is not in force as it is on disk. */
  private seen;
  private combined;
  private constructor();
  /**
   * Reads every part; all of them must be good and consistent.
   *
   * @throws IpsetsError `INVALID_INPUT` naming every bad part or conflict, or a folder without parts.
   */
  static open(dir: string, options?: DesiredPartsOptions): Promise<DesiredParts>;
  /** The desired file in force: every part's last good content, combined. */
  get file(): DesiredFile;
  /** The parts in force. */
  get files(): readonly string[];
  /**
   * Reads the folder again: parts whose bytes changed are parsed, and each change
   * (a new, changed or removed part) is taken in when the parts stay consistent with it.
   */
  check(): Promise<PartsCheck>;
}
/** The timers the scheduler needs (the library agent's {@link AgentClock} fits). */
type SchedulerClock = Pick<AgentClock, 'setTimeout' | 'clearTimeout'>;
/** Options of {@link ApplyScheduler}. */
interface ApplySchedulerOptions {
  /** Tick period (ms). */
  intervalMs: number;
  /** Runs one apply; never rejects (it reports its own errors). */
  run(why: string): Promise<void>;
  /** Called on every tick before the tick's apply (the file re-check). */
  onTick?(): Promise<void>;
  /** The interval's timers (default: real timers). */
  clock?: SchedulerClock;
}
/** Serialises applies and runs the interval loop. */
export declare class ApplyScheduler {
  private readonly options;
  private running;
  private pending;
  private stopped;
  private timer;
  constructor(options: ApplySchedulerOptions);
  /** True while an apply runs. */
  get busy(): boolean;
  /** Asks for an apply (`why` is logged with it). */
  trigger(why: string): void;
  /**
   * Starts the interval loop: a tick every `intervalMs` from now, at a fixed rate (the
   * next tick is armed before this one's check runs, as `setInterval` would), whether
   * or not an apply is running.
   */
  start(): void;
  /** Stops: no more triggers or ticks; resolves when the apply in flight (if any) has ended. */
  halt(): Promise<void>;
}
/** Options of {@link parseDuration}. */
interface ParseDurationOptions {
  /** The smallest accepted duration in milliseconds (default 10). */
  minMs?: number;
  /** The largest accepted duration in milliseconds (default {@link MAX_TIMER_MS}). */
  maxMs?: number;
  /** Name of the flag, quoted in errors (e.g. `--interval`). */
  flag?: string;
}
/**
 * Parses a duration into milliseconds. Units in a compound form must go from larger
 * to smaller and appear at most once each (`1m30s`, not `30s1m`), as in Go.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` quoting the text for anything else, or a
 *   duration outside `minMs`–`maxMs` (naming the range).
 */
declare function parseDuration(value: string, options?: ParseDurationOptions): number;
export { type ApplySchedulerOptions, type CliIo, type DesiredFile, type DesiredFileSet, type DesiredPartsOptions, type FileProblem, type OutStream, type ParseDesiredOptions, type ParseDurationOptions, type PartProblem, type PartsCheck, type SchedulerClock, parseDuration as parseDurationText };
