/**
 * Initial kernel states as data (`InitialKernel`: a restore script and iptables-style
 * references): random ones, ones near a desired state, and `buildKernel`, which plays
 * one on a fake kernel.
 */
import fc from 'fast-check';
import type { CreateSpec, DesiredSet, DesiredState } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { NET_MEMBERS, PORT_MEMBERS, OWNED_LABELS, FOREIGN_NAMES, uniqueByEntry, upTo } from './pools.js';
import { ownedNames } from './desired-states.js';

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

/** The kernel `create` type and options of each desired spec (used by the tests of these tools too; not exported by the package). */
export const SPEC_TYPE: Readonly<Record<CreateSpec, KernelType>> = {
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
