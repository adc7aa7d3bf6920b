/**
 * list:set positions (`NAME,before|after,REF` and the `before`/`after` options) and repeated
 * element options, replayed against the fake kernel. Every row was measured on ipset 7.17
 * inside a scratch network namespace, both as `ipset restore` (line 2 of
 * `add l m` / LINE / `add l2 a`) and as a single `ipset LINE` command.
 *
 * Fixes the differential defect "list:set comma form": the fake took `n,before,a` for one
 * set name and reported `Set to be added/deleted/tested as element does not exist.`.
 */
import { describe, expect, it } from 'vitest';
import { kernelWith, P } from '../../helpers/fake.js';

const SETUP = 'create a hash:ip\ncreate b hash:ip\ncreate n hash:ip\ncreate m hash:ip\ncreate l list:set\ncreate l2 list:set\nadd l a\nadd l b\n';

interface Row {
  line: string;
  /** rc, stderr, members of l, members of l2 after `add l m` / line / `add l2 a` (stdout is always empty). */
  restore: [number, string, string[], string[]];
  /** rc, stderr, members of l after the single command. */
  command: [number, string, string[]];
}

const ROWS: Row[] = [
  { line: 'add l n,before,a', restore: [0, '', ['n', 'a', 'b', 'm'], ['a']], command: [0, '', ['n', 'a', 'b']] },
  { line: 'add l n,after,a', restore: [0, '', ['a', 'n', 'b', 'm'], ['a']], command: [0, '', ['a', 'n', 'b']] },
  { line: 'add l n,after,b', restore: [0, '', ['a', 'b', 'n', 'm'], ['a']], command: [0, '', ['a', 'b', 'n']] },
  { line: 'add l x,y', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l n,b,a', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l n,BEFORE,a', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l n,after,nosuch', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b']] },
  { line: 'add l n,before,a before a', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: before already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: before already specified\n', ['a', 'b']] },
  { line: 'add l n,after,a after a', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: after already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: after already specified\n', ['a', 'b']] },
  { line: 'add l n,before,a after a', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: after already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: after already specified\n', ['a', 'b']] },
  { line: 'add l n before a before b', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: before already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: before already specified\n', ['a', 'b']] },
  { line: 'add l n before a after b', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: after already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: after already specified\n', ['a', 'b']] },
  { line: 'add l n before a,before,b', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b']] },
  { line: 'add l n,', restore: [1, 'ipset v7.17: Error in line 2: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b']] },
  { line: 'add l n,before,', restore: [1, 'ipset v7.17: Error in line 2: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b']] },
  { line: 'add l n,before,a,b', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b']] },
  { line: 'add l ,before,a', restore: [1, 'ipset v7.17: Error in line 2: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b']] },
  { line: 'add l n,before', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l n,before,,a', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b']] },
  { line: 'add l n,,a', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l n,before,a,', restore: [1, 'ipset v7.17: Error in line 2: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b']] },
  { line: 'add l n,before,m', restore: [0, '', ['a', 'b', 'n', 'm'], ['a']], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b']] },
  { line: 'add l nosuch,before,a', restore: [1, 'ipset v7.17: Error in line 2: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b']] },
  { line: 'add l l2,before,a', restore: [1, 'ipset v7.17: Error in line 2: Sets with list:set type cannot be added to the set.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Sets with list:set type cannot be added to the set.\n', ['a', 'b']] },
  { line: 'add l n,before,l2', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b']] },
  { line: 'add l n,before,a timeout 5', restore: [1, 'ipset v7.17: Error in line 2: Timeout cannot be used: set was created without timeout support\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Timeout cannot be used: set was created without timeout support\n', ['a', 'b']] },
  { line: 'add l n,before,a foo', restore: [2, 'ipset v7.17: Unknown argument: `foo\'\nTry `ipset help\' for more information.\n', ['a', 'b'], []], command: [2, 'ipset v7.17: Unknown argument: `foo\'\nTry `ipset help\' for more information.\n', ['a', 'b']] },
  { line: 'add l n,after,a -exist', restore: [0, '', ['a', 'n', 'b', 'm'], ['a']], command: [0, '', ['a', 'n', 'b']] },
  { line: 'del l a,before,b', restore: [0, '', ['b', 'm'], ['a']], command: [0, '', ['b']] },
  { line: 'del l b,before,a', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b']] },
  { line: 'del l b,after,a', restore: [0, '', ['a', 'm'], ['a']], command: [0, '', ['a']] },
  { line: 'del l a,after,b', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b']] },
  { line: 'del l a,before,nosuch', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' does not exist.\n', ['a', 'b']] },
  { line: 'del l a,before,n', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b']] },
  { line: 'del l n,before,a', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b']] },
  { line: 'del l x,y', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'del l a,before,b before b', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: before already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: before already specified\n', ['a', 'b']] },
  { line: 'del l a before b after b', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: after already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: after already specified\n', ['a', 'b']] },
  { line: 'del l a,before', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l abcdefghijabcdefghijabcdefghijab,before,a', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b']] },
  { line: 'add l n,before,abcdefghijabcdefghijabcdefghijab', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b']] },
  { line: 'add l abcdefghijabcdefghijabcdefghijab,zz', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l n,zz,abcdefghijabcdefghijabcdefghijab', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'add l abcdefghijabcdefghijabcdefghija,before,abcdefghijabcdefghijabcdefghija', restore: [1, 'ipset v7.17: Error in line 2: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b']] },
  { line: 'add l abcdefghijabcdefghijabcdefghijab,before,abcdefghijabcdefghijabcdefghijab', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b']] },
  { line: 'add l n before abcdefghijabcdefghijabcdefghijab', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b']] },
  { line: 'del l abcdefghijabcdefghijabcdefghijab,after,a', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b']] },
  { line: 'test l a,before,b', restore: [0, 'Warning: a after b is in set l.\n', ['a', 'b', 'm'], []], command: [0, 'Warning: a after b is in set l.\n', ['a', 'b']] },
  { line: 'test l b,before,a', restore: [1, 'b after a is NOT in set l.\n', ['a', 'b', 'm'], []], command: [1, 'b after a is NOT in set l.\n', ['a', 'b']] },
  { line: 'test l a,after,b', restore: [1, 'a after b is NOT in set l.\n', ['a', 'b', 'm'], []], command: [1, 'a after b is NOT in set l.\n', ['a', 'b']] },
  { line: 'test l b,after,a', restore: [0, 'Warning: b after a is in set l.\n', ['a', 'b', 'm'], []], command: [0, 'Warning: b after a is in set l.\n', ['a', 'b']] },
  { line: 'test l x,y', restore: [1, 'ipset v7.17: Error in line 2: you must specify elements as setname,[before|after],setname\n', ['a', 'b'], []], command: [1, 'ipset v7.17: you must specify elements as setname,[before|after],setname\n', ['a', 'b']] },
  { line: 'test l a before b', restore: [0, 'Warning: a after b is in set l.\n', ['a', 'b', 'm'], []], command: [0, 'Warning: a after b is in set l.\n', ['a', 'b']] },
  { line: 'test l b after a', restore: [0, 'Warning: b after a is in set l.\n', ['a', 'b', 'm'], []], command: [0, 'Warning: b after a is in set l.\n', ['a', 'b']] },
  { line: 'test l a before nosuch', restore: [1, 'a after nosuch is NOT in set l.\n', ['a', 'b', 'm'], []], command: [1, 'a after nosuch is NOT in set l.\n', ['a', 'b']] },
  { line: 'test l a,before,nosuch', restore: [1, 'a after nosuch is NOT in set l.\n', ['a', 'b', 'm'], []], command: [1, 'a after nosuch is NOT in set l.\n', ['a', 'b']] },
  { line: 'test l n,before,a', restore: [1, 'n after a is NOT in set l.\n', ['a', 'b', 'm'], []], command: [1, 'n after a is NOT in set l.\n', ['a', 'b']] },
  { line: 'add a 1.1.1.1 timeout 5 timeout 6', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: timeout already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: timeout already specified\n', ['a', 'b']] },
  { line: 'add a 1.1.1.1 nomatch nomatch', restore: [2, 'ipset v7.17: Unknown argument: `nomatch\'\nTry `ipset help\' for more information.\n', ['a', 'b'], []], command: [2, 'ipset v7.17: Unknown argument: `nomatch\'\nTry `ipset help\' for more information.\n', ['a', 'b']] },
  { line: 'add a 1.1.1.1 comment x comment y', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: comment already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: comment already specified\n', ['a', 'b']] },
  { line: 'add a 1.1.1.1 packets 1 packets 2', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: packets already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: packets already specified\n', ['a', 'b']] },
  { line: 'add a 1.1.1.1 skbmark 0x1 skbmark 0x2', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: skbmark already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: skbmark already specified\n', ['a', 'b']] },
  { line: 'add l n,before,a before', restore: [2, 'ipset v7.17: Missing mandatory argument of option `before\'\nTry `ipset help\' for more information.\n', ['a', 'b'], []], command: [2, 'ipset v7.17: Missing mandatory argument of option `before\'\nTry `ipset help\' for more information.\n', ['a', 'b']] },
  { line: 'add l n before', restore: [2, 'ipset v7.17: Missing mandatory argument of option `before\'\nTry `ipset help\' for more information.\n', ['a', 'b'], []], command: [2, 'ipset v7.17: Missing mandatory argument of option `before\'\nTry `ipset help\' for more information.\n', ['a', 'b']] },
  { line: 'add l n,before,a before abcdefghijabcdefghijabcdefghijab', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: before already specified\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: before already specified\n', ['a', 'b']] },
  { line: 'add l abcdefghijabcdefghijabcdefghijab,before,a before a', restore: [1, 'ipset v7.17: Error in line 2: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b'], []], command: [1, 'ipset v7.17: Syntax error: setname \'abcdefghijabcdefghijabcdefghijab\' is longer than 31 characters\n', ['a', 'b']] },
  { line: 'add l a,before,b', restore: [1, 'ipset v7.17: Error in line 2: Element cannot be added to the set: it\'s already added\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Element cannot be added to the set: it\'s already added\n', ['a', 'b']] },
  { line: 'add l a,before,b -exist', restore: [1, 'ipset v7.17: Error in line 2: Element cannot be added to the set: it\'s already added\n', ['a', 'b', 'm'], []], command: [0, '', ['a', 'b']] },
  { line: 'add l a before b -exist', restore: [1, 'ipset v7.17: Error in line 2: Element cannot be added to the set: it\'s already added\n', ['a', 'b', 'm'], []], command: [0, '', ['a', 'b']] },
  { line: 'del l m,before,a', restore: [1, 'ipset v7.17: Error in line 2: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: The set to which you referred with \'before\' or \'after\' is not added to the set.\n', ['a', 'b']] },
  { line: 'del l nosuch,before,a', restore: [1, 'ipset v7.17: Error in line 2: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b', 'm'], []], command: [1, 'ipset v7.17: Set to be added/deleted/tested as element does not exist.\n', ['a', 'b']] },
  { line: 'test l nosuch,before,a', restore: [1, 'nosuch after a is NOT in set l.\n', ['a', 'b', 'm'], []], command: [1, 'nosuch after a is NOT in set l.\n', ['a', 'b']] },
  { line: 'test l l2,before,a', restore: [1, 'l2 after a is NOT in set l.\n', ['a', 'b', 'm'], []], command: [1, 'l2 after a is NOT in set l.\n', ['a', 'b']] },
  { line: 'add l n,after,a after', restore: [2, 'ipset v7.17: Missing mandatory argument of option `after\'\nTry `ipset help\' for more information.\n', ['a', 'b'], []], command: [2, 'ipset v7.17: Missing mandatory argument of option `after\'\nTry `ipset help\' for more information.\n', ['a', 'b']] },
];

describe('list:set positions and repeated options (measured on ipset 7.17)', () => {
  for (const row of ROWS) {
    it(`restore: ${row.line}`, () => {
      const k = kernelWith(SETUP);
      const [rc, stderr, l, l2] = row.restore;
      expect(k.restore(`add l m\n${row.line}\nadd l2 a\n`)).toEqual({ exitCode: rc, stdout: '', stderr });
      expect(k.members('l')).toEqual(l);
      expect(k.members('l2')).toEqual(l2);
    });
    it(`command: ${row.line}`, () => {
      const k = kernelWith(SETUP);
      const [rc, stderr, l] = row.command;
      expect(k.exec(row.line.split(' '))).toEqual({ exitCode: rc, stdout: '', stderr });
      expect(k.members('l')).toEqual(l);
    });
  }
});

describe('list:set comma form: sides', () => {
  it('a bad middle word is a userspace error without the Syntax error prefix: the pending batch is lost', () => {
    const k = kernelWith(SETUP);
    const r = k.restore('add l m\nadd l n,BEFORE,a\n');
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: `${P}Error in line 2: you must specify elements as setname,[before|after],setname\n` });
    expect(k.members('l')).toEqual(['a', 'b']);
  });

  it('a missing reference is a kernel error: the pending batch is applied', () => {
    const k = kernelWith(SETUP);
    const r = k.restore('add l m\nadd l n,after,nosuch\n');
    expect(r.stderr).toBe(`${P}Error in line 2: The set to which you referred with 'before' or 'after' does not exist.\n`);
    expect(k.members('l')).toEqual(['a', 'b', 'm']);
  });

  it('comma and option forms insert at the same place and save in the same order', () => {
    const comma = kernelWith(SETUP);
    const option = kernelWith(SETUP);
    expect(comma.restore('add l n,after,a\nadd l m,before,n\n').exitCode).toBe(0);
    expect(option.restore('add l n after a\nadd l m before n\n').exitCode).toBe(0);
    expect(comma.members('l')).toEqual(['a', 'm', 'n', 'b']);
    expect(comma.saveText()).toBe(option.saveText());
  });
});
