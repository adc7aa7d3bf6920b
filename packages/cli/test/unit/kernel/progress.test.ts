import { describe, expect, it } from 'vitest';
import type { IpsetPort } from '@ipsets/core';
import { withProgress } from '../../../src/kernel/progress.js';

describe('withProgress', () => {
  const port: IpsetPort = {
    restore: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
    save: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
    listNames: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
    listHeaders: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  };

  it('leaves the port alone when the stream is not a terminal', () => {
    expect(withProgress(port, { isTTY: false, write: () => true })).toBe(port);
  });

  it('draws a line per restore on a terminal and clears it afterwards', async () => {
    let text = '';
    const wrapped = withProgress(port, { isTTY: true, write: (t: string) => (text += t) }, () => 0);
    await wrapped.restore('-F a\n-X a\n-X b\n');
    expect(text).toContain('ipsets: restore 1: 3 lines … 0.0 ms');
    expect(text.endsWith('\r\u001b[2K')).toBe(true);
  });
});
