/**
 * A `CliIo` for in-process command tests: stdout and stderr collected as text, every
 * stdout write recorded by size, and an optional stdout that reports a full buffer.
 */
import type { CliIo } from '../../src/cli-io.js';

/** What {@link captureIo} collected. */
export interface CapturedIo extends CliIo {
  out: string;
  err: string;
  /** Length of each stdout write, in order. */
  writes: number[];
}

/** An io whose streams collect text; `cwd` is where relative files are read. */
export function captureIo(cwd = process.cwd()): CapturedIo {
  const self: CapturedIo = {
    out: '',
    err: '',
    writes: [],
    stdout: {
      write: (t: string) => {
        self.writes.push(t.length);
        self.out += t;
        return true;
      },
    },
    stderr: { write: (t: string) => (self.err += t) },
    env: {},
    cwd,
    now: () => 0,
  };
  return self;
}
