import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import type { CommandResult, IpsetPort, PortCallOptions } from '@ipsets/core';
import { listenForStop, stoppablePort } from '../../src/signals.js';

describe('listenForStop', () => {
  it('keeps its listeners for the whole run (execa re-raises a signal nobody else listens to), and a second signal forces the exit', () => {
    const target = new EventEmitter() as unknown as NodeJS.Process;
    const exits: number[] = [];
    const seen: string[] = [];
    const stop = listenForStop({ target, exit: (c) => exits.push(c), onStop: (s) => seen.push(`stop ${s}`), onForce: (s) => seen.push(`force ${s}`) });
    expect((target as unknown as EventEmitter).listenerCount('SIGTERM')).toBe(1);
    (target as unknown as EventEmitter).emit('SIGTERM');
    // `process.once` would have removed it here, leaving the signal to execa's hook.
    expect((target as unknown as EventEmitter).listenerCount('SIGTERM')).toBe(1);
    expect(stop.signal).toBe('SIGTERM');
    expect(exits).toEqual([]);
    (target as unknown as EventEmitter).emit('SIGINT');
    expect(exits).toEqual([130]);
    expect(seen).toEqual(['stop SIGTERM', 'force SIGINT']);
    stop.dispose();
    expect((target as unknown as EventEmitter).listenerCount('SIGTERM')).toBe(0);
  });
});

describe('stoppablePort', () => {
  function slowPort() {
    const calls: string[] = [];
    const port: IpsetPort = {
      restore: (text: string, o?: PortCallOptions) =>
        new Promise<CommandResult>((ok, fail) => {
          calls.push(text);
          const timer = setTimeout(() => ok({ exitCode: 0, stdout: '', stderr: '' }), 100);
          o?.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            fail(Object.assign(new Error('killed'), { aborted: true }));
          });
        }),
      save: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
      listNames: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
      listHeaders: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
    };
    return { port, calls };
  }

  it('lets the call in flight finish and refuses new ones with ABORTED', async () => {
    const { port, calls } = slowPort();
    const p = stoppablePort(port);
    const first = p.restore('a\n');
    expect(p.busy).toBe(true);
    p.refuseNewCalls('stopping (SIGTERM)');
    expect((await first).exitCode).toBe(0);
    const second = await p.restore('b\n').catch((e: unknown) => e);
    expect(isIpsetsError(second, 'ABORTED')).toBe(true);
    expect((second as Error).message).toBe('ipset restore was not started: stopping (SIGTERM)');
    expect(calls).toEqual(['a\n']);
    await p.settled();
    expect(p.busy).toBe(false);
  });

  it('aborts the call in flight when asked (the grace period ran out)', async () => {
    const { port } = slowPort();
    const p = stoppablePort(port);
    const first = p.restore('a\n');
    p.abortInFlight('grace period over');
    await expect(first).rejects.toThrow('killed');
  });
});
