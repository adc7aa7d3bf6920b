/**
 * The states the workloads run on, built the way an agent builds them: pods whose
 * IPs and keys are flat strings (as parsed from API-server JSON), added to label
 * sets with `addToSets`.
 *
 * Shape ("cluster"): `sets` hash:net sets (`keyValueLabelOfPod`) of 1,000 members
 * each; the pods number a tenth of the members, so a pod is in about ten sets, and
 * every set takes a different stride through them. The "distinct" shape gives every
 * member its own pod (nothing to share; the manager's worst case for memory).
 */
import { IPSetManager } from '@ipsets/core';
import type { CommandResult, DesiredSet, DesiredState, IpsetPort, SetMetadata } from '@ipsets/core';

/** Members per set in every workload. */
export const PER_SET = 1000;

/** How members map to pods. */
export type Population = 'cluster' | 'distinct';

/** A pod as an agent holds it. */
export interface Pod {
  ip: string;
  key: string;
}

/** `10.a.b.c` for `n` < 2^24. */
export function podIp(n: number): string {
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** Metadata of the `s`-th label set. */
export function setMeta(s: number): SetMetadata[] {
  return [{ name: `app:svc-${s}`, type: 'keyValueLabelOfPod' }];
}

/** Pods for a state of `members` members, as fresh strings from JSON (not literals the engine could share). */
export function makePods(members: number, population: Population): Pod[] {
  const count = population === 'cluster' ? Math.max(PER_SET, members / 10) : members;
  const list: Pod[] = [];
  for (let n = 0; n < count; n++) list.push({ ip: podIp(n), key: `ns-${n % 50}/pod-${n}` });
  return JSON.parse(JSON.stringify(list)) as Pod[];
}

/**
 * A manager holding `members` members (a multiple of {@link PER_SET}), all dirty
 * (nothing applied yet): the cold-start state of W1.
 */
export function buildManager(members: number, population: Population, pods = makePods(members, population)): IPSetManager {
  const sets = members / PER_SET;
  if (!Number.isInteger(sets) || sets < 1) throw new Error(`members ${members} is not a positive multiple of ${PER_SET}`);
  const manager = new IPSetManager();
  const stride = pods.length / PER_SET;
  for (let s = 0; s < sets; s++) {
    const meta = setMeta(s);
    for (let i = 0; i < PER_SET; i++) {
      // A stride walk from a per-set offset: distinct members within a set, and each
      // set a different slice of the pods.
      const pod = population === 'cluster' ? pods[(s * 7919 + i * stride) % pods.length]! : pods[s * PER_SET + i]!;
      manager.addToSets(meta, pod.ip, pod.key);
    }
  }
  return manager;
}

/**
 * A manager holding the state of {@link buildManager} with the changes of
 * {@link perturb} made through `removeFromSets` / `addToSets`: the agent of W2, whose
 * desired state is 1% away from what the kernel holds.
 */
export function buildDriftedManager(members: number): IPSetManager {
  const manager = buildManager(members, 'cluster');
  let fresh = 0;
  manager.desiredState().sets.forEach((set, s) => {
    const meta = setMeta(s);
    const keys = manager.getIPSet(set.label!)!.podKeys;
    let dropped = 0;
    set.members.forEach((member, i) => {
      if (i % 200 !== 199) return;
      dropped += 1;
      manager.removeFromSets(meta, member, keys.get(member)!);
    });
    for (let k = 0; k < dropped; k++, fresh++) manager.addToSets(meta, `10.255.${(fresh >>> 8) & 255}.${fresh & 255}`, `drift/pod-${fresh}`);
  });
  return manager;
}

/**
 * `desired` with 1% of its members changed: in every set, every 200th member is
 * dropped and as many new members (from `10.255.0.0/16`, which no state uses) are
 * appended: 0.5% removed + 0.5% added.
 */
export function perturb(desired: DesiredState): { desired: DesiredState; changed: number } {
  let changed = 0;
  let fresh = 0;
  const sets: DesiredSet[] = desired.sets.map((set) => {
    const members: string[] = [];
    let dropped = 0;
    set.members.forEach((member, i) => {
      if (i % 200 === 199) dropped += 1;
      else members.push(member);
    });
    for (let k = 0; k < dropped; k++, fresh++) members.push(`10.255.${(fresh >>> 8) & 255}.${fresh & 255}`);
    changed += 2 * dropped;
    return { ...set, members };
  });
  return { desired: { owner: desired.owner, sets }, changed };
}

const OK: CommandResult = Object.freeze({ exitCode: 0, stdout: '', stderr: '' }) as CommandResult;

/**
 * A port whose kernel accepts everything instantly: lets W3 commit a plan (the
 * report says every line applied) without a kernel, so only library work is timed.
 */
export const instantPort: IpsetPort = {
  restore: () => Promise.resolve({ ...OK }),
  save: () => Promise.resolve({ ...OK }),
  listNames: () => Promise.resolve({ ...OK }),
  listHeaders: () => Promise.resolve({ ...OK }),
};
