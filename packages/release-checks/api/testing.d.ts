// ---- dist/index.d.ts ----
/**
 * @ipsets/testing — fast-check arbitraries for @ipsets (pools, manager calls, desired
 * and kernel states, fault plans and the faulty port that arms them, differential
 * restore scripts). The fake kernel and its port are `@ipsets/fake-kernel`, the
 * invariant checks `@ipsets/fake-kernel/invariants`. The port contract suite is the
 * `./vitest` subpath.
 *
 * @packageDocumentation
 */
import fc from "fast-check";
import { CommandResult, DeleteOption, DesiredState, ErrorSide, IPSetManager, IPSetManagerConfig, IpsetPort, IpsetsError, ReferenceType, SetMetadata } from "@ipsets/core";
import { CrashSignal, FakeKernel, FakePortOptions } from "@ipsets/fake-kernel";
/** Canonical `hash:net` members (with ` nomatch` variants of the same entries). */
export declare const NET_MEMBERS: readonly string[];
/** Non-canonical spellings of {@link NET_MEMBERS} entries (the manager canonicalises them). */
export declare const RAW_NET_MEMBERS: readonly string[];
/** Canonical `hash:ip,port` members. */
export declare const PORT_MEMBERS: readonly string[];
/** Canonical `hash:net family inet6` members (as `ipset save` prints them). */
export declare const NET6_MEMBERS: readonly string[];
/** Canonical `hash:ip,port family inet6` members. */
export declare const PORT6_MEMBERS: readonly string[];
/** Non-canonical spellings of {@link PORT_MEMBERS} entries (`ip,port` means tcp). */
export declare const RAW_PORT_MEMBERS: readonly string[];
/** Hash sets of `hash:net` kind the manager arbitraries use. */
export declare const NET_SET_METAS: readonly SetMetadata[];
/** Named-port sets (`hash:ip,port`). */
export declare const PORT_SET_METAS: readonly SetMetadata[];
/** List sets (`list:set`). */
export declare const LIST_SET_METAS: readonly SetMetadata[];
/** Pod keys (owners of members). */
export declare const POD_KEYS: readonly string[];
/** Netpol names of references. */
export declare const REF_NAMES: readonly string[];
/** Labels whose kernel names make the owned-name pool of desired and kernel states. */
export declare const OWNED_LABELS: readonly string[];
/**
 * Names of sets that belong to someone else. `azure-npm` and `azure-npm4242` are near
 * misses of the default owner prefix `azure-npm-`: a prefix test, not a substring test.
 */
export declare const FOREIGN_NAMES: readonly string[];
/** One call of {@link IPSetManager}, as data. */
type ManagerCall = {
  op: 'createIPSets';
  sets: SetMetadata[];
} | {
  op: 'deleteIPSet';
  set: SetMetadata;
  option: DeleteOption;
} | {
  op: 'addToSets';
  sets: SetMetadata[];
  member: string;
  podKey: string;
} | {
  op: 'removeFromSets';
  sets: SetMetadata[];
  member: string;
  podKey: string;
} | {
  op: 'addToLists';
  lists: SetMetadata[];
  sets: SetMetadata[];
} | {
  op: 'removeFromList';
  list: SetMetadata;
  sets: SetMetadata[];
} | {
  op: 'addReference';
  set: SetMetadata;
  refName: string;
  refType: ReferenceType;
} | {
  op: 'deleteReference';
  set: SetMetadata;
  refName: string;
  refType: ReferenceType;
} | {
  op: 'reconcile';
};
/** One manager call over the shared pools; a few are invalid on purpose (they must throw and change nothing). */
export declare function managerCallArb(): fc.Arbitrary<ManagerCall>;
/** A sequence of manager calls. */
export declare function managerCallsArb(options?: {
  minLength?: number;
  maxLength?: number;
}): fc.Arbitrary<ManagerCall[]>;
/** Manager configurations worth testing: both modes, with and without the shared empty set in lists. */
export declare function managerConfigArb(): fc.Arbitrary<IPSetManagerConfig>;
/**
 * Runs one call on `manager`. An {@link IpsetsError} (the manager refusing a call) is
 * returned, not thrown — a refused call must change nothing, which the properties
 * check through the desired state; anything else propagates.
 */
export declare function applyManagerCall(manager: IPSetManager, call: ManagerCall): IpsetsError | undefined;
/** Options of {@link desiredStateArb}. */
interface DesiredStateOptions {
  /** Owner prefix (default `azure-npm-`). */
  owner?: string;
  /** Labels whose kernel names form the name pool (default {@link OWNED_LABELS}). */
  labels?: readonly string[];
  /** Most sets (default 6). */
  maxSets?: number;
  /**
   * Up to this many generated extra members per hash set (default 0): with a few hundred,
   * add runs cross ipset's 4096-byte batch boundary (167 host adds per batch).
   */
  bulk?: number;
}
/** The kernel names of `labels` under `owner` (sha256-base36, 30 characters for the default owner). */
export declare function ownedNames(owner?: string, labels?: readonly string[]): {
  name: string;
  label: string;
}[];
/**
 * Desired states built directly: sets from the owned-name pool with any spec (so a
 * name may be wanted as another type than the kernel has), canonical members of the
 * spec's kind (at most one of `x` and `x nomatch`), lists holding desired hash sets.
 */
export declare function desiredStateArb(options?: DesiredStateOptions): fc.Arbitrary<DesiredState>;
/** Desired states made by a manager: a config and a call sequence, then `manager.desiredState()`. */
export declare function managerDesiredStateArb(options?: {
  maxCalls?: number;
}): fc.Arbitrary<{
  config: IPSetManagerConfig;
  calls: ManagerCall[];
  desired: DesiredState;
}>;
/** A kernel state as data: a restore script that builds it on an empty kernel, and iptables-style references. */
interface InitialKernel {
  /** `ipset restore` input (without `-exist`); hash sets first, then lists. */
  script: string;
  /** Sets to {@link FakeKernel.reference} after the script (a name may repeat). */
  references: string[];
}
/** Options of {@link kernelStateArb}. */
interface KernelStateOptions {
  owner?: string;
  labels?: readonly string[];
  /** Foreign set names (default {@link FOREIGN_NAMES}). */
  foreign?: readonly string[];
  /**
   * Whether something outside the owner may reference owned sets: iptables rules on them
   * and foreign lists holding them (default true). With false, references go to foreign
   * sets only and foreign lists hold only foreign sets.
   */
  ownedReferences?: boolean;
}
/**
 * Initial kernels: owned sets from the owned-name pool with any type (matching a spec,
 * or conflicting: hash:ip, inet6, another list size) and members from the shared pools
 * (so stale and missing members happen), foreign sets (some of them lists holding owned
 * sets), and iptables references on any of them.
 */
export declare function kernelStateArb(options?: KernelStateOptions): fc.Arbitrary<InitialKernel>;
/**
 * Initial kernels close to `desired`: each desired set present or not, with its own
 * type or a conflicting one, its members with some dropped and some stale ones added;
 * plus foreign sets and references as in {@link kernelStateArb}. Drift is small, as
 * after a crash or a missed apply.
 */
export declare function kernelNearArb(desired: DesiredState, options?: KernelStateOptions): fc.Arbitrary<InitialKernel>;
/**
 * A fake kernel in state `initial`.
 *
 * @throws Error when the script fails (an arbitrary produced an impossible state).
 */
export declare function buildKernel(initial: InitialKernel, kernel?: FakeKernel): FakeKernel;
/** Which lines of a restore a line fault may hit. */
type FaultTarget = 'any' | 'add' | 'in-add-batch' | 'del' | 'create' | 'destroy';
/** One planned fault, armed before the `call`-th restore (0-based) through {@link faultyPort}. */
type PlannedFault = {
  kind: 'fail-line';
  call: number;
  target: FaultTarget;
  /** Chooses among the lines that match `target` (modulo their count). */
  pick: number;
  side: ErrorSide;
  /** Chooses among the messages that fit the line and side (see {@link faultMessage}). */
  variant: number;
} | {
  kind: 'busy';
  call: number;
  times: number;
} | {
  kind: 'crash';
  call: number; /** Lines applied before the crash: `pick` modulo (lines + 1). */
  pick: number;
  signal: CrashSignal;
};
/** Faults for the restores of one run, as data. */
interface FaultPlan {
  faults: PlannedFault[];
}
/** Options of {@link faultPlanArb}. */
interface FaultPlanOptions {
  /** Most faults (default 3). */
  maxFaults?: number;
  /** Faults go to restore calls 0..calls-1 (default 3). */
  calls?: number;
  /** Line-fault targets to choose from (default all). */
  targets?: readonly FaultTarget[];
  /** Sides of line faults (default both). */
  sides?: readonly ErrorSide[];
  /** Fault kinds (default all three). */
  kinds?: readonly PlannedFault['kind'][];
}
/** Fault plans: line failures (userspace or kernel side, plausible messages), busy batches, crashes after k lines. */
export declare function faultPlanArb(options?: FaultPlanOptions): fc.Arbitrary<FaultPlan>;
/** A restore line's command, read from the reference syntax or the long forms. */
export declare function restoreLineOp(line: string): {
  op: 'create' | 'add' | 'del' | 'flush' | 'destroy' | 'other';
  set: string;
};
/**
 * The message of a line fault: plausible for the line's command and the side, so that
 * what the kernel does (keep or lose the pending batch) matches how
 * `classifyIpsetError` reads the message.
 */
export declare function faultMessage(line: string, side: ErrorSide, variant: number): string;
/** A fault as it was armed on one restore. */
interface ArmedFault {
  /** 0-based restore call. */
  call: number;
  kind: PlannedFault['kind'];
  /** Line faults: the 1-based line, its text, message and side. Crashes: lines applied before the crash. */
  line?: number;
  text?: string;
  message?: string;
  side?: ErrorSide;
  times?: number;
  signal?: CrashSignal;
}
/** A port over a fake kernel that arms a fault plan restore by restore and records what it did. */
interface FaultyPort extends IpsetPort {
  /** Every restore text, in order. */
  readonly restores: string[];
  /** Every fault armed, in order. */
  readonly armed: ArmedFault[];
  /** Every restore result, in order. */
  readonly results: CommandResult[];
}
/**
 * A port over `kernel` (see `createFakePort`) that arms the faults of `plan` meant for
 * restore call k just before that call, resolving targets against the text, and disarms
 * whatever did not fire afterwards (faults never leak into a later call). A line fault
 * with no matching line in its call is not armed.
 */
export declare function faultyPort(kernel: FakeKernel, plan: FaultPlan, options?: FakePortOptions): FaultyPort;
/** One generated script. */
interface RestoreScript {
  /** The restore text (each line ends in `\n`). */
  text: string;
  /** Run as `ipset -exist restore` (else `ipset restore`). */
  exist: boolean;
  /**
   * A restore run before the script, in an ipset process of its own, that must succeed:
   * its sets are in the kernel but not in the script's userspace set cache, as the sets
   * of a node made by an earlier run are.
   */
  setup?: string;
}
/**
 * Arbitrary restore scripts (see the module comment). A third of them are "clean":
 * no invalid lines, so they usually run to the end and compare a full final state.
 */
export declare function restoreScriptArb(): fc.Arbitrary<RestoreScript>;
export type { ArmedFault, DesiredStateOptions, FaultPlan, FaultPlanOptions, FaultTarget, FaultyPort, InitialKernel, KernelStateOptions, ManagerCall, PlannedFault, RestoreScript };

// ---- dist/vitest.d.ts ----
import { IpsetPort } from "@ipsets/core";
/** What a real-kernel gate answers (`kernelTestGate` of `@ipsets/exec-linux/testing` fits). */
interface KernelGateAnswer {
  /** True when the real-kernel suites can run. */
  run: boolean;
  /** One line saying why they cannot. */
  reason?: string;
}
type Env = Readonly<Record<string, string | undefined>>;
/** A `describe` for suites that need the real kernel (see the module comment). */
type DescribeKernel = (name: string, fn: () => void) => void;
/**
 * Resolves `gate` once (call it at the top level of a test helper: `export const
 * describeKernel = await createDescribeKernel(kernelTestGate)`) and returns the
 * `describe` the real-kernel suites of that file use. A skip prints its reason once
 * per file (`[kernel tests skipped] …`); a failure is one failing case per suite,
 * `needs the real kernel`, whose error is the reason.
 */
export declare function createDescribeKernel(gate: () => Promise<KernelGateAnswer>, env?: Env): Promise<DescribeKernel>;
/** What {@link describePortContract}'s factory returns. */
export interface PortContractFixture {
  /** The port under test; it must start without sets whose names begin with `pc` followed by a digit. */
  port: IpsetPort;
  /** Called once after the suite (delete the namespace, the state file …). */
  cleanup?: () => Promise<void>;
  /** Adds a reference to `set` from outside ipset (an iptables `-m set` rule on Linux). Cases that need it are skipped without it. */
  reference?(set: string): Promise<void>;
  /** Removes one reference added by {@link reference}. */
  unreference?(set: string): Promise<void>;
}
/**
 * Declares the port contract suite `port contract: <name>`. `makePort` runs once
 * before the cases; `cleanup` once after them.
 *
 * @example
 * describePortContract('fake port', async () => ({ port: createFakePort(new FakeKernel()) }));
 */
export declare function describePortContract(name: string, makePort: () => Promise<PortContractFixture>): void;
export type { DescribeKernel, KernelGateAnswer };
