import { describe, expect, it } from 'vitest';
import { PER_SET, buildDriftedManager, buildManager, makePods, perturb, podIp } from '../../src/workloads.js';

describe('workload states', () => {
  it('builds a cluster-shaped state: full sets of distinct members, pods shared by ~10 sets', () => {
    const manager = buildManager(10 * PER_SET, 'cluster');
    const desired = manager.desiredState();
    expect(desired.sets).toHaveLength(10);
    for (const set of desired.sets) expect(new Set(set.members).size).toBe(PER_SET);
    expect(makePods(10 * PER_SET, 'cluster')).toHaveLength(PER_SET);
  });
  it('gives every member its own pod in the distinct shape', () => {
    expect(makePods(2 * PER_SET, 'distinct')).toHaveLength(2 * PER_SET);
  });
  it('writes IPs inside 10.0.0.0/8', () => {
    expect(podIp(0)).toBe('10.0.0.0');
    expect(podIp(65_536 + 256 + 7)).toBe('10.1.1.7');
  });
  it('perturbs 1% of the members: 0.5% dropped, as many new ones added, sizes kept', () => {
    const desired = buildManager(2 * PER_SET, 'cluster').desiredState();
    const { desired: moved, changed } = perturb(desired);
    expect(changed).toBe((2 * PER_SET) / 100);
    moved.sets.forEach((set, i) => {
      const before = new Set(desired.sets[i]!.members);
      expect(set.members).toHaveLength(PER_SET);
      expect(set.members.filter((m) => !before.has(m))).toHaveLength(PER_SET / 200);
      expect(new Set(set.members).size).toBe(PER_SET);
    });
  });
  it("builds the agent's manager of W2 holding exactly the perturbed desired state", () => {
    const desired = buildManager(3 * PER_SET, 'cluster').desiredState();
    expect(buildDriftedManager(3 * PER_SET).desiredState()).toEqual(perturb(desired).desired);
  });
});
