/**
 * A live progress line for each restore on a terminal (`restore 2: 120,000 lines …
 * 1.4 s`): a port decorator, so the drivers do not know about terminals.
 */
import type { CommandResult, IpsetPort } from '@ipsets/core';
import { formatCount, formatDuration } from '../format.js';
import { wrapPort } from '../port-wrap.js';

/** A stream progress can be written to. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Wraps a port so that each restore shows a live line on `stream` (`restore 2:
 * 120,000 lines … 1.4 s`), cleared when it ends. Only when `stream` is a terminal:
 * a pipe or a log file gets nothing.
 */
export function withProgress(port: IpsetPort, stream: ProgressStream, now: () => number = Date.now): IpsetPort {
  if (stream.isTTY !== true) return port;
  let count = 0;
  return wrapPort(port, {
    async restore(text, o, next): Promise<CommandResult> {
      count += 1;
      let lines = 0;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
      const started = now();
      const label = `ipsets: restore ${count}: ${formatCount(lines)} lines`;
      const draw = () => stream.write(`\r\u001b[2K${label} … ${formatDuration(now() - started)}`);
      draw();
      const timer = setInterval(draw, 200);
      try {
        return await next(text, o);
      } finally {
        clearInterval(timer);
        stream.write('\r\u001b[2K');
      }
    },
  });
}
