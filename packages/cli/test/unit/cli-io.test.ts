/**
 * No input of any kind prints a stack trace: an IpsetsError is its (bounded) message,
 * an internal error is one line with a hint to rerun with `--debug`, which prints the
 * stack. Reports are capped at 64 KiB.
 */
import { describe, expect, it } from 'vitest';
import { IpsetsError } from '@ipsets/core';
import { EXIT, MAX_ERROR_BYTES, boundErrorText, reportError } from '../../src/cli-io.js';
import type { CliIo } from '../../src/cli-io.js';
import { runCli } from '../../src/program/index.js';

function memoryIo(): CliIo & { err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: { write: (t: string) => ((err += t), true) },
    env: { NO_COLOR: '1' },
    cwd: process.cwd(),
    now: () => 0,
    err: () => err,
  };
}

describe('reportError (an unexpected error printed its whole stack)', () => {
  it('an internal error is one line with a --debug hint; --debug prints the stack', () => {
    const io = memoryIo();
    expect(reportError(io, new TypeError('x is not a function'))).toBe(EXIT.failed);
    expect(io.err()).toBe('ipsets: internal error: TypeError: x is not a function (a bug in ipsets: rerun with --debug for the stack trace, and report it)\n');
    const debug = memoryIo();
    reportError(debug, new TypeError('x is not a function'), { debug: true });
    expect(debug.err()).toMatch(/^ipsets: internal error: TypeError: x is not a function\nTypeError: x is not a function\n\s+at /);
  });

  it('an IpsetsError is its message, no stack; bad input maps to exit 2', () => {
    const io = memoryIo();
    expect(reportError(io, new IpsetsError('INVALID_INPUT', 'bad file; expected good'))).toBe(EXIT.badInput);
    expect(io.err()).toBe('ipsets: error: bad file; expected good\n');
  });

  it('a huge report is cut to 64 KiB: first lines in full, then how many were left out', () => {
    const io = memoryIo();
    const lines = Array.from({ length: 100_000 }, (_, i) => `  problem ${i}`);
    reportError(io, new IpsetsError('INVALID_INPUT', `f: 100,000 problems:\n${lines.join('\n')}`));
    expect(Buffer.byteLength(io.err())).toBeLessThanOrEqual(MAX_ERROR_BYTES);
    expect(io.err()).toMatch(/… \(\d+ more line\(s\) of this report left out\)\n$/);
    expect(boundErrorText('x'.repeat(100_000))).toMatch(/^x{4096}… \(line cut, 100000 characters\)$/);
  });

  it('--debug is a global option: accepted before or after the command', async () => {
    for (const argv of [['--debug', 'plan', '/nonexistent/ipsets-h2.json'], ['plan', '/nonexistent/ipsets-h2.json', '--debug']]) {
      const io = memoryIo();
      expect(await runCli(argv, io)).toBe(EXIT.badInput);
      expect(io.err()).toMatch(/^ipsets: error: cannot read desired-state file "\/nonexistent\/ipsets-h2\.json": ENOENT/);
      expect(io.err()).toMatch(/\n\s+at /);
    }
    const plain = memoryIo();
    await runCli(['plan', '/nonexistent/ipsets-h2.json'], plain);
    expect(plain.err()).not.toMatch(/\n\s+at /);
  });
});
