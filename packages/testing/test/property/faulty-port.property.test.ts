/**
 * faultyPort and fault plans checked themselves: each planned fault is armed on its own
 * restore call only and recorded, and planned messages are plausible for their side.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '@ipsets/fake-kernel';
import { faultyPort } from '@ipsets/testing';
import { faultPlanArb } from '@ipsets/testing/arbitraries';
import { fcOptions } from '../helpers/fc-options.js';

const FILE = 'faulty-port';

describe('faultyPort', () => {
  it('arms each planned fault on its own restore call only and records it', async () => {
    const kernel = new FakeKernel();
    const port = faultyPort(kernel, {
      faults: [
        { kind: 'fail-line', call: 0, target: 'in-add-batch', pick: 0, side: 'userspace', variant: 0 },
        { kind: 'busy', call: 0, times: 2 },
      ],
    });
    const text = 'create a hash:net\nadd a 10.0.0.1\nadd a 10.0.0.2\n';
    const first = await port.restore(text);
    expect(first).toEqual({ exitCode: 1, stdout: '', stderr: 'ipset v7.17: Error in line 3: The set with the given name does not exist\n' });
    expect(port.armed).toEqual([
      { call: 0, kind: 'fail-line', line: 3, text: 'add a 10.0.0.2', message: 'The set with the given name does not exist', side: 'userspace' },
      { call: 0, kind: 'busy', times: 2 },
    ]);
    // The unused busy faults were disarmed after call 0.
    expect(await port.restore(text)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(kernel.members('a')).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('plans only plausible messages: userspace faults on add lines are ones ipset catches in userspace', async () => {
    return fc.assert(
      fc.asyncProperty(faultPlanArb({ kinds: ['fail-line'], sides: ['userspace'], targets: ['add'] }), (plan) => {
        const kernel = new FakeKernel();
        kernel.restore('create a hash:net\n');
        const port = faultyPort(kernel, plan);
        return port.restore('add a 10.0.0.1\nadd a 10.0.0.2\n').then((r) => {
          const armed = port.armed.filter((f) => f.call === 0);
          if (armed.length === 0) return;
          expect(r.exitCode).toBe(1);
          // Userspace: the pending batch is lost, so nothing of the run reached the kernel.
          expect(kernel.members('a')).toEqual([]);
        });
      }),
      fcOptions(FILE, 50),
    );
  });
});
