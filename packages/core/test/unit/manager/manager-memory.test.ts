/**
 * What the manager keeps per member, measured on the heap after full collections:
 * strings are shared when callers bring copies of equal strings, and not paid for
 * twice when they do not (every member its own pod). The bench measures the same at
 * 1,000,000 members; these run at 100,000 (1,000-member sets, as there).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { IPSetManager } from '../../../src/manager/manager.js';
import type { SetMetadata } from '../../../src/types.js';

// A full collection without restarting the test process with --expose-gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const PER_SET = 1000;

const meta = (s: number): SetMetadata[] => [{ name: `app:svc-${s}`, type: 'keyValueLabelOfPod' }];

const ip = (n: number): string => `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** A flat copy of `s` that shares nothing with it (as a parser hands out). */
const fresh = (s: string): string => [...s].join('');

/** Bytes per member of the manager `build` makes, everything it keeps (strings included). */
function bytesPerMember(members: number, build: () => IPSetManager): number {
  const before = heapAfterGc();
  const manager = build();
  const after = heapAfterGc();
  expect(manager.size).toBe(members / PER_SET);
  return (after - before) / members;
}

describe('IPSetManager memory', () => {
  it('keeps every member its own pod (nothing to share) within 100 bytes a member', () => {
    const members = 100_000;
    const perMember = bytesPerMember(members, () => {
      const m = new IPSetManager();
      for (let s = 0; s < members / PER_SET; s++) {
        for (let i = 0; i < PER_SET; i++) {
          const n = s * PER_SET + i;
          m.addToSets(meta(s), fresh(ip(n)), fresh(`ns-${n % 50}/pod-${n}`));
        }
      }
      return m;
    });
    // An IP string and a pod-key string (32 bytes each here) and the set's map entry
    // (~29): a pool entry per string on top (~28 each) would make it ~150.
    expect(perMember).toBeLessThanOrEqual(100);
  });

  it('keeps one string for fresh copies of an equal member or pod key (a pod in ten sets, each call with new copies)', () => {
    const members = 100_000;
    const pods = members / 10;
    const perMember = bytesPerMember(members, () => {
      const m = new IPSetManager();
      for (let s = 0; s < members / PER_SET; s++) {
        for (let i = 0; i < PER_SET; i++) {
          const n = (s * 7919 + i * 10) % pods;
          m.addToSets(meta(s), fresh(ip(n)), fresh(`ns-${n % 50}/pod-${n}`));
        }
      }
      return m;
    });
    // Shared: the map entry plus a tenth of two strings and of their pool entries
    // (~40). Kept as the copies the calls brought it would be ~93.
    expect(perMember).toBeLessThanOrEqual(55);
  });
});
