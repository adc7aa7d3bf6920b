/**
 * Desired files are strict: what a parser would silently resolve (a duplicate key,
 * the last one winning), what YAML can smuggle in (tags, alias bombs), wrong roots and
 * deep nesting are refused with one line that says what was expected, and no value
 * is ever quoted whole.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { loadDesiredFile, parseDesiredText } from '../../../src/desired/file.js';
import { MAX_INPUT_BYTES } from '../../../src/bounded-read.js';
import { MAX_JSON_DEPTH, locateJsonPaths, scanJsonStructure } from '../../../src/json-scan.js';

/** The offset the structure scan refuses for depth, or -1. */
function jsonTooDeepAt(text: string, max = MAX_JSON_DEPTH): number {
  return scanJsonStructure(text, max).find((p) => p.kind === 'too-deep')?.offset ?? -1;
}

function refused(text: string, format?: 'json' | 'yaml'): string {
  try {
    parseDesiredText(text, { source: 'f', ...(format === undefined ? {} : { format }) });
  } catch (error) {
    if (!isIpsetsError(error)) throw error;
    expect(error.code).toBe('INVALID_INPUT');
    return error.message;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

const GOOD_SET = '{"type":"namespace","name":"shop","members":["10.0.0.1"]}';

describe('JSON duplicate keys (JSON.parse keeps the last one: {"sets":[…],"sets":[]} destroyed every owned set)', () => {
  it('a duplicate "sets" key at the root is refused with its path and both lines', () => {
    const message = refused(`{\n "sets": [${GOOD_SET}],\n "sets": []\n}`);
    expect(message).toBe('f: 1 problem; nothing was applied: line 3:2, sets: duplicate key "sets" (first at line 2:2); expected each key once (the last one would silently win)');
  });

  it('a duplicate key inside a set, and one written with an escape, are found', () => {
    expect(refused(`{"sets":[{"type":"namespace","name":"a","name":"b"}]}`)).toContain('sets[0].name: duplicate key "name"');
    expect(refused(`{"sets":[],"s\\u0065ts":[]}`)).toContain('sets: duplicate key "sets"');
  });

  it('the same key in two different objects is not a duplicate; keys inside strings are not keys', () => {
    const file = parseDesiredText(`{"sets":[${GOOD_SET},{"type":"namespace","name":"x\\"y\\\\","members":[]}]}`.replace('x\\"y\\\\', 'web'));
    expect(file.sets).toHaveLength(2);
    expect(scanJsonStructure('{"a":"{\\"a\\":1,\\"a\\":2}","b":[{"a":1},{"a":2}]}')).toEqual([]);
  });

  it('nesting deeper than a desired file needs is refused without a stack overflow', () => {
    const deep = '{"sets":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}';
    expect(refused(deep)).toMatch(/^f: 1 problem; nothing was applied: line 1:72, \(root\): the document nests more than 64 levels deep; expected a mapping/);
  });

  it('deep nesting is refused before anything is built, valid JSON or not (8 MB of "[" in well under a second)', () => {
    // Defect pinned: the depth was checked after JSON.parse had built every level.
    const started = performance.now();
    expect(refused('{"sets":' + '['.repeat(8 * 1024 * 1024))).toMatch(/line 1:72, \(root\): the document nests more than 64 levels deep/);
    expect(performance.now() - started).toBeLessThan(1000);
    // Brackets inside strings are not nesting.
    expect(jsonTooDeepAt(`{"sets":["${'['.repeat(100)}\\"${'{'.repeat(100)}"]}`)).toBe(-1);
    expect(jsonTooDeepAt('['.repeat(64))).toBe(-1);
    expect(jsonTooDeepAt('['.repeat(65))).toBe(64);
  });

  it('the structure scan finds the depth as a character-by-character reader would, escaped quotes and unterminated strings included', () => {
    // The reader the scan replaced (it stepped through every character of every string).
    const byCharacter = (text: string, max: number): number => {
      let depth = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c === '"') {
          for (i++; i < text.length; i++) {
            if (text[i] === '\\') i++;
            else if (text[i] === '"') break;
          }
        } else if (c === '{' || c === '[') {
          if (++depth > max) return i;
        } else if (c === '}' || c === ']') {
          if (depth > 0) depth--;
        }
      }
      return -1;
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ','), { maxLength: 40 }).map((cs) => cs.join('')), fc.integer({ min: 0, max: 4 }), (text, max) => {
        expect(jsonTooDeepAt(text, max)).toBe(byCharacter(text, max));
      }),
      { numRuns: 2000 },
    );
  });

  it('the structure scan runs before JSON.parse: it ends and never throws on any text, and reports duplicates once the text is JSON', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ',', ':', 'u', '0'), { maxLength: 60 }).map((cs) => cs.join('')),
        fc.integer({ min: 0, max: 4 }),
        (text, max) => {
          const problems = scanJsonStructure(text, max, 3);
          expect(problems.filter((p) => p.kind === 'too-deep').length).toBeLessThanOrEqual(1);
          expect(problems.filter((p) => p.kind === 'duplicate-key').length).toBeLessThanOrEqual(3);
        },
      ),
      { numRuns: 2000 },
    );
    // A bad escape in a key is JSON.parse's to report, not a crash of the scan.
    expect(refused('{"s\\x":1,"sets":[]}')).toMatch(/not valid JSON/);
    // Invalid JSON with a duplicate key: the JSON error, as before the scan moved first.
    expect(refused('{"sets":[],"sets":[] x')).toMatch(/not valid JSON/);
    // Deep and duplicated: the depth alone.
    expect(refused('{"a":1,"a":2,"sets":' + '['.repeat(100))).toMatch(/^f: 1 problem; nothing was applied: line 1:\d+, \(root\): the document nests more than 64 levels deep/);
  });

  it('locates values by path in one scan (no second parser)', () => {
    const text = '{"sets":[{"type":"x"},\n{"type":"namespace","members":["a", 5, {"k":[1]}]}]}';
    const at = locateJsonPaths(text, [['sets', 1, 'members', 1], ['sets', 1, 'members', 2, 'k'], ['sets', 0, 'type'], ['nope']]);
    expect(text.slice(at.get('sets[1].members[1]')!, at.get('sets[1].members[1]')! + 1)).toBe('5');
    expect(text.slice(at.get('sets[1].members[2].k')!).startsWith('[1]')).toBe(true);
    expect(text.slice(at.get('sets[0].type')!).startsWith('"x"')).toBe(true);
    expect(at.has('nope')).toBe(false);
  });
});

describe('YAML: duplicates, tags, alias bombs, null and wrong roots get one line that says what was expected', () => {
  it('a duplicate key is refused with its path (as in JSON)', () => {
    expect(refused('sets: []\nsets: []\n')).toBe(
      'f: 1 problem; nothing was applied: line 2:1, sets: duplicate key "sets" (first at line 1:1); expected each key once (the last one would silently win)',
    );
  });

  it('an alias bomb (printed a stack trace: "Excessive alias count") is one line', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`), 'sets: []'].join('\n');
    expect(refused(bomb)).toMatch(/^f: 1 problem; nothing was applied: \(root\): YAML aliases expand too much .*; expected /);
  });

  it.each([
    ['!!binary', 'sets: !!binary aGVsbG8=\n', 'sets: the YAML tag "!!binary" is not accepted; expected plain strings, lists and mappings'],
    ['a custom tag', 'sets:\n  - !pod { type: namespace, name: a }\n', 'sets[0]: the YAML tag "!pod" is not accepted'],
    ['a YAML 1.1 binary', '%YAML 1.1\n---\nsets: !!binary aGVsbG8=\n', 'the YAML tag "!!binary" is not accepted'],
    ['!!str', 'sets: []\nowner: !!str azure-npm-\n', 'owner: the YAML tag "!!str" is not accepted'],
  ])('a tag (%s) is refused', (_title, text, expected) => {
    const message = refused(text);
    expect(message).toContain(expected);
    expect(message).toContain('expected');
  });

  it.each([
    ['null', 'null\n', 'got null; expected a mapping with a "sets" list'],
    ['~', '~\n', 'got null; expected a mapping with a "sets" list'],
    ['a list', '- a\n- b\n', '(root): got a list; expected a mapping with a "sets" list'],
    ['a JSON list', '[1, 2]', '(root): got a list; expected a mapping with a "sets" list'],
    ['a string', 'hello\n', '(root): got "hello"; expected a mapping with a "sets" list'],
    ['a number', '42\n', '(root): got number "42"; expected a mapping with a "sets" list'],
    ['a JSON string', '"sets"', '(root): got "sets"; expected a mapping with a "sets" list'],
    ['only comments', '# nothing here\n', 'the file holds no document'],
    ['two documents', 'sets: []\n---\nsets: []\n', 'more than one YAML document'],
  ])('a wrong root (%s) is one line', (_title, text, expected) => {
    const message = refused(text);
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain(expected);
  });

  it('deep YAML nesting (flow and block) does not overflow the stack', () => {
    expect(refused('sets: ' + '['.repeat(20_000) + ']'.repeat(20_000) + '\n')).toMatch(/nests/);
    const block = 'sets:\n' + Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n') + 'x\n';
    expect(refused(block)).toContain('expected');
  });

  it('deep YAML flow nesting is refused before the parser builds it (8 MB of "[" in well under a second; it ran 62 s and aborted on the heap limit)', () => {
    const started = performance.now();
    expect(refused(`sets: ${'['.repeat(8 * 1024 * 1024)}\n`)).toBe(
      'f: 1 problem; nothing was applied: line 1:71, (root): the document nests more than 64 levels deep; expected a mapping with a "sets" list (see ipsets plan --help)',
    );
    expect(performance.now() - started).toBeLessThan(1000);
    // Brackets in quoted scalars and comments are not nesting (an anchor sends the text to the full parser).
    const text = `sets:\n  - { type: namespace, name: &a a, members: [10.0.0.1] } # ${'['.repeat(100)}\n  - type: namespace\n    name: "b${'['.repeat(100)}"\n`;
    expect(parseDesiredText(text).sets).toHaveLength(2);
  });

  it('a byte-order mark before a good file is accepted; CRLF line ends are accepted', () => {
    expect(parseDesiredText(`\uFEFF{"sets":[${GOOD_SET}]}`).sets).toHaveLength(1);
    expect(parseDesiredText('\uFEFFsets:\r\n  - { type: namespace, name: shop }\r\n').sets).toHaveLength(1);
  });
});

describe('every quoted value is cut (a 50 MB set name was echoed back whole)', () => {
  it('a huge name, member, owner and unknown key are quoted cut, with their length', () => {
    const huge = 'n'.repeat(5_000_000);
    for (const text of [
      `{"sets":[{"type":"namespace","name":"${huge}"}]}`,
      `{"sets":[{"type":"namespace","name":"a","members":["${huge}"]}]}`,
      `{"owner":"${huge}","sets":[]}`,
      `{"${huge}":1,"sets":[]}`,
      `{"sets":[{"type":"${huge}","name":"a"}]}`,
    ]) {
      const message = refused(text);
      expect(message.length).toBeLessThan(2000);
      expect(message).toContain('5,000,000 characters');
    }
  });

  it('a file of many bad members keeps the first problems and counts the rest (up to 10,000)', () => {
    const members = Array.from({ length: 20_000 }, (_, i) => `"10.0.${i}.999"`).join(',');
    const message = refused(`{"sets":[{"type":"namespace","name":"a","members":[${members}]}]}`);
    // Validation stops at 10,000 problems: a file of millions of bad members is refused in seconds.
    expect(message.split('\n')[0]).toBe('f: at least 10,000 problems; nothing was applied:');
    expect(message).toContain('… and at least 9,950 more (checking stopped there)');
    expect(message.length).toBeLessThan(64 * 1024);
  });
});

describe('loadDesiredFile reads only bounded regular UTF-8 files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ipsets-h2-strict-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function loadRefused(path: string, limit?: number): Promise<string> {
    try {
      await loadDesiredFile(path, limit === undefined ? {} : { limit });
    } catch (error) {
      if (!isIpsetsError(error)) throw error;
      return error.message;
    }
    throw new Error('accepted');
  }

  it('a directory and /dev/zero are refused before any read (reading /dev/zero never ends)', async () => {
    expect(await loadRefused(dir)).toMatch(/is a directory; expected a regular file/);
    expect(await loadRefused('/dev/zero')).toBe('desired-state file "/dev/zero" is a character device; expected a regular file (use - to read standard input)');
  });

  it('a file over the size limit is refused with both sizes', async () => {
    const path = join(dir, 'big.json');
    await writeFile(path, `{"sets":[]}${' '.repeat(5000)}`);
    expect(await loadRefused(path, 4096)).toMatch(/is 4\.9 KiB; expected at most 4\.0 KiB/);
    expect(MAX_INPUT_BYTES).toBe(256 * 1024 * 1024);
  });

  it('invalid UTF-8 and UTF-16 are refused with where', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, Buffer.concat([Buffer.from('sets:\n  - { type: namespace, name: a'), Buffer.from([0xff]), Buffer.from(' }\n')]));
    expect(await loadRefused(bad)).toMatch(/is not valid UTF-8: byte 0xff at offset 36 \(line 2\); expected UTF-8 text$/);
    const utf16 = join(dir, 'u16.json');
    await writeFile(utf16, Buffer.from('\uFEFF{"sets":[]}', 'utf16le'));
    expect(await loadRefused(utf16)).toContain('is UTF-16');
  });
});
