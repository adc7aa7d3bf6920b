import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '@ipsets/fake-kernel';
import { restoreScriptArb } from '@ipsets/testing/arbitraries';
import { describeDifference, runFake } from '../helpers/differential.js';
import { normaliseSave, normalisedText } from '../helpers/save.js';

describe('differential helpers', () => {
  it('normalisation drops initval and hashsize and sorts hash members, keeping list order', () => {
    const a = [
      'create n hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x11111111',
      'add n 10.2.0.0/16',
      'add n 10.0.0.1',
      'create l list:set size 8',
      'add l n',
      'add l m',
      '',
    ].join('\n');
    const b = a.replace('0x11111111', '0xdeadbeef').replace('hashsize 1024', 'hashsize 2048').replace('add n 10.2.0.0/16\nadd n 10.0.0.1', 'add n 10.0.0.1\nadd n 10.2.0.0/16');
    expect(normalisedText(a)).toBe(normalisedText(b));
    expect(normaliseSave(a)[1]?.members).toEqual(['n', 'm']);
    expect(normalisedText(a)).not.toBe(normalisedText(a.replace('add l n\nadd l m', 'add l m\nadd l n')));
  });

  it('describeDifference reports exit code, first error and save differences, and nothing when equal', () => {
    const script = { text: 'create a hash:ip\nadd a 10.0.0.1\nadd a 10.0.0.300\n', exist: false };
    const fake = runFake(() => new FakeKernel(), script);
    expect(fake.exitCode).toBe(1);
    expect(describeDifference(script, fake, { ...fake })).toBeUndefined();
    const wrong = { ...fake, exitCode: 0, firstError: '', save: `${fake.save}\nadd a 10.0.0.1` };
    const text = describeDifference(script, fake, wrong);
    expect(text).toContain('exit: real 1, fake 0');
    expect(text).toContain('first error line:');
    expect(text).toContain('   3| add a 10.0.0.300');
    expect(text).toContain('save (normalised):');
  });

  it('the script generator gives scripts of every kind (clean runs, errors, -exist, long batches)', () => {
    const samples = fc.sample(restoreScriptArb(), { numRuns: 300, seed: 5 });
    const outcomes = samples.map((s) => runFake(() => new FakeKernel(), s));
    expect(outcomes.some((o) => o.exitCode === 0)).toBe(true);
    expect(outcomes.some((o) => o.exitCode === 1)).toBe(true);
    expect(outcomes.some((o) => o.exitCode === 2)).toBe(true);
    expect(samples.some((s) => s.exist) && samples.some((s) => !s.exist)).toBe(true);
    expect(samples.some((s) => s.text.split('\n').length > 200)).toBe(true);
    // One in eight ends without a final newline (its last word ends an fgets chunk); a third find the pool made by a setup run.
    expect(samples.filter((s) => !s.text.endsWith('\n')).length).toBeGreaterThan(10);
    expect(samples.filter((s) => s.setup !== undefined).length).toBeGreaterThan(30);
  });

  it('the script generator makes swap and rename: temporary-set rebuilds that converge, and each of their errors', () => {
    const samples = fc.sample(restoreScriptArb(), { numRuns: 600, seed: 12 });
    const outcomes = samples.map((s) => runFake(() => new FakeKernel(), s));
    const rebuild = /^create (\S+) .*\n(?:add \1 .*\n)*swap \1 (\S+)\ndestroy \1$/m;
    expect(samples.filter((s, i) => rebuild.test(s.text) && outcomes[i]!.exitCode === 0).length).toBeGreaterThan(10);
    const errors = outcomes.map((o) => o.firstError);
    for (const message of [
      'The sets cannot be swapped: their type does not match',
      'Sets cannot be swapped: the second set does not exist',
      'Set cannot be renamed: a set with the new name already exists',
      'Set cannot be renamed: it is in use by another system',
    ]) {
      expect(errors.some((e) => e.endsWith(message)), message).toBe(true);
    }
  });
});
