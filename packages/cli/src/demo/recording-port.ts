/**
 * A port that remembers each restore (text, result, time), so the demo can show
 * what was sent and how long it took.
 */
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';
import { withRestore } from '../kernel/port-wrappers.js';

/** One restore as the demo tells it. */
export interface RecordedRestore {
  readonly text: string;
  readonly result: CommandResult;
  readonly ms: number;
}

/** A port that remembers each restore (text, result, time) for the story. */
export function recording(port: IpsetPort, now: () => number): { port: IpsetPort; restores: RecordedRestore[] } {
  const restores: RecordedRestore[] = [];
  const wrapped = withRestore(port, async (text: string, o?: PortCallOptions) => {
    const started = now();
    const result = await port.restore(text, o);
    restores.push({ text, result, ms: now() - started });
    return result;
  });
  return { port: wrapped, restores };
}
