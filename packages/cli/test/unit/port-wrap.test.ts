import { describe, expect, it } from 'vitest';
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';
import { wrapPort } from '../../src/port-wrap.js';

function recordingPort(name: string, calls: string[]): IpsetPort {
  const answer = (what: string) => async (o?: PortCallOptions): Promise<CommandResult> => {
    calls.push(`${name}.${what}${o?.signal === undefined ? '' : ' (signal)'}`);
    return { exitCode: 0, stdout: `${name} ${what}`, stderr: '' };
  };
  return {
    restore: (text, o) => answer(`restore ${text.trim()}`)(o),
    save: answer('save'),
    listNames: answer('listNames'),
    listHeaders: answer('listHeaders'),
  };
}

describe('wrapPort', () => {
  it('without a wrapper forwards all four calls and their options unchanged', async () => {
    const calls: string[] = [];
    const port = wrapPort(recordingPort('a', calls));
    const signal = new AbortController().signal;
    expect((await port.restore('-N x\n', { signal })).stdout).toBe('a restore -N x');
    expect((await port.save()).stdout).toBe('a save');
    expect((await port.listNames()).stdout).toBe('a listNames');
    expect((await port.listHeaders({ signal })).stdout).toBe('a listHeaders');
    expect(calls).toEqual(['a.restore -N x (signal)', 'a.save', 'a.listNames', 'a.listHeaders (signal)']);
  });

  it('`around` sees every call by name; `restore` replaces only the restore, inside `around`', async () => {
    const calls: string[] = [];
    const seen: string[] = [];
    const port = wrapPort(recordingPort('a', calls), {
      around: async (command, run, o) => {
        seen.push(`before ${command}`);
        const result = await run(o);
        seen.push(`after ${command}`);
        return result;
      },
      restore: async (text, o, next) => {
        seen.push('restore wrapper');
        return next(text.toUpperCase(), o);
      },
    });
    await port.restore('-n x\n');
    await port.save();
    expect(seen).toEqual(['before restore', 'restore wrapper', 'after restore', 'before save', 'after save']);
    expect(calls).toEqual(['a.restore -N X', 'a.save']);
  });

  it('a function target is asked for the current port at each call', async () => {
    const calls: string[] = [];
    let current = recordingPort('a', calls);
    const port = wrapPort(() => current);
    await port.save();
    current = recordingPort('b', calls);
    await port.save();
    await port.restore('-N y\n');
    expect(calls).toEqual(['a.save', 'b.save', 'b.restore -N y']);
  });
});
