/**
 * The fake kernel's faults on demand (failLine, failNextMatching, busy, crashAfter,
 * hang, clearFaults); the fake port's side of them is in fake-port.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { adds, kernelWith, P, sorted } from '../helpers/fake.js';

const SETUP = 'create a hash:ip\ncreate b hash:ip\n';

describe('failLine', () => {
  it('kernel side on an add line: the batch up to the line is applied, later lines are not', () => {
    const k = kernelWith(SETUP).failLine(3, { message: 'Hash is full, cannot add more elements' });
    const r = k.restore('add a 1.1.1.1\nadd a 1.1.1.2\nadd a 1.1.1.3\nadd a 1.1.1.4\n');
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: `${P}Error in line 3: Hash is full, cannot add more elements\n` });
    expect(sorted(k, 'a')).toEqual(['1.1.1.1', '1.1.1.2']);
  });

  it('kernel side is only discovered when the batch is sent: a later userspace error masks it', () => {
    const k = kernelWith(SETUP).failLine(2, { message: 'boom', side: 'kernel' });
    const r = k.restore('add a 1.1.1.1\nadd a 1.1.1.2\nadd a 1.1.1.3\nadd nosuch 1.1.1.1\n');
    expect(r.stderr).toBe(`${P}Error in line 4: The set with the given name does not exist\n`);
    expect(k.members('a')).toEqual([]);
  });

  it('userspace side: the pending batch is lost', () => {
    const k = kernelWith(SETUP).failLine(3, { message: 'Syntax error: injected', side: 'userspace' });
    const r = k.restore('add b 9.9.9.9\nadd a 1.1.1.1\nadd a 1.1.1.2\n');
    expect(r.stderr).toBe(`${P}Error in line 3: Syntax error: injected\n`);
    expect(k.members('a')).toEqual([]);
    expect(k.members('b')).toEqual(['9.9.9.9']);
  });

  it('kernel side on another command: the pending batch is sent first, the command is not run', () => {
    const k = kernelWith(SETUP).failLine(2, { message: 'Set cannot be destroyed: it is in use by a kernel component' });
    const r = k.restore('add a 1.1.1.1\ndestroy b\n');
    expect(r.stderr).toBe(`${P}Error in line 2: Set cannot be destroyed: it is in use by a kernel component\n`);
    expect(k.members('a')).toEqual(['1.1.1.1']);
    expect(k.setNames()).toEqual(['a', 'b']);
  });

  it('is one-shot: the next restore runs clean', () => {
    const k = kernelWith(SETUP).failLine(1, { message: 'x' });
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(1);
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(0);
  });

  it('rejects a line number below 1', () => {
    expect(() => kernelWith().failLine(0, { message: 'x' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('failNextMatching', () => {
  it('fails the first matching line, possibly in a later restore, once', () => {
    const k = kernelWith(SETUP).failNextMatching(/^add b /, { message: "Element cannot be added to the set: it's already added" });
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(0);
    const r = k.restore('add a 1.1.1.2\nadd b 2.2.2.2\nadd b 2.2.2.3\n');
    expect(r.stderr).toBe(`${P}Error in line 2: Element cannot be added to the set: it's already added\n`);
    expect(sorted(k, 'a')).toEqual(['1.1.1.1', '1.1.1.2']);
    expect(k.members('b')).toEqual([]);
    expect(k.restore('add b 2.2.2.2\n').exitCode).toBe(0);
  });
});

describe('busy', () => {
  it('fails the next add/del batch at its first line, kernel side, nothing of it applied', () => {
    const k = kernelWith(SETUP).busy();
    const r = k.restore('create c hash:ip\nadd a 1.1.1.1\nadd a 1.1.1.2\n');
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: `${P}Error in line 2: Kernel error received: Device or resource busy\n` });
    expect(k.members('a')).toEqual([]);
    expect(k.setNames()).toEqual(['a', 'b', 'c']);
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(0);
  });

  it('busy(2) fails two restores; restores without add/del do not consume it', () => {
    const k = kernelWith(SETUP).busy(2);
    expect(k.restore('flush a\n').exitCode).toBe(0);
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(1);
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(1);
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(0);
  });
});

describe('crashAfter', () => {
  it('applies lines 1..k then dies by SIGKILL (137, no stderr)', () => {
    const k = kernelWith(SETUP).crashAfter(2);
    const r = k.restore('add a 1.1.1.1\nadd a 1.1.1.2\nadd a 1.1.1.3\ncreate c hash:ip\n');
    expect(r).toEqual({ exitCode: 137, stdout: '', stderr: '', signal: 'SIGKILL' });
    expect(sorted(k, 'a')).toEqual(['1.1.1.1', '1.1.1.2']);
    expect(k.setNames()).toEqual(['a', 'b']);
  });

  it('SIGSEGV gives 139; a crash after the last line still applies everything and crashes', () => {
    const k = kernelWith(SETUP).crashAfter(10, 'SIGSEGV');
    expect(k.restore('add a 1.1.1.1\n')).toEqual({ exitCode: 139, stdout: '', stderr: '', signal: 'SIGSEGV' });
    expect(k.members('a')).toEqual(['1.1.1.1']);
    expect(k.restore('add a 1.1.1.2\n').exitCode).toBe(0);
  });

  it('crashAfter(0) applies nothing', () => {
    const k = kernelWith(SETUP).crashAfter(0);
    expect(k.restore(`${adds(5).join('\n')}\n`).exitCode).toBe(137);
    expect(k.members('a')).toEqual([]);
  });
});

describe('clearFaults', () => {
  it('disarms everything', () => {
    const k = kernelWith(SETUP).failLine(1, { message: 'x' }).busy(3).crashAfter(0).hang().failNextMatching(/./, { message: 'y' });
    k.clearFaults();
    expect(k.restore('add a 1.1.1.1\n').exitCode).toBe(0);
    expect(k.takeHang()).toBe(false);
  });
});
