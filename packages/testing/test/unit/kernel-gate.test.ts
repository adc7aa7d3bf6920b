/**
 * The one real-kernel gate every package's tests use: a usable kernel runs the suite;
 * an unusable one skips it with the gate's one-line reason, except in CI (`CI` set),
 * where that skip fails with the reason, and except when the gate itself throws
 * (`IPSETS_KERNEL_TESTS=require`), which fails the same way. An explicit
 * `IPSETS_KERNEL_TESTS=skip` stays a skip, in CI too: it is asked for, not suffered.
 */
import { describe, expect, it } from 'vitest';
import { kernelGateDecision } from '../../src/kernel-gate.js';

const usable = async () => ({ run: true });
const noRoot = async () => ({ run: false, reason: 'not running as root (uid 1000); creating network namespaces needs root' });

describe('kernelGateDecision', () => {
  it('a usable kernel runs the suite, in CI or not', async () => {
    expect(await kernelGateDecision(usable, {})).toEqual({ kind: 'run' });
    expect(await kernelGateDecision(usable, { CI: 'true' })).toEqual({ kind: 'run' });
  });

  it('an unusable kernel outside CI skips, with the gate’s reason', async () => {
    expect(await kernelGateDecision(noRoot, {})).toEqual({
      kind: 'skip',
      reason: 'not running as root (uid 1000); creating network namespaces needs root',
    });
    expect((await kernelGateDecision(noRoot, { CI: '' })).kind).toBe('skip');
    expect((await kernelGateDecision(noRoot, { CI: 'false' })).kind).toBe('skip');
    expect((await kernelGateDecision(noRoot, { CI: '0' })).kind).toBe('skip');
  });

  it('an unusable kernel in CI fails, saying why and how to skip on purpose', async () => {
    const decision = await kernelGateDecision(noRoot, { CI: 'true' });
    expect(decision.kind).toBe('fail');
    const { message } = (decision as { error: Error }).error;
    expect(message).toContain('CI=true');
    expect(message).toContain('not running as root (uid 1000)');
    expect(message).toContain('IPSETS_KERNEL_TESTS=skip');
  });

  it('an explicit IPSETS_KERNEL_TESTS=skip stays a skip in CI', async () => {
    const asked = async () => ({ run: false, reason: 'IPSETS_KERNEL_TESTS=skip asks to skip kernel tests' });
    expect(await kernelGateDecision(asked, { CI: 'true', IPSETS_KERNEL_TESTS: 'skip' })).toEqual({
      kind: 'skip',
      reason: 'IPSETS_KERNEL_TESTS=skip asks to skip kernel tests',
    });
  });

  it('a gate that throws (kernel tests required but impossible) fails with its error', async () => {
    const required = new Error('kernel tests are required (IPSETS_KERNEL_TESTS=require) but cannot run: no ipset');
    const decision = await kernelGateDecision(async () => {
      throw required;
    }, {});
    expect(decision).toEqual({ kind: 'fail', error: required });
  });
});
