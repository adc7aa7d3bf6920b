/**
 * fast-check arbitraries for @ipsets: manager call sequences, desired states, initial
 * kernel states and fault plans — and the small interpreters that turn their data into
 * effects (`applyManagerCall`, `buildKernel`, `faultyPort`). Differential restore scripts
 * live in `restore-scripts.ts`.
 *
 * Values are plain data (printable in a counterexample); names and members come from
 * small realistic pools so that calls, desired sets and kernel sets collide: the same
 * set created twice, a member added by one pod and removed by another, a desired set
 * that exists in the kernel with another type, a foreign list holding an owned set.
 */
import fc from 'fast-check';
import { IPSetManager, isIpsetsError, kernelName, prefixedName } from '@ipsets/core';
import type {
  CommandResult,
  CreateSpec,
  DeleteOption,
  DesiredSet,
  DesiredState,
  ErrorSide,
  IPSetManagerConfig,
  IpsetPort,
  IpsetsError,
  ReferenceType,
  SetMetadata,
} from '@ipsets/core';
import { FakeKernel } from './fake-kernel.js';
import type { CrashSignal } from './fake-kernel.js';
import { createFakePort } from './fake-port.js';
import type { FakePortOptions } from './fake-port.js';

// ---------------------------------------------------------------------------
// Pools

/** Canonical `hash:net` members (with ` nomatch` variants of the same entries). */
export const NET_MEMBERS: readonly string[] = Object.freeze([
  '10.0.0.1',
  '10.0.0.2',
  '10.0.0.3',
  '10.244.1.7',
  '10.244.2.9',
  '10.0.1.0/24',
  '10.0.1.0/24 nomatch',
  '10.1.0.0/16',
  '10.1.0.0/16 nomatch',
  '172.16.0.0/12',
  '192.168.0.0/24',
]);

/** Non-canonical spellings of {@link NET_MEMBERS} entries (the manager canonicalises them). */
export const RAW_NET_MEMBERS: readonly string[] = Object.freeze(['10.0.0.1/32', '10.1.2.3/16', '10.0.1.77/24 nomatch', '172.20.0.0/12']);

/** Canonical `hash:ip,port` members. */
export const PORT_MEMBERS: readonly string[] = Object.freeze([
  '10.0.0.1,tcp:80',
  '10.0.0.1,udp:53',
  '10.0.0.2,tcp:8080',
  '10.0.0.2,tcp:443',
  '10.0.0.3,sctp:9000',
]);

/** Canonical `hash:net family inet6` members (as `ipset save` prints them). */
export const NET6_MEMBERS: readonly string[] = Object.freeze([
  'fd00::1',
  'fd00::2',
  '2001:db8::/64',
  '2001:db8::/64 nomatch',
  '2001:db8:1::/48',
  '::ffff:10.0.0.1',
  'fd00::/8',
]);

/** Canonical `hash:ip,port family inet6` members. */
export const PORT6_MEMBERS: readonly string[] = Object.freeze(['fd00::1,tcp:80', 'fd00::1,udp:53', 'fd00::2,tcp:8080', 'fd00::3,sctp:9000']);

/** Non-canonical spellings of {@link PORT_MEMBERS} entries (`ip,port` means tcp). */
export const RAW_PORT_MEMBERS: readonly string[] = Object.freeze(['10.0.0.1,80', '10.0.0.2,8080']);

/** Hash sets of `hash:net` kind the manager arbitraries use. */
export const NET_SET_METAS: readonly SetMetadata[] = Object.freeze([
  { name: 'default', type: 'namespace' },
  { name: 'kube-system', type: 'namespace' },
  { name: 'app', type: 'keyLabelOfPod' },
  { name: 'app:web', type: 'keyValueLabelOfPod' },
  { name: 'app:db', type: 'keyValueLabelOfPod' },
  { name: 'policy-in-0', type: 'cidrBlocks' },
]);

/** Named-port sets (`hash:ip,port`). */
export const PORT_SET_METAS: readonly SetMetadata[] = Object.freeze([
  { name: 'http', type: 'namedPorts' },
  { name: 'dns', type: 'namedPorts' },
]);

/** List sets (`list:set`). */
export const LIST_SET_METAS: readonly SetMetadata[] = Object.freeze([
  { name: 'team', type: 'keyLabelOfNamespace' },
  { name: 'team:a', type: 'keyValueLabelOfNamespace' },
  { name: 'app:web:db', type: 'nestedLabelOfPod' },
]);

const ALL_METAS: readonly SetMetadata[] = [...NET_SET_METAS, ...PORT_SET_METAS, ...LIST_SET_METAS];
const HASH_METAS: readonly SetMetadata[] = [...NET_SET_METAS, ...PORT_SET_METAS];

/** Pod keys (owners of members). */
export const POD_KEYS: readonly string[] = Object.freeze(['default/web-0', 'default/web-1', 'prod/db-0']);

/** Netpol names of references. */
export const REF_NAMES: readonly string[] = Object.freeze(['default/allow-web', 'prod/deny-all']);

/** Labels whose kernel names make the owned-name pool of desired and kernel states. */
export const OWNED_LABELS: readonly string[] = Object.freeze([
  'ns-default',
  'ns-kube-system',
  'podlabel-app',
  'podlabel-app:web',
  'namedport:http',
  'cidr-policy-in-0',
  'nslabel-team',
  'nestedlabel-app:web:db',
]);

/**
 * Names of sets that belong to someone else. `azure-npm` and `azure-npm4242` are near
 * misses of the default owner prefix `azure-npm-`: a prefix test, not a substring test.
 */
export const FOREIGN_NAMES: readonly string[] = Object.freeze(['KUBE-SVC-X1', 'cali40all-hosts', 'azure-npm', 'azure-npm4242', 'weave-list']);

const SPECS: readonly CreateSpec[] = [
  'nethash',
  'nethash maxelem 4294967295',
  'hash:ip,port',
  'setlist',
  'nethash family inet6',
  'hash:ip,port family inet6',
  'nethash family inet6 maxelem 4294967295',
];

// ---------------------------------------------------------------------------
// Manager call sequences

/** One call of {@link IPSetManager}, as data. */
export type ManagerCall =
  | { op: 'createIPSets'; sets: SetMetadata[] }
  | { op: 'deleteIPSet'; set: SetMetadata; option: DeleteOption }
  | { op: 'addToSets'; sets: SetMetadata[]; member: string; podKey: string }
  | { op: 'removeFromSets'; sets: SetMetadata[]; member: string; podKey: string }
  | { op: 'addToLists'; lists: SetMetadata[]; sets: SetMetadata[] }
  | { op: 'removeFromList'; list: SetMetadata; sets: SetMetadata[] }
  | { op: 'addReference'; set: SetMetadata; refName: string; refType: ReferenceType }
  | { op: 'deleteReference'; set: SetMetadata; refName: string; refType: ReferenceType }
  | { op: 'reconcile' };

const pick = <T>(pool: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...pool);
/** Up to `max` distinct items of `pool` in pool order (fewer when the pool is smaller). */
const upTo = <T>(pool: readonly T[], max: number, min = 0): fc.Arbitrary<T[]> =>
  fc.subarray([...pool], { minLength: Math.min(min, pool.length), maxLength: Math.min(max, pool.length) });
const some = <T>(pool: readonly T[], max = 3): fc.Arbitrary<T[]> => upTo(pool, max, 1);

const netMemberArb = fc.oneof({ arbitrary: pick(NET_MEMBERS), weight: 5 }, { arbitrary: pick(RAW_NET_MEMBERS), weight: 1 });
const portMemberArb = fc.oneof({ arbitrary: pick(PORT_MEMBERS), weight: 5 }, { arbitrary: pick(RAW_PORT_MEMBERS), weight: 1 });

/** Sets and a member of their kind; rarely a member of the wrong kind (the call must then throw and change nothing). */
const membershipArb: fc.Arbitrary<{ sets: SetMetadata[]; member: string }> = fc.oneof(
  { arbitrary: fc.record({ sets: some(NET_SET_METAS), member: netMemberArb }), weight: 6 },
  { arbitrary: fc.record({ sets: some(PORT_SET_METAS, 2), member: portMemberArb }), weight: 3 },
  { arbitrary: fc.record({ sets: some(HASH_METAS), member: fc.oneof(netMemberArb, portMemberArb) }), weight: 1 },
);

/** One manager call over the shared pools; a few are invalid on purpose (they must throw and change nothing). */
export function managerCallArb(): fc.Arbitrary<ManagerCall> {
  return fc.oneof(
    { arbitrary: fc.record({ op: fc.constant('createIPSets' as const), sets: some(ALL_METAS) }), weight: 2 },
    {
      arbitrary: fc.record({ op: fc.constant('deleteIPSet' as const), set: pick(ALL_METAS), option: fc.constantFrom<DeleteOption>('soft', 'force') }),
      weight: 2,
    },
    {
      arbitrary: fc.tuple(membershipArb, pick(POD_KEYS)).map(([m, podKey]) => ({ op: 'addToSets' as const, ...m, podKey })),
      weight: 8,
    },
    {
      arbitrary: fc.tuple(membershipArb, pick(POD_KEYS)).map(([m, podKey]) => ({ op: 'removeFromSets' as const, ...m, podKey })),
      weight: 4,
    },
    { arbitrary: fc.record({ op: fc.constant('addToLists' as const), lists: some(LIST_SET_METAS, 2), sets: some(HASH_METAS, 2) }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant('removeFromList' as const), list: pick(LIST_SET_METAS), sets: some(HASH_METAS, 2) }), weight: 2 },
    {
      arbitrary: fc.record({
        op: fc.constant('addReference' as const),
        set: pick(ALL_METAS),
        refName: pick(REF_NAMES),
        refType: fc.constantFrom<ReferenceType>('selector', 'netpol'),
      }),
      weight: 3,
    },
    {
      arbitrary: fc.record({
        op: fc.constant('deleteReference' as const),
        set: pick(ALL_METAS),
        refName: pick(REF_NAMES),
        refType: fc.constantFrom<ReferenceType>('selector', 'netpol'),
      }),
      weight: 2,
    },
    { arbitrary: fc.constant({ op: 'reconcile' as const }), weight: 1 },
  );
}

/** A sequence of manager calls. */
export function managerCallsArb(options: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<ManagerCall[]> {
  return fc.array(managerCallArb(), { minLength: options.minLength ?? 1, maxLength: options.maxLength ?? 20 });
}

/** Manager configurations worth testing: both modes, with and without the shared empty set in lists. */
export function managerConfigArb(): fc.Arbitrary<IPSetManagerConfig> {
  return fc.record({ mode: fc.constantFrom<'all' | 'on-need'>('all', 'on-need'), addEmptySetToLists: fc.boolean() });
}

/**
 * Runs one call on `manager`. An {@link IpsetsError} (the manager refusing a call) is
 * returned, not thrown — a refused call must change nothing, which the properties
 * check through the desired state; anything else propagates.
 */
export function applyManagerCall(manager: IPSetManager, call: ManagerCall): IpsetsError | undefined {
  try {
    switch (call.op) {
      case 'createIPSets':
        manager.createIPSets(call.sets);
        break;
      case 'deleteIPSet':
        manager.deleteIPSet(prefixedName(call.set), call.option);
        break;
      case 'addToSets':
        manager.addToSets(call.sets, call.member, call.podKey);
        break;
      case 'removeFromSets':
        manager.removeFromSets(call.sets, call.member, call.podKey);
        break;
      case 'addToLists':
        manager.addToLists(call.lists, call.sets);
        break;
      case 'removeFromList':
        manager.removeFromList(call.list, call.sets);
        break;
      case 'addReference':
        manager.addReference(call.set, call.refName, call.refType);
        break;
      case 'deleteReference':
        manager.deleteReference(prefixedName(call.set), call.refName, call.refType);
        break;
      case 'reconcile':
        manager.reconcile();
        break;
    }
    return undefined;
  } catch (error) {
    if (isIpsetsError(error)) return error;
    throw error;
  }
}

// ---------------------------------------------------------------------------
// Desired states

/** Options of {@link desiredStateArb}. */
export interface DesiredStateOptions {
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
export function ownedNames(owner = 'azure-npm-', labels: readonly string[] = OWNED_LABELS): { name: string; label: string }[] {
  return labels.map((label) => ({ name: kernelName(label, { owner }), label }));
}

function uniqueByEntry(members: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of members) {
    const key = m.endsWith(' nomatch') ? m.slice(0, -' nomatch'.length) : m;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(m);
  }
  return out;
}

/**
 * Desired states built directly: sets from the owned-name pool with any spec (so a
 * name may be wanted as another type than the kernel has), canonical members of the
 * spec's kind (at most one of `x` and `x nomatch`), lists holding desired hash sets.
 */
export function desiredStateArb(options: DesiredStateOptions = {}): fc.Arbitrary<DesiredState> {
  const owner = options.owner ?? 'azure-npm-';
  const pool = ownedNames(owner, options.labels ?? OWNED_LABELS);
  const setArb = fc.record({
    spec: fc.constantFrom(...SPECS),
    net: upTo(NET_MEMBERS, 6),
    port: upTo(PORT_MEMBERS, 4),
    net6: upTo(NET6_MEMBERS, 5),
    port6: upTo(PORT6_MEMBERS, 3),
    listPicks: fc.array(fc.nat(), { maxLength: 3 }),
    bulk: options.bulk ? fc.nat({ max: options.bulk }) : fc.constant(0),
  });
  return fc
    .tuple(fc.uniqueArray(fc.nat({ max: pool.length - 1 }), { maxLength: options.maxSets ?? 6 }), fc.array(setArb, { minLength: pool.length, maxLength: pool.length }))
    .map(([indices, shapes]) => {
      const chosen = indices.map((i) => ({ ...pool[i]!, shape: shapes[i]! }));
      const hashNames = chosen.filter((c) => c.shape.spec !== 'setlist').map((c) => c.name);
      const sets: DesiredSet[] = chosen.map(({ name, label, shape }) => {
        let members: string[];
        if (shape.spec === 'setlist') {
          members = hashNames.length === 0 ? [] : [...new Set(shape.listPicks.map((p) => hashNames[p % hashNames.length]!))];
        } else if (shape.spec === 'hash:ip,port family inet6') {
          members = [...shape.port6];
        } else if (shape.spec.includes('family inet6')) {
          members = uniqueByEntry(shape.net6);
        } else if (shape.spec === 'hash:ip,port') {
          members = [...shape.port, ...Array.from({ length: shape.bulk }, (_, i) => `10.200.${(i >> 8) & 255}.${i & 255},tcp:${1000 + (i % 1000)}`)];
        } else {
          members = [...uniqueByEntry(shape.net), ...Array.from({ length: shape.bulk }, (_, i) => `10.${200 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`)];
        }
        return { name, label, spec: shape.spec, members };
      });
      return { owner, sets };
    });
}

/** Desired states made by a manager: a config and a call sequence, then `manager.desiredState()`. */
export function managerDesiredStateArb(options: { maxCalls?: number } = {}): fc.Arbitrary<{ config: IPSetManagerConfig; calls: ManagerCall[]; desired: DesiredState }> {
  return fc.record({ config: managerConfigArb(), calls: managerCallsArb({ maxLength: options.maxCalls ?? 20 }) }).map(({ config, calls }) => {
    const manager = new IPSetManager(config);
    for (const call of calls) applyManagerCall(manager, call);
    return { config, calls, desired: manager.desiredState() };
  });
}

// ---------------------------------------------------------------------------
// Initial kernel states

/** A kernel state as data: a restore script that builds it on an empty kernel, and iptables-style references. */
export interface InitialKernel {
  /** `ipset restore` input (without `-exist`); hash sets first, then lists. */
  script: string;
  /** Sets to {@link FakeKernel.reference} after the script (a name may repeat). */
  references: string[];
}

/** Kernel set types of initial states; `hash:ip` and `list:set size 16` conflict with every spec, each other one matches one spec. */
const KERNEL_TYPES = [
  'hash:net',
  'hash:net maxelem 4294967295',
  'hash:ip,port',
  'list:set',
  'hash:ip',
  'hash:net family inet6',
  'list:set size 16',
  'hash:ip,port family inet6',
  'hash:net family inet6 maxelem 4294967295',
] as const;
type KernelType = (typeof KERNEL_TYPES)[number];

const SPEC_TYPE: Readonly<Record<CreateSpec, KernelType>> = {
  nethash: 'hash:net',
  'nethash maxelem 4294967295': 'hash:net maxelem 4294967295',
  'hash:ip,port': 'hash:ip,port',
  setlist: 'list:set',
  'nethash family inet6': 'hash:net family inet6',
  'hash:ip,port family inet6': 'hash:ip,port family inet6',
  'nethash family inet6 maxelem 4294967295': 'hash:net family inet6 maxelem 4294967295',
};

const MEMBERS_OF: Readonly<Record<KernelType, readonly string[]>> = {
  'hash:net': NET_MEMBERS,
  'hash:net maxelem 4294967295': NET_MEMBERS,
  'hash:ip,port': PORT_MEMBERS,
  'list:set': [],
  'hash:ip': ['10.0.0.1', '10.0.0.2', '10.0.0.9'],
  'hash:net family inet6': ['2001:db8::/64', '2001:db8::1'],
  'list:set size 16': [],
  'hash:ip,port family inet6': ['fd00::1,tcp:80', 'fd00::9,udp:53'],
  'hash:net family inet6 maxelem 4294967295': ['2001:db8::/64 nomatch', 'fd00::2'],
};

interface KernelSetShape {
  name: string;
  type: KernelType;
  /** Hash sets: members; lists: picks among the hash sets of the state. */
  members: string[];
  listPicks: number[];
}

function kernelSetShapeArb(name: string, type?: fc.Arbitrary<KernelType>): fc.Arbitrary<KernelSetShape> {
  return (type ?? fc.constantFrom(...KERNEL_TYPES)).chain((t) =>
    fc.record({
      name: fc.constant(name),
      type: fc.constant(t),
      members: upTo(MEMBERS_OF[t], 5).map((ms) => (t.startsWith('hash:net') ? uniqueByEntry(ms) : ms)),
      listPicks: fc.array(fc.nat(), { maxLength: 3 }),
    }),
  );
}

function renderKernel(shapes: readonly KernelSetShape[], refPicks: readonly number[], owned?: (name: string) => boolean): InitialKernel {
  const isList = (s: KernelSetShape): boolean => s.type.startsWith('list:set');
  const hashes = shapes.filter((s) => !isList(s));
  const lists = shapes.filter(isList);
  const lines: string[] = [];
  for (const s of hashes) {
    lines.push(`create ${s.name} ${s.type}`);
    for (const m of s.members) lines.push(`add ${s.name} ${m}`);
  }
  for (const s of lists) {
    lines.push(`create ${s.name} ${s.type}`);
    // Without outside references to owned sets, a foreign list holds foreign sets only.
    const pool = owned === undefined || owned(s.name) ? hashes : hashes.filter((h) => !owned(h.name));
    if (pool.length === 0) continue;
    for (const m of new Set(s.listPicks.map((p) => pool[p % pool.length]!.name))) lines.push(`add ${s.name} ${m}`);
  }
  const all = [...hashes, ...lists];
  const targets = owned === undefined ? all : all.filter((s) => !owned(s.name));
  const references = targets.length === 0 ? [] : refPicks.map((p) => targets[p % targets.length]!.name);
  return { script: lines.map((l) => `${l}\n`).join(''), references };
}

/** Options of {@link kernelStateArb}. */
export interface KernelStateOptions {
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
export function kernelStateArb(options: KernelStateOptions = {}): fc.Arbitrary<InitialKernel> {
  const owner = options.owner ?? 'azure-npm-';
  const owned = ownedNames(owner, options.labels ?? OWNED_LABELS).map((o) => o.name);
  const foreign = options.foreign ?? FOREIGN_NAMES;
  const isOwned = options.ownedReferences === false ? (name: string) => name.startsWith(owner) : undefined;
  return fc
    .tuple(
      upTo(owned, 6).chain((names) => fc.tuple(...names.map((n) => kernelSetShapeArb(n)))),
      upTo(foreign, 3).chain((names) => fc.tuple(...names.map((n) => kernelSetShapeArb(n)))),
      fc.array(fc.nat(), { maxLength: 3 }),
    )
    .map(([o, f, refs]) => renderKernel([...o, ...f], refs, isOwned));
}

/**
 * Initial kernels close to `desired`: each desired set present or not, with its own
 * type or a conflicting one, its members with some dropped and some stale ones added;
 * plus foreign sets and references as in {@link kernelStateArb}. Drift is small, as
 * after a crash or a missed apply.
 */
export function kernelNearArb(desired: DesiredState, options: KernelStateOptions = {}): fc.Arbitrary<InitialKernel> {
  const foreign = options.foreign ?? FOREIGN_NAMES;
  const nearSet = (s: DesiredSet): fc.Arbitrary<KernelSetShape | undefined> =>
    fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 1 },
      {
        arbitrary: fc
          .record({
            type: fc.oneof({ arbitrary: fc.constant(SPEC_TYPE[s.spec]), weight: 4 }, { arbitrary: fc.constantFrom(...KERNEL_TYPES), weight: 1 }),
            keep: fc.array(fc.boolean(), { minLength: s.members.length, maxLength: s.members.length }),
            stale: fc.nat(),
            listPicks: fc.array(fc.nat(), { maxLength: 2 }),
          })
          .chain((r) =>
            upTo(MEMBERS_OF[r.type], 2).map((extra) => {
              const sameType = r.type === SPEC_TYPE[s.spec];
              const kept = sameType && !r.type.startsWith('list:set') ? s.members.filter((_, i) => r.keep[i]) : [];
              const members = r.type.startsWith('hash:net') ? uniqueByEntry([...kept, ...extra]) : [...new Set([...kept, ...extra])];
              return { name: s.name, type: r.type, members, listPicks: r.listPicks };
            }),
          ),
        weight: 4,
      },
    );
  return fc
    .tuple(
      fc.tuple(...desired.sets.map(nearSet)),
      upTo(foreign, 3).chain((names) => fc.tuple(...names.map((n) => kernelSetShapeArb(n)))),
      fc.array(fc.nat(), { maxLength: 3 }),
    )
    .map(([o, f, refs]) => renderKernel([...o.filter((s): s is KernelSetShape => s !== undefined), ...f], refs));
}

/**
 * A fake kernel in state `initial`.
 *
 * @throws Error when the script fails (an arbitrary produced an impossible state).
 */
export function buildKernel(initial: InitialKernel, kernel: FakeKernel = new FakeKernel()): FakeKernel {
  const r = kernel.restore(initial.script);
  if (r.exitCode !== 0) throw new Error(`initial kernel script failed (exit ${r.exitCode}): ${r.stderr}\n${initial.script}`);
  for (const name of initial.references) kernel.reference(name);
  return kernel;
}

// ---------------------------------------------------------------------------
// Fault plans

/** Which lines of a restore a line fault may hit. */
export type FaultTarget = 'any' | 'add' | 'in-add-batch' | 'del' | 'create' | 'destroy';

/** One planned fault, armed before the `call`-th restore (0-based) through {@link faultyPort}. */
export type PlannedFault =
  | {
      kind: 'fail-line';
      call: number;
      target: FaultTarget;
      /** Chooses among the lines that match `target` (modulo their count). */
      pick: number;
      side: ErrorSide;
      /** Chooses among the messages that fit the line and side (see {@link faultMessage}). */
      variant: number;
    }
  | { kind: 'busy'; call: number; times: number }
  | { kind: 'crash'; call: number; /** Lines applied before the crash: `pick` modulo (lines + 1). */ pick: number; signal: CrashSignal };

/** Faults for the restores of one run, as data. */
export interface FaultPlan {
  faults: PlannedFault[];
}

/** Options of {@link faultPlanArb}. */
export interface FaultPlanOptions {
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
export function faultPlanArb(options: FaultPlanOptions = {}): fc.Arbitrary<FaultPlan> {
  const call = fc.nat({ max: (options.calls ?? 3) - 1 });
  const kinds = options.kinds ?? ['fail-line', 'busy', 'crash'];
  const arbs: fc.WeightedArbitrary<PlannedFault>[] = [];
  if (kinds.includes('fail-line')) {
    arbs.push({
      arbitrary: fc.record({
        kind: fc.constant('fail-line' as const),
        call,
        target: fc.constantFrom(...(options.targets ?? (['any', 'add', 'in-add-batch', 'del', 'create', 'destroy'] as const))),
        pick: fc.nat(),
        side: fc.constantFrom(...(options.sides ?? (['userspace', 'kernel'] as const))),
        variant: fc.nat(),
      }),
      weight: 6,
    });
  }
  if (kinds.includes('busy')) arbs.push({ arbitrary: fc.record({ kind: fc.constant('busy' as const), call, times: fc.integer({ min: 1, max: 2 }) }), weight: 1 });
  if (kinds.includes('crash')) {
    arbs.push({
      arbitrary: fc.record({ kind: fc.constant('crash' as const), call, pick: fc.nat(), signal: fc.constantFrom<CrashSignal>('SIGKILL', 'SIGSEGV') }),
      weight: 1,
    });
  }
  return fc.array(fc.oneof(...arbs), { maxLength: options.maxFaults ?? 3 }).map((faults) => ({ faults }));
}

/** A restore line's command, read from the reference syntax or the long forms. */
export function restoreLineOp(line: string): { op: 'create' | 'add' | 'del' | 'flush' | 'destroy' | 'other'; set: string } {
  const words = line.trim().split(/\s+/);
  const set = words[1] ?? '';
  switch (words[0]) {
    case '-N':
    case 'create':
      return { op: 'create', set };
    case '-A':
    case 'add':
      return { op: 'add', set };
    case '-D':
    case 'del':
      return { op: 'del', set };
    case '-F':
    case 'flush':
      return { op: 'flush', set };
    case '-X':
    case 'destroy':
      return { op: 'destroy', set };
    default:
      return { op: 'other', set };
  }
}

/**
 * The message of a line fault: plausible for the line's command and the side, so that
 * what the kernel does (keep or lose the pending batch) matches how
 * `classifyIpsetError` reads the message.
 */
export function faultMessage(line: string, side: ErrorSide, variant: number): string {
  const { op, set } = restoreLineOp(line);
  const member = line.trim().split(/\s+/)[2] ?? '';
  let choices: string[];
  if (side === 'userspace') {
    choices =
      op === 'add' || op === 'del'
        ? ['The set with the given name does not exist', `Syntax error: cannot parse ${member.split(',')[0]}9: resolving to IPv4 address failed`]
        : [`Syntax error: setname '${set}x' is longer than 31 characters`];
  } else {
    switch (op) {
      case 'add':
        choices = ['Hash is full, cannot add more elements', 'Kernel error received: Cannot allocate memory'];
        break;
      case 'create':
        choices = ['Set cannot be created: set with the same name already exists', 'Kernel error received: maximal number of sets reached, cannot create more.'];
        break;
      case 'destroy':
        choices = ['Set cannot be destroyed: it is in use by a kernel component', 'Kernel error received: Cannot allocate memory'];
        break;
      default:
        choices = ['Kernel error received: Cannot allocate memory'];
    }
  }
  return choices[variant % choices.length]!;
}

/** A fault as it was armed on one restore. */
export interface ArmedFault {
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
export interface FaultyPort extends IpsetPort {
  /** Every restore text, in order. */
  readonly restores: string[];
  /** Every fault armed, in order. */
  readonly armed: ArmedFault[];
  /** Every restore result, in order. */
  readonly results: CommandResult[];
}

function candidates(lines: readonly string[], target: FaultTarget): number[] {
  const out: number[] = [];
  lines.forEach((line, i) => {
    const { op, set } = restoreLineOp(line);
    let ok: boolean;
    switch (target) {
      case 'any':
        ok = op !== 'other';
        break;
      case 'in-add-batch': {
        const prev = i > 0 ? restoreLineOp(lines[i - 1]!) : undefined;
        ok = op === 'add' && prev?.op === 'add' && prev.set === set;
        break;
      }
      default:
        ok = op === target;
    }
    if (ok) out.push(i + 1);
  });
  return out;
}

/**
 * A port over `kernel` (see `createFakePort`) that arms the faults of `plan` meant for
 * restore call k just before that call, resolving targets against the text, and disarms
 * whatever did not fire afterwards (faults never leak into a later call). A line fault
 * with no matching line in its call is not armed.
 */
export function faultyPort(kernel: FakeKernel, plan: FaultPlan, options: FakePortOptions = {}): FaultyPort {
  const inner = createFakePort(kernel, options);
  const restores: string[] = [];
  const armed: ArmedFault[] = [];
  const results: CommandResult[] = [];
  return {
    restores,
    armed,
    results,
    async restore(text, call) {
      const n = restores.length;
      restores.push(text);
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (const f of plan.faults) {
        if (f.call !== n) continue;
        if (f.kind === 'busy') {
          kernel.busy(f.times);
          armed.push({ call: n, kind: 'busy', times: f.times });
        } else if (f.kind === 'crash') {
          const after = f.pick % (lines.length + 1);
          kernel.crashAfter(after, f.signal);
          armed.push({ call: n, kind: 'crash', line: after, signal: f.signal });
        } else {
          const c = candidates(lines, f.target);
          if (c.length === 0) continue;
          const line = c[f.pick % c.length]!;
          const text = lines[line - 1]!;
          const message = faultMessage(text, f.side, f.variant);
          kernel.failLine(line, { message, side: f.side });
          armed.push({ call: n, kind: 'fail-line', line, text, message, side: f.side });
        }
      }
      try {
        const result = await inner.restore(text, call);
        results.push(result);
        return result;
      } finally {
        kernel.clearFaults();
      }
    },
    save: (call) => inner.save(call),
    listNames: (call) => inner.listNames(call),
    listHeaders: (call) => inner.listHeaders(call),
  };
}
