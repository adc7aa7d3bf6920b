import { describe, expect, it } from 'vitest';
import { kernelName } from '@ipsets/core';
import { runDemo } from '../../../src/commands/demo.js';
import { compareWithDesired } from '../../../src/demo/compare.js';

describe('runDemo', () => {
  it('tells the whole story and its final check passes', async () => {
    let out = '';
    const result = await runDemo({ pods: 120, write: (t) => (out += t) });
    expect(result.checks.filter((c) => c.startsWith('✘'))).toEqual([]);
    expect(result.ok).toBe(true);
    expect(compareWithDesired(result.kernel.save().stdout, result.desired)).toEqual([]);
    for (const step of ['== 1.', '== 2.', '== 3.', '== 4.', '== 5.']) expect(out).toContain(step);
    expect(out).toContain('set-in-use');
    expect(out).toContain('resume-batch');
    expect(out).toMatch(/the reference implementation \(Azure NPM\) resumes after line \d+: on the same fault it leaves [1-9]\d* of these/);
  });

  it('is the same story for the same seed (timings aside)', async () => {
    const story = async () => {
      let out = '';
      await runDemo({ pods: 60, seed: 3, write: (t) => (out += t), now: () => 0 });
      return out;
    };
    expect(await story()).toBe(await story());
  });
});

describe('compareWithDesired', () => {
  const name = kernelName('ns-a');
  const desired = { owner: 'azure-npm-', sets: [{ name, label: 'ns-a', spec: 'nethash' as const, members: ['10.0.0.1', '10.0.0.0/24 nomatch'] }] };

  it('accepts a kernel that holds exactly the desired sets (member order free)', () => {
    const save = `create ${name} hash:net family inet hashsize 1024 maxelem 65536\nadd ${name} 10.0.0.0/24 nomatch\nadd ${name} 10.0.0.1\ncreate foreign hash:ip family inet\n`;
    expect(compareWithDesired(save, desired)).toEqual([]);
  });

  it('names missing sets, wrong types, missing and extra members, and undesired owned sets', () => {
    expect(compareWithDesired('', desired)).toEqual(['ns-a: missing from the kernel']);
    const save = [
      `create ${name} hash:ip,port family inet`,
      `add ${name} 10.0.0.1`,
      `add ${name} 10.0.0.9`,
      'create azure-npm-zzz hash:net family inet',
      '',
    ].join('\n');
    expect(compareWithDesired(save, desired)).toEqual([
      'ns-a: kernel type hash:ip,port, expected hash:net',
      'ns-a: 1 member(s) missing, e.g. 10.0.0.0/24 nomatch',
      'ns-a: 1 unexpected member(s), e.g. 10.0.0.9',
      'azure-npm-zzz: owned set in the kernel that is not desired',
    ]);
  });
});
