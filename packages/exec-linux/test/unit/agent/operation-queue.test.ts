import { describe, expect, it } from 'vitest';
import type { ApplyReport } from '@ipsets/core';
import { OperationQueue } from '../../../src/agent/operation-queue.js';

const clock = { now: () => 0, setTimeout: () => 0, clearTimeout: () => undefined };

describe('OperationQueue', () => {
  it('runs queued work one at a time, in order, past failures', async () => {
    const queue = new OperationQueue({ clock, lock: undefined, maxAttempts: undefined });
    const order: string[] = [];
    const a = queue.enqueue(async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push('a');
      throw new Error('a failed');
    });
    const b = queue.enqueue(async () => {
      order.push('b');
      return 'b';
    });
    await expect(a).rejects.toThrow('a failed');
    expect(await b).toBe('b');
    expect(order).toEqual(['a', 'b']);
  });

  it('keeps no result between operations (the last report is not held until the next one)', async () => {
    // Defect pinned: the queue's tail resolved to the last operation's report, so a
    // million-line plan and its attempts stayed reachable after a big apply.
    const queue = new OperationQueue({ clock, lock: undefined, maxAttempts: undefined });
    const report = { converged: true } as ApplyReport;
    expect(await queue.enqueue(async () => report)).toBe(report);
    expect(await (queue as unknown as { tail: Promise<unknown> }).tail).toBeUndefined();
  });
});
