/**
 * Every problem of a desired file at once, as the docs promise. A structural problem
 * (an unknown key, a set whose name is not a string) used to stop validation: the
 * file's seven bad members were shown only after the unknown key "extra" was fixed.
 */
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { parseDesiredText } from '../../../src/desired/file.js';
import type { FileProblem } from '../../../src/desired/file.js';

function problemsOf(text: string): FileProblem[] {
  try {
    parseDesiredText(text, { source: 'f.yaml' });
  } catch (error) {
    if (!isIpsetsError(error)) throw error;
    return error.details['problems'] as FileProblem[];
  }
  throw new Error('accepted');
}

const BAD_MEMBERS = ['10.0.0.256', '10.0.0.01', 'fe80::zz', '10.0.0.0/33', 'nope', '1.2.3', '10.0.0.1,tcp:80'];

describe('one structural problem never hides the others', () => {
  it('an unknown key in a set and seven bad members: eight problems, in file order, with lines', () => {
    const text = `sets:\n  - type: namespace\n    name: shop\n    extra: 1\n    members:\n${BAD_MEMBERS.map((m) => `      - "${m}"`).join('\n')}\n`;
    const problems = problemsOf(text);
    expect(problems.map((p) => p.path)).toEqual(['sets[0]', ...BAD_MEMBERS.map((_, j) => `sets[0].members[${j}]`)]);
    expect(problems[0]!.message).toBe('unknown key "extra"; expected only type, name, members, family, maxelem, hashsize');
    expect(problems.map((p) => p.line)).toEqual([2, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('an unknown key at the root, a set of the wrong shape, and bad members of another set are all reported', () => {
    const text = [
      'extra: true',
      'sets:',
      '  - { type: namespace, name: 7, members: ["10.0.0.1"] }',
      '  - { type: namespace, name: ok, members: ["10.0.0.300", "10.0.0.1"] }',
      '  - { type: podLabel, name: x, members: [] }',
      '',
    ].join('\n');
    const problems = problemsOf(text);
    const byPath = new Map(problems.map((p) => [p.path, p.message]));
    expect([...byPath.keys()].sort()).toEqual(['(root)', 'sets[0].name', 'sets[1].members[0]', 'sets[2].type']);
    expect(byPath.get('(root)')).toBe('unknown key "extra"; expected only owner, scheme, sets');
    expect(byPath.get('sets[0].name')).toBe('got number "7"; expected a string');
  });

  it('the same in JSON', () => {
    const problems = problemsOf(JSON.stringify({ sets: [{ type: 'namespace', name: 'shop', bogus: [], members: ['10.0.0.256', 'x'] }] }, null, 1));
    expect(problems.map((p) => p.path)).toEqual(['sets[0]', 'sets[0].members[0]', 'sets[0].members[1]']);
  });

  it('a file that is not a mapping with a sets list is still one problem', () => {
    expect(problemsOf('sets: 5\n').map((p) => p.path)).toEqual(['sets']);
    expect(problemsOf('- 1\n').map((p) => p.path)).toEqual(['(root)']);
  });
});

describe('keys a JavaScript object treats specially are unknown keys like any other', () => {
  it('__proto__ at the root and constructor in a set are refused', () => {
    expect(problemsOf('{"__proto__":{"sets":[]},"sets":[]}').map((p) => p.message)).toEqual(['unknown key "__proto__"; expected only owner, scheme, sets']);
    expect(problemsOf('sets:\n  - { type: namespace, name: a, constructor: 1 }\n').map((p) => p.message)).toEqual([
      'unknown key "constructor"; expected only type, name, members, family, maxelem, hashsize',
    ]);
  });
});
