import { describe, expect, it } from 'vitest';
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';
import { prefetchReads } from '../../../src/kernel/prefetch.js';

/** A port whose reads stay open until released, recording when each starts. */
function slowPort(events: string[]) {
  const pending: (() => void)[] = [];
  let n = 0;
  const read = (what: string) => (o?: PortCallOptions): Promise<CommandResult> => {
    const id = `${what}#${++n}${o?.signal === undefined ? '' : ' (signal)'}`;
    events.push(`start ${id}`);
    return new Promise((resolve) =>
      pending.push(() => {
        events.push(`end ${id}`);
        resolve({ exitCode: 0, stdout: id, stderr: '' });
      }),
    );
  };
  const port: IpsetPort = {
    restore: async (text) => {
      events.push(`restore ${text.trim()}`);
      return { exitCode: 0, stdout: '', stderr: '' };
    },
    save: read('save'),
    listNames: read('listNames'),
    listHeaders: read('listHeaders'),
  };
  return { port, releaseAll: () => pending.splice(0).forEach((f) => f()) };
}

describe('prefetchReads', () => {
  it('starts save and list -t together, before anyone asks, and answers the first of each with them', async () => {
    const events: string[] = [];
    const { port, releaseAll } = slowPort(events);
    const prefetched = prefetchReads(port);
    // Both reads run at once (the reconcile would have run them one after the other).
    expect(events).toEqual(['start save#1', 'start listHeaders#2']);
    const save = prefetched.save();
    const headers = prefetched.listHeaders();
    expect(events).toHaveLength(2);
    releaseAll();
    expect((await save).stdout).toBe('save#1');
    expect((await headers).stdout).toBe('listHeaders#2');
  });

  it('answers later calls, calls with a signal and the other calls from the kernel, not from the first read', async () => {
    const events: string[] = [];
    const { port, releaseAll } = slowPort(events);
    const prefetched = prefetchReads(port);
    const first = prefetched.save();
    const second = prefetched.save();
    const withSignal = prefetched.listHeaders({ signal: new AbortController().signal });
    const names = prefetched.listNames();
    await prefetched.restore('create x hash:net\n');
    releaseAll();
    expect((await first).stdout).toBe('save#1');
    expect((await second).stdout).toBe('save#3');
    expect((await withSignal).stdout).toBe('listHeaders#4 (signal)');
    expect((await names).stdout).toBe('listNames#5');
    // The prefetched list -t went unused (its taker had a signal); a later plain call is live too.
    releaseAll();
    const later = prefetched.listHeaders();
    releaseAll();
    expect((await later).stdout).toBe('listHeaders#6');
    expect(events).toContain('restore create x hash:net');
  });

  it('answers every list -t from the one read until the first restore, then from the kernel', async () => {
    const events: string[] = [];
    const { port, releaseAll } = slowPort(events);
    const prefetched = prefetchReads(port);
    const budget = prefetched.listHeaders();
    const reconcile = prefetched.listHeaders();
    releaseAll();
    expect((await budget).stdout).toBe('listHeaders#2');
    expect((await reconcile).stdout).toBe('listHeaders#2');
    await prefetched.restore('create x hash:net\n');
    const after = prefetched.listHeaders();
    releaseAll();
    expect((await after).stdout).toBe('listHeaders#3');
  });

  it('started with a signal, answers the calls that carry the same signal (an agent operation)', async () => {
    const events: string[] = [];
    const { port, releaseAll } = slowPort(events);
    const signal = new AbortController().signal;
    const prefetched = prefetchReads(port, { signal });
    expect(events).toEqual(['start save#1 (signal)', 'start listHeaders#2 (signal)']);
    const save = prefetched.save({ signal });
    const headers = prefetched.listHeaders({ signal });
    const other = prefetched.listHeaders({ signal: new AbortController().signal });
    releaseAll();
    expect((await save).stdout).toBe('save#1 (signal)');
    expect((await headers).stdout).toBe('listHeaders#2 (signal)');
    expect((await other).stdout).toBe('listHeaders#3 (signal)');
  });

  it('a failed read fails the call that takes it, and one nobody takes is no unhandled rejection', async () => {
    const failing: IpsetPort = {
      restore: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
      save: () => Promise.reject(new Error('ipset could not be started')),
      listNames: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
      listHeaders: () => Promise.reject(new Error('list -t could not be started')),
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const prefetched = prefetchReads(failing);
      await expect(prefetched.save()).rejects.toThrow('ipset could not be started');
      // listHeaders is never taken.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  describe('a port that hands the save over as it arrives', () => {
    /** A port whose save streams `pieces` one by one, each when `next()` is called, then ends. */
    function streamingPort() {
      let taker: ((piece: string) => void) | undefined;
      let finish: (() => void) | undefined;
      const port: IpsetPort = {
        restore: () => Promise.resolve({ exitCode: 0, stdout: '', stderr: '' }),
        save: (o) => {
          taker = o?.stdout;
          return new Promise((resolve) => (finish = () => resolve(taker === undefined ? { exitCode: 0, stdout: 'whole', stderr: '' } : { exitCode: 0, stdout: '', stderr: '', streamed: true })));
        },
        listNames: () => Promise.resolve({ exitCode: 0, stdout: '', stderr: '' }),
        listHeaders: () => Promise.resolve({ exitCode: 0, stdout: '', stderr: '' }),
      };
      return { port, piece: (p: string) => taker!(p), end: () => finish!() };
    }

    it('hands what came before the save was taken to its taker first, then the rest as it comes', async () => {
      const kernel = streamingPort();
      const prefetched = prefetchReads(kernel.port);
      kernel.piece('create a hash:net\nadd a 10.0');
      kernel.piece('.0.1\n');
      const got: string[] = [];
      const save = prefetched.save({ stdout: (p) => got.push(p) });
      expect(got).toEqual(['create a hash:net\nadd a 10.0', '.0.1\n']);
      kernel.piece('add a 10.0.0.2\n');
      expect(got).toHaveLength(3);
      kernel.end();
      expect(await save).toEqual({ exitCode: 0, stdout: '', stderr: '', streamed: true });
      expect(got.join('')).toBe('create a hash:net\nadd a 10.0.0.1\nadd a 10.0.0.2\n');
    });

    it('a call without a taker gets the whole text, not marked streamed', async () => {
      const kernel = streamingPort();
      const prefetched = prefetchReads(kernel.port);
      kernel.piece('create a hash:net\n');
      const save = prefetched.save();
      kernel.piece('add a 10.0.0.1\n');
      kernel.end();
      expect(await save).toEqual({ exitCode: 0, stdout: 'create a hash:net\nadd a 10.0.0.1\n', stderr: '' });
    });
  });
});
