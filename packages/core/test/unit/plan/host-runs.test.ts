/**
 * The manager keeps IPv4 host members as numbers, and the apply planner hands a set of
 * plain hosts to the renderer as a run of numbers (plan/line-runs.ts `HostRun`), which
 * writes their text from the numbers. To every reader the plan stays an ordinary plan:
 * the same lines and text as strings would give, and the render boundary's checks hold
 * for runs of numbers too.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply } from '../../../src/plan/plan-apply.js';
import { HostRun, isMemberRun, planFromPieces, planPieces } from '../../../src/plan/line-runs.js';
import { renderLine, renderRestore } from '../../../src/session/render.js';
import type { MemberRun, PlanPiece } from '../../../src/plan/line-runs.js';
import type { RestorePlan, SetMetadata } from '../../../src/types.js';

const POD: SetMetadata = { name: 'app:web', type: 'keyValueLabelOfPod' };
const NS: SetMetadata = { name: 'prod', type: 'namespace' };
const onError = [{ when: 'any', then: 'skip-line', report: 'not-converged' }] as const;

afterEach(() => {
  vi.restoreAllMocks();
});

function manager(): IPSetManager {
  const m = new IPSetManager();
  for (let i = 0; i < 300; i++) m.addToSets([POD, NS], `10.0.${i >>> 8}.${i & 255}`, `ns/pod-${i}`);
  // One CIDR: the namespace set is not all hosts, so its members stay strings.
  m.addToSets([NS], '10.9.0.0/16', 'ns/range');
  return m;
}

const runs = (plan: RestorePlan): MemberRun[] => planPieces(plan)!.filter(isMemberRun);

const refusal = (plan: RestorePlan): string => {
  try {
    renderRestore(plan);
  } catch (e) {
    if (isIpsetsError(e)) return e.code;
    throw e;
  }
  return 'rendered';
};

describe('a set of plain hosts is planned as numbers', () => {
  it('is a run of numbers whose members are the hosts in the order they were added, and renders their text without making it', () => {
    const m = manager();
    const getter = vi.spyOn(HostRun.prototype, 'members', 'get');
    const plan = planApply(m);
    const [pod, ns] = runs(plan);
    expect(pod).toBeInstanceOf(HostRun);
    expect(ns).not.toBeInstanceOf(HostRun);
    const text = renderRestore(plan);
    // The renderer wrote the hosts from their numbers: no member string was made.
    expect(getter).not.toHaveBeenCalled();
    getter.mockRestore();
    expect(pod!.members).toEqual(Array.from({ length: 300 }, (_, i) => `10.0.${i >>> 8}.${i & 255}`));
    expect(Object.isFrozen(pod!.members)).toBe(true);
    expect(text).toBe(plan.lines.map((l) => `${renderLine(l)}\n`).join(''));
  });

  it('keeps a host removed and added again at the end, as the string store did', () => {
    const m = manager();
    m.removeFromSets([POD], '10.0.0.5', 'ns/pod-5');
    m.addToSets([POD], '10.0.0.5', 'ns/pod-5');
    const members = runs(planApply(m))[0]!.members;
    expect(members.at(-1)).toBe('10.0.0.5');
    expect(members.filter((x) => x === '10.0.0.5')).toHaveLength(1);
    expect(members).toHaveLength(300);
  });

  it('is a run of strings once a host carries nomatch', () => {
    const m = manager();
    m.addToSets([POD], '10.0.0.7 nomatch', 'ns/pod-7');
    const [pod] = runs(planApply(m));
    expect(pod).not.toBeInstanceOf(HostRun);
    expect(pod!.members[7]).toBe('10.0.0.7 nomatch');
  });

  it('is refused on a set the plan creates with a grammar hosts do not fit, as the same strings are (the numbers are written only where a host is a member)', () => {
    // More lines than a small plan has: the plan keeps its pieces, and the renderer reads the run.
    const hosts = Uint32Array.from({ length: 100 }, (_, i) => 0x0a000000 + i);
    const texts = Array.from(hosts, (h) => `10.0.0.${h & 255}`);
    // A list takes set names, and `10.0.0.1` spells one: there the strings render, and so must the run.
    for (const [spec, expected] of [
      ['hash:ip,port', 'INVALID_MEMBER'],
      ['nethash family inet6', 'INVALID_MEMBER'],
      ['setlist', 'rendered'],
    ] as const) {
      const pieces: PlanPiece[] = [
        { op: 'create', set: 'azure-npm-x', spec, section: 's', onError },
        new HostRun('add', 'azure-npm-x', 's', onError, hosts),
      ];
      const plan = planFromPieces(pieces, undefined, undefined);
      const strings = planFromPieces([pieces[0]!, { op: 'add', set: 'azure-npm-x', section: 's', onError, members: texts }], undefined, undefined);
      expect(planPieces(plan)).toBeDefined();
      expect(refusal(plan)).toBe(expected);
      expect(refusal(strings)).toBe(expected);
      if (expected === 'rendered') expect(renderRestore(plan)).toBe(renderRestore(strings));
    }
  });

  it('is refused under a set name that is not a kernel set name', () => {
    const plan = planFromPieces([new HostRun('add', 'bad name', 's', onError, Uint32Array.from({ length: 100 }, (_, i) => i))], undefined, undefined);
    expect(planPieces(plan)).toBeDefined();
    expect(refusal(plan)).toBe('INVALID_SET_NAME');
  });
});
