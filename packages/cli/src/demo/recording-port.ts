/**
 * A port that remembers each restore (text, result, time), so the demo can show
 * what was sent and how long it took.
 */
import type { CommandResult, IpsetPort } from '@ipsets/core';
import { wrapPort } from '../port-wrap.js';

/** One restore as the demo tells it. */
export interface RecordedRestore {
  readonly text: string;
  readonly result: CommandResult;
  readonly ms: number;
}

/** A port that remembers each restore (text, result, time) for the story. */
export function recording(port: IpsetPort, now: () => number): { port: IpsetPort; restores: RecordedRestore[] } {
  const restores: RecordedRestore[] = [];
  const wrapped = wrapPort(port, {
    async restore(text, o, next) {
      const started = now();
      const result = await next(text, o);
      restores.push({ text, result, ms: now() - started });
      return result;
    },
  });
  return { port: wrapped, restores };
}
