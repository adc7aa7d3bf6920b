import { describe, expect, it } from 'vitest';
import { parseListHeaders, parseListNames } from '../../../src/parse/list-parser.js';
import { MAX_PARSE_PROBLEMS, PROBLEM_TEXT_LIMIT, parseSave } from '../../../src/parse/save-parser.js';
import { parseCreateOptions } from '../../../src/parse/saved-members.js';
import type { SavedSet, SaveSnapshot } from '../../../src/types.js';

/** A parsed set as plain data: its members read as strings, its parsed create options left out (checked on their own). */
const plain = (s: SavedSet): { name: string; type: string; options: string; members: string[] } => ({ name: s.name, type: s.type, options: s.options, members: [...s.members] });
const plainSnapshot = (s: SaveSnapshot): unknown => ({ ...s, sets: s.sets.map(plain) });

/** The example of docs/ipset-semantics.md §5.1, verbatim. */
const SPEC_SAVE = `create n hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x68946666
add n 172.16.0.0/12
add n 10.0.0.1
add n 10.2.0.0/16 nomatch
create ipp hash:ip,port family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x48cb6fdf
add ipp 10.0.0.1,tcp:80
add ipp 10.0.0.7,icmp:echo-request
create n6 hash:net family inet6 hashsize 1024 maxelem 65536 bucketsize 12 initval 0x2bb2c188
add n6 2001:db8::/32
create l list:set size 8
add l ip
add l n
`;

describe('parseSave', () => {
  it('parses the spec example (docs/ipset-semantics.md §5.1)', () => {
    expect(plainSnapshot(parseSave(SPEC_SAVE))).toEqual({
      sets: [
        {
          name: 'n',
          type: 'hash:net',
          options: 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x68946666',
          members: ['172.16.0.0/12', '10.0.0.1', '10.2.0.0/16 nomatch'],
        },
        {
          name: 'ipp',
          type: 'hash:ip,port',
          options: 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x48cb6fdf',
          members: ['10.0.0.1,tcp:80', '10.0.0.7,icmp:echo-request'],
        },
        {
          name: 'n6',
          type: 'hash:net',
          options: 'family inet6 hashsize 1024 maxelem 65536 bucketsize 12 initval 0x2bb2c188',
          members: ['2001:db8::/32'],
        },
        { name: 'l', type: 'list:set', options: 'size 8', members: ['ip', 'n'] },
      ],
      problems: [],
    });
  });

  it('parses each create line\'s options once, into createOptions (option word to value, a flag to the empty string)', () => {
    const { sets } = parseSave(`${SPEC_SAVE}create c hash:net family inet hashsize 64 maxelem 8 counters comment timeout 30 skbinfo\ncreate __proto__ hash:net __proto__ 1 toString constructor\n`);
    expect(sets.map((s) => ({ ...s.createOptions }))).toEqual([
      { family: 'inet', hashsize: '1024', maxelem: '65536', bucketsize: '12', initval: '0x68946666' },
      { family: 'inet', hashsize: '1024', maxelem: '65536', bucketsize: '12', initval: '0x48cb6fdf' },
      { family: 'inet6', hashsize: '1024', maxelem: '65536', bucketsize: '12', initval: '0x2bb2c188' },
      { size: '8' },
      { family: 'inet', hashsize: '64', maxelem: '8', counters: '', comment: '', timeout: '30', skbinfo: '' },
      // Hostile words are plain keys (no prototype to reach).
      Object.assign(Object.create(null) as object, { ['__proto__']: '', 1: '', toString: '', constructor: '' }),
    ]);
    expect(Object.getPrototypeOf(sets[5]!.createOptions)).toBe(null);
    expect(parseCreateOptions('  family\tinet6   maxelem ')).toEqual({ family: 'inet6', maxelem: '' });
  });

  it('parses empty input and input without sets', () => {
    expect(parseSave('')).toEqual({ sets: [], problems: [] });
    expect(parseSave('\n\n# comment\n')).toEqual({ sets: [], problems: [] });
  });

  it('fixes docs/reference-behaviour.md §d.2/§g.2.11: a create on the very last line is parsed (with and without final newline)', () => {
    const text = 'create a hash:net family inet\nadd a 10.0.0.1\ncreate b list:set size 8';
    for (const input of [text, `${text}\n`]) {
      const { sets, problems } = parseSave(input);
      expect(problems).toEqual([]);
      expect(sets.map((s) => s.name)).toEqual(['a', 'b']);
      expect(plain(sets[1]!)).toEqual({ name: 'b', type: 'list:set', options: 'size 8', members: [] });
    }
  });

  it('fixes docs/reference-behaviour.md §d.2/§g.2.11: a nomatch entry does not stop reading the set', () => {
    const { sets, problems } = parseSave(
      'create a hash:net family inet\nadd a 10.0.0.0/8 nomatch\nadd a 10.1.0.0/16\nadd a 10.2.0.0/16 nomatch\nadd a 10.3.0.1\n',
    );
    expect(problems).toEqual([]);
    expect([...sets[0]!.members]).toEqual(['10.0.0.0/8 nomatch', '10.1.0.0/16', '10.2.0.0/16 nomatch', '10.3.0.1']);
  });

  it('a create line without options has empty options', () => {
    expect(plain(parseSave('create a hash:net\n').sets[0]!)).toEqual({ name: 'a', type: 'hash:net', options: '', members: [] });
  });

  it('tolerates CRLF line ends and surrounding blanks', () => {
    const { sets, problems } = parseSave(
      'create a hash:net family inet\r\nadd a 10.0.0.1\r\n  add a 10.0.0.2  \r\nadd a 10.0.0.0/8 nomatch\r\n\r\n',
    );
    expect(problems).toEqual([]);
    expect(sets[0]!.options).toBe('family inet');
    expect([...sets[0]!.members]).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.0/8 nomatch']);
  });

  it('tolerates extra blanks and tabs between the words after the set name (the name is exact: it may hold blanks)', () => {
    const { sets, problems } = parseSave('create a\thash:net   family inet\nadd a  10.0.0.1\nadd a\t10.0.0.2\tnomatch\n');
    expect(problems).toEqual([]);
    expect(plain(sets[0]!)).toEqual({ name: 'a', type: 'hash:net', options: 'family inet', members: ['10.0.0.1', '10.0.0.2 nomatch'] });
  });

  it('reads set names with blanks as ipset save prints them (the foreign "azure-npm-zzz 1" was read as the owned "azure-npm-zzz")', () => {
    // What ipset 7 prints (checked on the real kernel): `create NAME TYPE …` and `add NAME MEMBER`, the name unquoted.
    const text = [
      'create azure-npm-zzz 1 hash:ip family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0xa92bd3aa',
      'add azure-npm-zzz 1 10.0.0.1',
      'create azure-npm-zzz hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x0f27acac',
      'add azure-npm-zzz 10.0.0.2',
      'add azure-npm-zzz 1 10.0.0.3',
      'add azure-npm-zzz 10.0.0.4',
      'create a hash:ip b hash:ip family inet hashsize 1024 maxelem 65536',
      'add a hash:ip b 10.0.0.5',
      'create  lead hash:ip family inet',
      'add  lead 10.0.0.6',
      'create x  y list:set size 8',
      'add x  y azure-npm-zzz 1',
      'add x  y azure-npm-zzz',
      '',
    ].join('\n');
    const { sets, problems } = parseSave(text);
    expect(problems).toEqual([]);
    expect(sets.map((s) => [s.name, s.type, [...s.members]])).toEqual([
      ['azure-npm-zzz 1', 'hash:ip', ['10.0.0.1', '10.0.0.3']],
      ['azure-npm-zzz', 'hash:net', ['10.0.0.2', '10.0.0.4']],
      ['a hash:ip b', 'hash:ip', ['10.0.0.5']],
      [' lead', 'hash:ip', ['10.0.0.6']],
      ['x  y', 'list:set', ['azure-npm-zzz 1', 'azure-npm-zzz']],
    ]);
    expect(sets[0]!.options).toBe('family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0xa92bd3aa');
  });

  it('an add line needs a member after the name: "add o 10.0.0.1" is set "o" even when the set "o 10.0.0.1" exists', () => {
    const { sets, problems } = parseSave('create o hash:ip\ncreate o 10.0.0.1 hash:ip\nadd o 10.0.0.1\nadd o 10.0.0.1 10.0.0.2\n');
    expect(problems).toEqual([]);
    expect(sets.map((s) => [s.name, [...s.members]])).toEqual([
      ['o', ['10.0.0.1']],
      ['o 10.0.0.1', ['10.0.0.2']],
    ]);
  });

  it('a long run of adds to a set whose name another name extends goes to the right set', () => {
    const adds = (name: string, from: number) => Array.from({ length: 600 }, (_, i) => `add ${name} 10.${from}.${i >> 8}.${i & 255}`);
    const text = ['create o hash:ip family inet', 'create o 1 hash:ip family inet', ...adds('o', 1), ...adds('o 1', 2), ...adds('o', 3), ''].join('\n');
    const { sets, problems } = parseSave(text);
    expect(problems).toEqual([]);
    expect(sets[0]!.members).toHaveLength(1200);
    expect(sets[1]!.members).toHaveLength(600);
    expect([...sets[1]!.members].every((m) => m.startsWith('10.2.'))).toBe(true);
  });

  it('interleaved sets: each add goes to the set it names', () => {
    const { sets } = parseSave('create a hash:net\ncreate b hash:net\nadd a 1.1.1.1\nadd b 2.2.2.2\nadd a 3.3.3.3\nadd ab 4.4.4.4\n');
    expect(sets.map((s) => [...s.members])).toEqual([['1.1.1.1', '3.3.3.3'], ['2.2.2.2']]);
  });

  it('does not confuse a set with a set whose name it prefixes', () => {
    const { sets, problems } = parseSave('create a hash:net\ncreate ab hash:net\nadd a 1.1.1.1\nadd ab 2.2.2.2\nadd a 3.3.3.3\n');
    expect(problems).toEqual([]);
    expect(sets.map((s) => [...s.members])).toEqual([['1.1.1.1', '3.3.3.3'], ['2.2.2.2']]);
  });

  it('keeps nomatch, drops other element options', () => {
    const { sets } = parseSave(
      [
        'create t hash:net family inet hashsize 1024 maxelem 65536 timeout 300 counters comment bucketsize 12 initval 0x1',
        'add t 10.0.0.1 timeout 200 packets 0 bytes 0 comment "x nomatch y"',
        'add t 10.0.0.0/8 timeout 0 packets 5 bytes 300 comment "a b" nomatch',
        'add t 10.1.0.0/16 nomatch timeout 5',
        'add t 10.2.0.0/16 comment "nomatch"',
        '',
      ].join('\n'),
    );
    expect([...sets[0]!.members]).toEqual(['10.0.0.1', '10.0.0.0/8 nomatch', '10.1.0.0/16 nomatch', '10.2.0.0/16']);
  });

  it('turns malformed lines into problems and keeps going', () => {
    const text = [
      'add early 10.0.0.1', // 1: before any create
      'create a hash:net family inet', // 2
      'add a', // 3: no member
      'add a 10.0.0.1', // 4
      'bogus line', // 5
      'create', // 6
      'create b', // 7: no type
      'add', // 8
      'add a 10.0.0.2', // 9
      'create a hash:net family inet', // 10: duplicate
      'add a 10.0.0.3', // 11: goes to the first a
      'add b 10.0.0.4', // 12: b was never created
      'add a ', // 13: no member after trimming
    ].join('\n');
    const { sets, problems } = parseSave(text);
    expect(sets.map(plain)).toEqual([{ name: 'a', type: 'hash:net', options: 'family inet', members: ['10.0.0.1', '10.0.0.2', '10.0.0.3'] }]);
    expect(problems).toEqual([
      { line: 1, text: 'add early 10.0.0.1', reason: 'add line for set "early" before its create line' },
      { line: 3, text: 'add a', reason: 'add line without a member' },
      { line: 5, text: 'bogus line', reason: 'expected a create or add line' },
      { line: 6, text: 'create', reason: 'expected a create or add line' },
      { line: 7, text: 'create b', reason: 'create line without a set type' },
      { line: 8, text: 'add', reason: 'expected a create or add line' },
      { line: 10, text: 'create a hash:net family inet', reason: 'second create line for set "a"' },
      { line: 12, text: 'add b 10.0.0.4', reason: 'add line for set "b" before its create line' },
      { line: 13, text: 'add a', reason: 'add line without a member' },
    ]);
  });

  it('counts blank and comment lines in problem line numbers', () => {
    const { problems } = parseSave('\n# c\r\n\nnope\n');
    expect(problems).toEqual([{ line: 4, text: 'nope', reason: 'expected a create or add line' }]);
  });

  it('never throws on arbitrary text', () => {
    for (const text of ['\u0000', 'add\n', 'create \n', '"', 'add a "b', '\r\r\r', 'add a b c d e f']) {
      expect(() => parseSave(text)).not.toThrow();
    }
  });
});

describe('parseListNames', () => {
  it('one name per line, in order; blank lines and CRLF tolerated', () => {
    expect(parseListNames('n\nipp\nn6\nl\n')).toEqual(['n', 'ipp', 'n6', 'l']);
    expect(parseListNames('a\r\n\r\n  b \r\nc')).toEqual(['a', 'b', 'c']);
    expect(parseListNames('')).toEqual([]);
  });
});

/** The example of docs/ipset-semantics.md §5.2 (plain list), verbatim. */
const SPEC_LIST = `Name: n
Type: hash:net
Revision: 7
Header: family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x68946666
Size in memory: 696
References: 1
Number of entries: 5
Members:
172.16.0.0/12
10.0.0.1
10.2.0.0/16 nomatch
192.168.1.0/24
10.0.0.0/24

Name: l
Type: list:set
Revision: 3
Header: size 8
Size in memory: 176
References: 0
Number of entries: 2
Members:
ip
n
`;

describe('parseListHeaders', () => {
  const expected = [
    {
      name: 'n',
      type: 'hash:net',
      header: 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x68946666',
      references: 1,
      entries: 5,
    },
    { name: 'l', type: 'list:set', header: 'size 8', references: 0, entries: 2 },
  ];

  it('parses plain list output (docs/ipset-semantics.md §5.2), skipping members', () => {
    expect(parseListHeaders(SPEC_LIST)).toEqual(expected);
  });

  it('parses terse output (list -t), CRLF and no final newline', () => {
    const terse = SPEC_LIST.replace(/Members:\n[^]*?(\n\n|\n$)/g, '$1').trimEnd();
    expect(terse).not.toContain('Members');
    expect(parseListHeaders(terse)).toEqual(expected);
    expect(parseListHeaders(terse.replace(/\n/g, '\r\n'))).toEqual(expected);
  });

  it('a Name line starts a new block even without a blank line', () => {
    expect(parseListHeaders('Name: a\nType: hash:net\nName: b\nReferences: 3\n')).toEqual([
      { name: 'a', type: 'hash:net', header: '', references: 0, entries: 0 },
      { name: 'b', type: '', header: '', references: 3, entries: 0 },
    ]);
  });

  it('tolerates unknown and missing fields; drops blocks without a name', () => {
    expect(
      parseListHeaders('Type: hash:net\nReferences: 2\n\nName: x\nFuture: thing\nReferences: many\nNumber of entries: -1\n\n\n'),
    ).toEqual([{ name: 'x', type: '', header: '', references: 0, entries: 0 }]);
    expect(parseListHeaders('')).toEqual([]);
  });

  it('an empty set ends with Members: and the next block still parses', () => {
    expect(parseListHeaders('Name: e\nType: hash:net\nNumber of entries: 0\nMembers:\n\nName: f\nReferences: 1\n')).toEqual([
      { name: 'e', type: 'hash:net', header: '', references: 0, entries: 0 },
      { name: 'f', type: '', header: '', references: 1, entries: 0 },
    ]);
  });
});

describe('parseSave on hostile input: bounded problems (a 100 MB garbage save ran the planner out of memory)', () => {
  it('keeps the first 100 problems, each cut to 200 characters with its length, and counts the rest', () => {
    const line = `junk ${'z'.repeat(5000)}`;
    const text = Array.from({ length: 20_000 }, () => line).join('\n');
    const snapshot = parseSave(text);
    expect(snapshot.problems).toHaveLength(MAX_PARSE_PROBLEMS);
    expect(snapshot.problemCount).toBe(20_000);
    for (const p of snapshot.problems) {
      expect(p.text).toHaveLength(PROBLEM_TEXT_LIMIT);
      expect(p.length).toBe(line.length);
    }
    expect(snapshot.problems[99]!.line).toBe(100);
  });

  it('a 10 MB single line is one short problem; a name of any size is quoted short', () => {
    const snapshot = parseSave(`add ${'n'.repeat(10_000_000)} 10.0.0.1\n`);
    expect(snapshot.problems).toHaveLength(1);
    expect(snapshot.problemCount).toBeUndefined();
    expect(snapshot.problems[0]!.reason.length).toBeLessThan(400);
    expect(snapshot.problems[0]!.text).toHaveLength(PROBLEM_TEXT_LIMIT);
  });

  it('few problems: no count (the problems are all there)', () => {
    expect(parseSave('nonsense\n')).toEqual({ sets: [], problems: [{ line: 1, text: 'nonsense', reason: 'expected a create or add line' }] });
  });
});
