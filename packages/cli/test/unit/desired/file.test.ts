import { describe, expect, it } from 'vitest';
import { isIpsetsError, kernelName } from '@ipsets/core';
import type { IpsetsError } from '@ipsets/core';
import { desiredStateOf, formatProblem, parseDesiredText, validateDesiredDocument } from '../../../src/desired/file.js';
import type { FileProblem } from '../../../src/desired/file.js';
import { DEFAULT_CLI_OWNER } from '../../../src/defaults.js';

/** Problems of a document that must be refused. */
function problems(doc: unknown): FileProblem[] {
  const result = validateDesiredDocument(doc);
  if (result.ok) throw new Error('expected the document to be refused');
  return result.problems;
}

function refusedText(text: string, format?: 'json' | 'yaml'): IpsetsError {
  try {
    parseDesiredText(text, { source: 'f.yaml', ...(format === undefined ? {} : { format }) });
  } catch (error) {
    if (isIpsetsError(error, 'INVALID_INPUT')) return error;
    throw error;
  }
  throw new Error('expected the text to be refused');
}

const ns = (name: string, members: unknown[] = []) => ({ type: 'namespace', name, members });

describe('validateDesiredDocument', () => {
  it('accepts every set type and canonicalises members like core does', () => {
    const result = validateDesiredDocument({
      sets: [
        ns('shop', ['10.0.0.1', '10.0.0.1/32', '10.1.0.5/16']),
        { type: 'namedPorts', name: 'http', members: ['10.0.0.1,8080', '10.0.0.2,udp:53'] },
        { type: 'cidrBlocks', name: 'egress', members: ['10.0.0.0/8', '10.96.0.0/12 nomatch'] },
        { type: 'keyLabelOfPod', name: 'app', members: [] },
        { type: 'keyValueLabelOfPod', name: 'app:web' },
        { type: 'keyLabelOfNamespace', name: 'team', members: [{ type: 'namespace', name: 'shop' }] },
        { type: 'keyValueLabelOfNamespace', name: 'team:a', members: [] },
        { type: 'nestedLabelOfPod', name: 'app:web:x', members: [{ type: 'keyValueLabelOfPod', name: 'app:web' }] },
        { type: 'emptyHashSet', name: 'emptyhashset' },
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.file.owner).toBe(DEFAULT_CLI_OWNER);
    expect(result.file.scheme).toBe('sha256-base36');
    // 10.0.0.1/32 is 10.0.0.1 (deduplicated); host bits cleared.
    expect(result.file.sets[0]!.members).toEqual(['10.0.0.1', '10.1.0.0/16']);
    expect(result.file.sets[1]!.members).toEqual(['10.0.0.1,tcp:8080', '10.0.0.2,udp:53']);
    expect(result.file.sets[5]!.memberSets).toEqual([{ type: 'namespace', name: 'shop' }]);
  });

  it('names the path, quotes the value and says what was expected for an unknown type', () => {
    const [p] = problems({ sets: [ns('a'), { type: 'podLabel', name: 'x' }] });
    expect(p!.path).toBe('sets[1].type');
    expect(p!.message).toContain('"podLabel"');
    expect(p!.message).toContain('expected one of namespace');
  });

  it('refuses an invalid IP with core\'s message', () => {
    const [p] = problems({ sets: [ns('a', ['10.0.0.1', '10.0.0.256'])] });
    expect(p!.path).toBe('sets[0].members[1]');
    expect(p!.message).toContain('"10.0.0.256"');
    expect(p!.message).toContain('expected');
  });

  it.each([
    ['a newline in a member', ns('a', ['10.0.0.1\n-X azure-npm-x'])],
    ['a leading "-" in a member', ns('a', ['-X foo'])],
    ['a "#" in a member', ns('a', ['10.0.0.1 # comment'])],
    ['a newline in a name', ns('a\n-F azure-npm-x')],
    ['a leading "-" in a name', ns('-X')],
    ['a "#" in a name', ns('a#b')],
    ['a space in a name', ns('a b')],
  ])('refuses an injection attempt: %s', (_title, set) => {
    const list = problems({ sets: [set] });
    expect(list).toHaveLength(1);
    expect(list[0]!.path).toMatch(/^sets\[0\]\.(members\[0\]|name)$/);
    expect(list[0]!.message).toMatch(/expected/);
  });

  it('refuses a list that contains itself', () => {
    const [p] = problems({
      sets: [{ type: 'nestedLabelOfPod', name: 'l', members: [{ type: 'nestedLabelOfPod', name: 'l' }] }],
    });
    expect(p!.path).toBe('sets[0].members[0]');
    expect(p!.message).toContain('cannot contain itself');
  });

  it('refuses a list that contains another list', () => {
    const [p] = problems({
      sets: [
        { type: 'keyLabelOfNamespace', name: 'team', members: [] },
        { type: 'nestedLabelOfPod', name: 'l', members: [{ type: 'keyLabelOfNamespace', name: 'team' }] },
      ],
    });
    expect(p!.path).toBe('sets[1].members[0]');
    expect(p!.message).toContain('lists of lists are not supported');
  });

  it('refuses a list member that is not declared', () => {
    const [p] = problems({ sets: [{ type: 'keyLabelOfNamespace', name: 'team', members: [{ type: 'namespace', name: 'nope' }] }] });
    expect(p!.message).toContain('"nope"');
    expect(p!.message).toContain('not declared');
  });

  it('refuses an owner that makes kernel names longer than 31 characters', () => {
    const [p] = problems({ owner: 'a-very-long-owner-prefix-', sets: [ns('a')] });
    expect(p!.path).toBe('owner');
    expect(p!.message).toContain('"a-very-long-owner-prefix-"');
    expect(p!.message).toContain('31');
  });

  it('accepts a long owner under fnv32 when names stay within 31 characters', () => {
    const result = validateDesiredDocument({ owner: 'my-cluster-ipsets-', scheme: 'fnv32', sets: [ns('a')] });
    expect(result.ok).toBe(true);
  });

  it('refuses a name over the file limit and a duplicate set (podlabel- is shared by two types)', () => {
    const list = problems({
      sets: [ns('x'.repeat(600)), { type: 'keyLabelOfPod', name: 'app' }, { type: 'keyValueLabelOfPod', name: 'app' }],
    });
    expect(list.map((p) => p.path)).toEqual(['sets[0].name', 'sets[2]']);
    expect(list[0]!.message).toContain('600 characters');
    expect(list[1]!.message).toContain('already declared at sets[1]');
  });

  it('refuses a member that is the same kernel entry with and without nomatch', () => {
    const [p] = problems({ sets: [{ type: 'cidrBlocks', name: 'c', members: ['10.0.0.0/8', '10.0.0.0/8 nomatch'] }] });
    expect(p!.path).toBe('sets[0].members[1]');
    expect(p!.message).toContain('same kernel entry');
  });

  it('refuses members that do not fit the set kind', () => {
    const list = problems({
      sets: [
        ns('a', ['10.0.0.1,tcp:80']),
        { type: 'namedPorts', name: 'p', members: ['10.0.0.0/24'] },
        { type: 'keyLabelOfNamespace', name: 't', members: ['10.0.0.1'] },
        ns('b', [{ type: 'namespace', name: 'a' }]),
      ],
    });
    expect(list.map((p) => p.path)).toEqual(['sets[0].members[0]', 'sets[1].members[0]', 'sets[2].members[0]', 'sets[3].members[0]']);
    expect(list[2]!.message).toContain('expected a member set');
    expect(list[3]!.message).toContain('expected a member string');
  });

  it('refuses unknown keys and wrong shapes, naming them', () => {
    const list = problems({ sets: [{ type: 'namespace', name: 'a', memebers: [] }], extra: 1 });
    const text = list.map(formatProblem).join('\n');
    expect(text).toContain('sets[0]: unknown key "memebers"; expected only type, name, members');
    expect(text).toContain('(root): unknown key "extra"');
    expect(problems({ sets: 'x' })[0]!.message).toBe('got "x"; expected a list');
    expect(problems({ sets: [{ type: 'namespace', name: 5 }] })[0]!.message).toBe('got number "5"; expected a string');
  });

  it('refuses members that are not a list, in the same pass as the other shape problems', () => {
    // The members list is checked by hand, not by the schema (which copied a million-member list to check it): same message, same pass.
    for (const [members, shown] of [['x', '"x"'], [null, 'null'], [{ a: 1 }, 'a mapping'], [7, 'number "7"']] as const) {
      const list = problems({ sets: [{ type: 'namespace', name: 'a', members }, { type: 'namespace', name: 'b', extra: 1 }] });
      expect(list.map((p) => `${p.path}: ${p.message}`).sort()).toEqual([`sets[0].members: got ${shown}; expected a list`, 'sets[1]: unknown key "extra"; expected only type, name, members, family, maxelem, hashsize']);
    }
    // Absent members are an empty list.
    const ok = validateDesiredDocument({ sets: [{ type: 'namespace', name: 'a' }] });
    expect(ok.ok && ok.file.sets[0]!.members).toEqual([]);
  });

  it('refuses an unknown scheme', () => {
    const [p] = problems({ scheme: 'md5', sets: [] });
    expect(p!.path).toBe('scheme');
    expect(p!.message).toContain('"md5"');
  });

  it('reports every problem, not only the first', () => {
    expect(problems({ sets: [ns('a', ['x', 'y']), { type: 'nope', name: 'b' }] })).toHaveLength(3);
  });
});

describe('parseDesiredText', () => {
  it('reads YAML and JSON to the same file', () => {
    const yaml = parseDesiredText('sets:\n  - type: namespace\n    name: a\n    members: [10.0.0.1]\n');
    const json = parseDesiredText('{"sets":[{"type":"namespace","name":"a","members":["10.0.0.1"]}]}');
    expect(json).toEqual(yaml);
  });

  it('gives the line and column of a bad value in YAML', () => {
    const error = refusedText('sets:\n  - type: namespace\n    name: a\n    members:\n      - 10.0.0.1\n      - 300.0.0.1\n');
    expect(error.message).toContain('f.yaml: 1 problem; nothing was applied');
    expect(error.message).toContain('line 6:9, sets[0].members[1]: Invalid hash:net member "300.0.0.1"');
  });

  it('gives the line of a bad value in JSON', () => {
    const error = refusedText('{"sets": [\n {"type": "namespace", "name": "a",\n  "members": ["10.0.0.1", "x"]}\n]}', 'json');
    expect(error.message).toMatch(/line 3:\d+, sets\[0\]\.members\[1\]/);
  });

  it('refuses broken syntax and an empty file', () => {
    expect(refusedText('{"sets": [', 'json').message).toContain('not valid JSON');
    expect(refusedText('sets: [a, b\n').message).toContain('not valid YAML');
    expect(refusedText('').message).toContain('the file is empty');
  });

  it('keeps problems in details for programs', () => {
    const error = refusedText('sets: [{ type: nope, name: a }]');
    expect(error.details['problems']).toEqual([expect.objectContaining({ path: 'sets[0].type', line: 1 })]);
  });
});

describe('desiredStateOf', () => {
  it('builds the desired state as the manager does: kernel names, labels, canonical members, list members', () => {
    const file = parseDesiredText(
      [
        'sets:',
        '  - { type: namespace, name: shop, members: [10.0.0.2, 10.0.0.1] }',
        '  - { type: cidrBlocks, name: c, members: [10.0.0.0/8, "10.96.0.0/12 nomatch"] }',
        '  - { type: keyLabelOfNamespace, name: team, members: [{ type: namespace, name: shop }] }',
      ].join('\n'),
    );
    const state = desiredStateOf(file);
    expect(state.owner).toBe(DEFAULT_CLI_OWNER);
    const byLabel = new Map(state.sets.map((s) => [s.label, s]));
    const shop = byLabel.get('ns-shop')!;
    expect(shop.name).toBe(kernelName('ns-shop', { owner: DEFAULT_CLI_OWNER }));
    expect(shop.spec).toBe('nethash');
    expect([...shop.members].sort()).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(byLabel.get('cidr-c')!.spec).toBe('nethash maxelem 4294967295');
    expect([...byLabel.get('cidr-c')!.members].sort()).toEqual(['10.0.0.0/8', '10.96.0.0/12 nomatch']);
    expect(byLabel.get('nslabel-team')!.members).toEqual([kernelName('ns-shop', { owner: DEFAULT_CLI_OWNER })]);
  });

  it('uses the owner and scheme of the file', () => {
    const file = parseDesiredText('owner: test-\nscheme: fnv32\nsets: [{ type: namespace, name: test }]');
    const state = desiredStateOf(file);
    expect(state.owner).toBe('test-');
    expect(state.sets[0]!.name).toBe(kernelName('ns-test', { owner: 'test-', scheme: 'fnv32' }));
  });
});
