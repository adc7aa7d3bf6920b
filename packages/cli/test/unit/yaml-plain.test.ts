/**
 * The plain YAML reader: desired files as YAML used to take 14–22 s and 1.2 GB to load
 * at 1,000,000 members (the `yaml` package composes a node per member), 4.5–4.9× the
 * JSON form. The reader must make exactly the data the `yaml` package makes, or give
 * up so that the package reads the text with all its checks.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isIpsetsError } from '@ipsets/core';
import { parseDesiredText } from '../../src/desired/file.js';
import { readPlainYaml } from '../../src/yaml-plain.js';

/** Texts the reader must read, each as the `yaml` package does. */
const PLAIN = [
  'sets:\n  - type: namespace\n    name: shop\n    members:\n      - 10.0.0.1\n      - "10.0.0.2"\n      - \'10.0.0.3\'\n',
  'sets:\n- type: namespace\n  name: shop\n  members:\n  - 10.0.0.1\n  - fe80::1\nowner: test-\n',
  'owner: test-   # a comment\nscheme: fnv32\n# a comment line\n\nsets: [{ type: namespace, name: shop, members: [10.0.0.1, "fe80::1", 10.0.0.0/8 nomatch] }]\n',
  'sets:\r\n  - { type: keyValueLabelOfPod, name: app:web, members: [] }\r\n  - { type: keyLabelOfNamespace, name: team, members: [{ type: namespace, name: shop }] }\r\n',
  'sets:\n  - type: namespace\n    name: big\n    maxelem: 131072\n    hashsize: 2048\n    members: ["10.0.0.1,tcp:80", \'it\'\'s\', "a\\"b\\\\c\\u00e9"]\n',
  'sets:\n  -\n    type: namespace\n    name: x\n  - type: cidrBlocks\n    name: y\n    members:\n      # a comment between items\n      - 192.168.0.0/16\n',
  'sets: []\nempty:\nlist: {}\n',
  'sets:\n  - type: namedPorts\n    name: http\n    members: ["[fe80::1],udp:53", 10.0.0.1,80]\n',
  'a: x, y [z]\nb: "x # not a comment"\nc: x#y\n',
  '{"sets":[{"type":"namespace","name":"a","members":["10.0.0.1","fe80::1"]},{"type":"cidrBlocks","name":"b","members":[]}]}\n',
  '{ sets: [] }  # JSON-like, one line\n',
];

/** Texts the reader must leave to the `yaml` package (it reads them differently, or refuses them with a located message). */
const NOT_PLAIN = [
  'sets: &a []\nother: *a\n',
  'sets: !!binary aGVsbG8=\n',
  'sets:\n  - name: |\n      block\n',
  'sets:\n  - name: a\n      continued\n',
  'sets: [a,\n  b]\n',
  '---\nsets: []\n',
  '%YAML 1.2\n---\nsets: []\n',
  'sets:\n\t- a\n',
  'sets: []\nsets: [x]\n',
  'sets: [{ name: a, name: b }]\n',
  'sets: [a, b, ]\n',
  'sets: [1, 0x1F, 1.5, 1e3, true, null, ~, .inf]\n',
  'sets:\n  - members: [010]\n',
  'sets:\n  - members: [-5]\n',
  'sets:\n  - 10.0\n',
  'yes: no\nnull: x\n',
  '"quoted key": x\n',
  '__proto__: x\n',
  '? complex\n: key\n',
  'sets: [a: b]\n',
  'sets: {a:b}\n',
  '- a\n- b\n',
  '{"sets":\n  []}\n',
  '{"sets": []}\nmore: x\n',
  'just a scalar\n',
  '# only a comment\n',
  'sets:\n  - "unterminated\n',
  'sets:\n  - "\\x41"\n',
  'sets:\n  - a\u0000b\n',
  'sets:\n  - a\u2028b\n',
];

describe('readPlainYaml', () => {
  it('reads plain desired-file YAML exactly as the yaml package does', () => {
    for (const text of PLAIN) {
      const plain = readPlainYaml(text);
      expect(plain, text).toBeDefined();
      expect(plain!.doc, text).toEqual(parse(text));
    }
  });

  it('gives up on everything else, so the yaml package reads it with all its checks', () => {
    for (const text of NOT_PLAIN) expect(readPlainYaml(text), text).toBeUndefined();
  });

  it('reads a generated 20,000-member file (the block style a generator writes)', () => {
    const lines = ['sets:'];
    for (let s = 0; s < 10; s++) {
      lines.push('  - type: namespace', `    name: ns-${s}`, '    members:');
      for (let m = 0; m < 2_000; m++) lines.push(`      - 10.${s}.${m >> 8}.${m & 255}`);
    }
    const text = `${lines.join('\n')}\n`;
    const plain = readPlainYaml(text);
    expect(plain).toBeDefined();
    expect(plain!.doc).toEqual(parse(text));
  }, 60_000);
});

/** The problems of a refused desired file, as `path line:column`. */
function located(text: string): string[] {
  try {
    parseDesiredText(text, { format: 'yaml' });
  } catch (error) {
    if (!isIpsetsError(error, 'INVALID_INPUT')) throw error;
    return (error.details['problems'] as { path: string; line?: number; column?: number }[]).map((p) => `${p.path} ${p.line ?? '-'}:${p.column ?? '-'}`);
  }
  return [];
}

describe('problems in plain YAML', () => {
  it('are located at the same lines and columns as through the yaml package', () => {
    const body = [
      'sets:',
      '  - type: nope',
      '    name: a',
      '  - { type: namespace, name: "b c", members: [10.0.0.1, 10.0.0.999] }',
      '  - type: namespace',
      '    name: d',
      '    members:',
      '      - 10.0.0.1',
      '      - bad-member',
      '  - type: keyLabelOfNamespace',
      '    name: l',
      '    members:',
      '    - { type: namespace, name: undeclared }',
      '',
    ].join('\n');
    const shape = 'sets:\n  - type: namespace\n    name: d\n    extra: 1\n  - { type: namespace, name: e, members: 7 }\n';
    for (const [text, least] of [[body, 4], [shape, 1]] as const) {
      expect(readPlainYaml(`owner: azure-npm-\n${text}`)).toBeDefined();
      // An anchor the file never uses: the same data, read by the yaml package.
      expect(readPlainYaml(`owner: &o azure-npm-\n${text}`)).toBeUndefined();
      const fast = located(`owner: azure-npm-\n${text}`);
      expect(fast.length).toBeGreaterThanOrEqual(least);
      expect(fast).toEqual(located(`owner: &o azure-npm-\n${text}`));
    }
  });
});
