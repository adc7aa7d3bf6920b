/**
 * FakeKernel.restore: input reading, tokenizer, commands, batching, what survives an
 * error, -exist (docs/ipset-semantics.md §1, §2). Stderr texts are verbatim.
 */
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '../../../src/fake-kernel.js';
import { adds, kernelWith, P, run, sorted, TRY } from '../../helpers/fake.js';

const A = 'create a hash:ip';

describe('docs/ipset-semantics.md §1.1 reading lines', () => {
  it('counts comment, blank and COMMIT lines', () => {
    const { r } = run(['# comment', '', 'create a hash:ip', 'COMMIT', '   # another', 'add nosuch 1.1.1.1']);
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: `${P}Error in line 6: The set with the given name does not exist\n` });
  });

  it('a line longer than 1023 bytes is read as two lines (later line numbers shift by one)', () => {
    const { r, k } = run([A, `add a 1.1.1.1${' '.repeat(1100)}`, 'add nosuch 1.1.1.1']);
    expect(r.stderr).toBe(`${P}Error in line 4: The set with the given name does not exist\n`);
    expect(k.members('a')).toEqual([]);
  });

  it('a 1023-byte line without newline is one chunk; the newline becomes a blank second chunk', () => {
    const line = `add a 1.1.1.1${' '.repeat(1023 - 13)}`;
    expect(line.length).toBe(1023);
    const { r } = run([A, line, 'add nosuch 1.1.1.1']);
    expect(r.stderr).toBe(`${P}Error in line 4: The set with the given name does not exist\n`);
    const { r: r2 } = run([A, line.slice(0, -1), 'add nosuch 1.1.1.1']);
    expect(r2.stderr).toBe(`${P}Error in line 3: The set with the given name does not exist\n`);
  });

  it('a chunk that ends inside a quote without newline: Missing close quote!', () => {
    const { r } = run(['create a hash:ip comment', `add a 1.1.1.1 comment "${'x'.repeat(1100)}"`, 'add a 1.1.1.2']);
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `${P}Missing close quote!\n${TRY}` });
  });

  it('skips comments, blank and indented lines; CRLF works', () => {
    const k = new FakeKernel();
    const r = k.restore('# c\n   # c\ncreate a hash:ip\r\n\n\t\nCOMMIT\r\n  add a 1.1.1.1\r\nadd a 1.1.1.2');
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(sorted(k, 'a')).toEqual(['1.1.1.1', '1.1.1.2']);
  });

  it('empty input and comment-only input succeed silently', () => {
    expect(new FakeKernel().restore('')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(new FakeKernel().restore('# nothing\n\n')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it.each([
    ['COMMIT with a trailing blank', 'COMMIT \n', 'COMMIT'],
    ['lower-case commit', 'commit\n', 'commit'],
    ['COMMIT at EOF without newline', 'COMMIT', 'COMMIT'],
  ])('%s is a parameter problem', (_t, tail, word) => {
    const k = new FakeKernel();
    const r = k.restore(`create a hash:ip\nadd a 1.1.1.1\n${tail}`);
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `${P}No command specified: unknown argument ${word}\n${TRY}` });
    expect(k.members('a')).toEqual([]);
  });

  it('COMMIT sends the pending batch', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', 'COMMIT', 'add a 1.1.1.2', 'add a bad..ip']);
    expect(r.stderr).toBe(`${P}Error in line 5: Syntax error: cannot parse bad..ip: resolving to IPv4 address failed\n`);
    expect(sorted(k, 'a')).toEqual(['1.1.1.1']);
  });
});

describe('docs/ipset-semantics.md §1.2 tokenizer', () => {
  it('quotes group words and are removed', () => {
    const { r, k } = run(['create a hash:ip comment', 'add a 1.1.1.1 comment "hello world"']);
    expect(r.exitCode).toBe(0);
    expect(k.members('a')).toEqual(['1.1.1.1 comment "hello world"']);
  });

  it('an open quote before the newline silently drops the last argument', () => {
    const { r } = run(['create a hash:ip comment', 'add a 1.1.1.2 comment "oops']);
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `${P}Missing mandatory argument of option \`comment'\n${TRY}` });
  });

  it('an open quote at the end of the input: Missing close quote!', () => {
    const r = new FakeKernel().restore('create a hash:ip comment\nadd a 1.1.1.2 comment "oops');
    expect(r.stderr).toBe(`${P}Missing close quote!\n${TRY}`);
  });

  const ex = (n: number): string => ' -exist'.repeat(n);
  it('30 words are fine (measured)', () => {
    expect(run([A, `add a 1.1.1.1${ex(27)}`]).r.exitCode).toBe(0);
  });
  it.each([
    ['31 words', `add a 1.1.1.1${ex(28)}`],
    ['30 words and a trailing blank', `add a 1.1.1.1${ex(27)} `],
    ['40 words', `add a 1.1.1.1${ex(37)}`],
  ])('%s: Line is too long to parse.', (_t, line) => {
    const { r, k } = run([A, line]);
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `${P}Line is too long to parse.\n${TRY}` });
    expect(k.members('a')).toEqual([]);
  });

  it('an inline # is an argument', () => {
    expect(run([A, 'add a 1.1.1.1 # trailing']).r.stderr).toBe(`${P}Unknown argument: \`#'\n${TRY}`);
  });
});

describe('docs/ipset-semantics.md §1.3 environment options', () => {
  it.each(['-exist create a hash:ip', 'create a hash:ip --exist', 'create a hash:ip -!', 'create -exist a hash:ip'])(
    '%s re-creates an existing set silently',
    (line) => {
      expect(run([A, line]).r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    },
  );

  it('a line with only -exist: No command specified.', () => {
    expect(run([A, '-exist', 'add a 1.1.1.1']).r.stderr).toBe(`${P}No command specified.\n${TRY}`);
  });

  it('-q silences later errors but keeps the exit code', () => {
    expect(run(['create a hash:ip -q', 'add nosuch 1.1.1.1']).r).toEqual({ exitCode: 1, stdout: '', stderr: '' });
    expect(run(['create a hash:ip -q', 'bogus']).r).toEqual({ exitCode: 2, stdout: '', stderr: '' });
  });
});

describe('docs/ipset-semantics.md §1.4 commands', () => {
  it.each([
    ['long forms', ['create a hash:ip', 'create b hash:ip', 'add a 1.1.1.1', 'add a 1.1.1.2', 'del a 1.1.1.2', 'add b 2.2.2.2', 'swap a b', 'rename a c', 'flush c', 'destroy c']],
    ['short forms', ['-N a hash:ip', '-N b hash:ip', '-A a 1.1.1.1', '-A a 1.1.1.2', '-D a 1.1.1.2', '-A b 2.2.2.2', '-W a b', '-E a c', '-F c', '-X c']],
    ['double-dash forms', ['--create a hash:ip', '--create b hash:ip', '--add a 1.1.1.1', '--add b 2.2.2.2', '--swap a b', '--rename a c', '--flush c', '--destroy c']],
  ])('%s', (_t, lines) => {
    const { r, k } = run(lines);
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(k.setNames()).toEqual(['b']);
    expect(k.members('b')).toEqual(['1.1.1.1']);
  });

  it('aliases new/x/e/w and prefixes c/cr/a/ad/d/ren/sw/f/des', () => {
    const lines = ['new a hash:ip', 'c b hash:ip', 'cr z hash:ip', 'a a 1.1.1.1', 'ad a 1.1.1.2', 'd a 1.1.1.2', 'ren z y', 'e y x', 'sw a b', 'w a b', 'f a', 'des x', 'x b'];
    const { r, k } = run(lines);
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(k.setNames()).toEqual(['a']);
    expect(k.members('a')).toEqual([]);
    expect(run(['cr a hash:ip', 'a a 1.1.1.1', 't a 1.1.1.1']).r.stderr).toBe('Warning: 1.1.1.1 is in set a.\n');
    expect(run(['cr a hash:ip', 's']).r.stdout).toMatch(/^create a hash:ip /);
    expect(run(['cr a hash:ip', 'l']).r.stdout).toMatch(/^Name: a\n/);
  });

  it.each(['restore', 'r', 're', '-R', 'help', '-h', 'version', '-V', 'v'])('%s is rejected in restore mode', (word) => {
    const name = word.startsWith('r') || word === '-R' ? 'restore' : word.startsWith('h') || word === '-h' ? 'help' : 'version';
    const { r, k } = run([A, 'add a 1.1.1.1', word]);
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `${P}Command \`${name}' is invalid in restore mode.\n${TRY}` });
    expect(k.members('a')).toEqual([]);
  });

  it.each(['foo', '-a', '-n', '-', '--'])('unknown word %s', (word) => {
    const line = word === '-n' ? '-n' : `${word} a 1.1.1.1`;
    const expected = word === '-n' ? `${P}No command specified.\n${TRY}` : `${P}No command specified: unknown argument ${word}\n${TRY}`;
    expect(run([A, line]).r.stderr).toBe(expected);
  });

  it.each([
    ['add', 'Missing mandatory argument to command add'],
    ['add a', 'Missing second mandatory argument to command add'],
    ['del', 'Missing mandatory argument to command del'],
    ['create a', 'Missing second mandatory argument to command create'],
    ['create', 'Missing mandatory argument to command create'],
    ['test a', 'Missing second mandatory argument to command test'],
    ['rename a', 'Missing second mandatory argument to command rename'],
    ['swap', 'Missing mandatory argument to command swap'],
    ['flush a b', 'Unknown argument b'],
    ['destroy a b', 'Unknown argument b'],
    ['rename a b c', 'Unknown argument c'],
  ])('arity: %s', (line, message) => {
    expect(run([A, line]).r).toEqual({ exitCode: 2, stdout: '', stderr: `${P}${message}\n${TRY}` });
  });

  it('flush and destroy without a name act on all sets', () => {
    const { r, k } = run([A, 'create b hash:ip', 'add a 1.1.1.1', 'add b 2.2.2.2', 'flush', 'add a 3.3.3.3', 'destroy', 'create c hash:ip']);
    expect(r.exitCode).toBe(0);
    expect(k.setNames()).toEqual(['c']);
  });
});

describe('docs/ipset-semantics.md §1.5 test, list, save, quit inside restore', () => {
  it('test of a present element ends the restore with a warning and exit 0', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', 'test a 1.1.1.1', 'add a 2.2.2.2']);
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: 'Warning: 1.1.1.1 is in set a.\n' });
    expect(k.members('a')).toEqual(['1.1.1.1']);
  });

  it('test of an absent element ends the restore with exit 1', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', '-T a 3.3.3.3', 'add a 2.2.2.2']);
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: '3.3.3.3 is NOT in set a.\n' });
    expect(k.members('a')).toEqual(['1.1.1.1']);
  });

  it('test -q: present continues silently, absent stops with exit 1', () => {
    const present = run([A, 'add a 1.1.1.1', 'test a 1.1.1.1 -q', 'add a 2.2.2.2']);
    expect(present.r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(sorted(present.k, 'a')).toEqual(['1.1.1.1', '2.2.2.2']);
    const absent = run([A, 'add a 1.1.1.1', 'test a 3.3.3.3 -q', 'add a 2.2.2.2']);
    expect(absent.r).toEqual({ exitCode: 1, stdout: '', stderr: '' });
    expect(absent.k.members('a')).toEqual(['1.1.1.1']);
  });

  it('a nomatch entry tests as NOT in set', () => {
    const { r } = run(['create a hash:net', 'add a 10.0.0.0/8', 'add a 10.1.0.0/16 nomatch', 'test a 10.1.2.3']);
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: '10.1.2.3 is NOT in set a.\n' });
    expect(run(['create a hash:net', 'add a 10.0.0.0/8', 'test a 10.200.2.3']).r.exitCode).toBe(0);
  });

  it('test of a missing set is a userspace error (pending batch lost)', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', 'add a 1.1.1.2', 'test nosuch 1.1.1.1']);
    expect(r.stderr).toBe(`${P}Error in line 4: The set with the given name does not exist\n`);
    expect(k.members('a')).toEqual([]);
  });

  it('list and save print at that point; the first one fixes the output mode for the run', () => {
    const { r } = run([A, 'add a 1.1.1.1', 'list a', 'save', 'add a 2.2.2.2']);
    expect(r.exitCode).toBe(0);
    const block = r.stdout.split('Name: a').length - 1;
    expect(block).toBe(2);
    const saveFirst = run([A, 'save', 'list']).r.stdout;
    expect(saveFirst.split('\n').filter((l) => l.startsWith('create a hash:ip'))).toHaveLength(2);
  });

  it('list -n inside restore prints names; list of a missing set is a kernel error', () => {
    expect(run([A, 'list -n']).r.stdout).toBe('a\n');
    const { r, k } = run([A, 'add a 1.1.1.1', 'list nosuch']);
    expect(r.stderr).toBe(`${P}Error in line 3: The set with the given name does not exist\n`);
    expect(k.members('a')).toEqual(['1.1.1.1']);
  });

  it('quit ends with exit 0 and discards the pending batch', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', 'quit', 'add a 2.2.2.2']);
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(k.members('a')).toEqual([]);
  });
});

describe('docs/ipset-semantics.md §2.3 what survives an error (every row)', () => {
  const rows: { name: string; setup?: string; lines: string[]; stderr: string; rc?: number; state: Record<string, string[] | null> }[] = [
    {
      name: 'syntax error loses the pending batch',
      lines: [A, 'add a 1.1.1.1', 'add a 1.1.1.2', 'add a 1.1.1.300'],
      stderr: 'Error in line 4: Syntax error: cannot parse 1.1.1.300: resolving to IPv4 address failed',
      state: { a: [] },
    },
    {
      name: 'unknown set on an add line loses the pending batch',
      lines: ['create a hash:net', 'add a 10.0.0.0/8', 'add a 11.0.0.0/8', 'add b 1.2.3.4'],
      stderr: 'Error in line 4: The set with the given name does not exist',
      state: { a: [], b: null },
    },
    {
      name: 'change of set name sends the earlier batch',
      lines: [A, 'create c hash:ip', 'add a 1.1.1.1', 'add c 3.3.3.3', 'add nosuch 1.2.3.4'],
      stderr: 'Error in line 5: The set with the given name does not exist',
      state: { a: ['1.1.1.1'], c: [] },
    },
    {
      name: 'change of command sends the earlier batch',
      lines: [A, 'add a 1.1.1.1', 'add a 1.1.1.2', 'del a 1.1.1.2', 'add a 1.1.1.3', 'add nosuch 1.2.3.4'],
      stderr: 'Error in line 6: The set with the given name does not exist',
      state: { a: ['1.1.1.1'] },
    },
    {
      name: 'COMMIT sends the batch',
      lines: [A, 'add a 1.1.1.1', 'COMMIT', 'add a 1.1.1.2', 'add a bad..ip'],
      stderr: 'Error in line 5: Syntax error: cannot parse bad..ip: resolving to IPv4 address failed',
      state: { a: ['1.1.1.1'] },
    },
    {
      name: 'create sends the batch',
      lines: [A, 'add a 1.1.1.1', 'create b hash:ip', 'add a 1.1.1.2', 'add a 1.1.1.999'],
      stderr: 'Error in line 5: Syntax error: cannot parse 1.1.1.999: resolving to IPv4 address failed',
      state: { a: ['1.1.1.1'], b: [] },
    },
    {
      name: 'kernel error mid-batch: earlier elements applied, later not',
      lines: [A, 'add a 1.1.1.1', 'add a 1.1.1.2', 'add a 1.1.1.1', 'add a 1.1.1.3', 'add a 1.1.1.4'],
      stderr: "Error in line 4: Element cannot be added to the set: it's already added",
      state: { a: ['1.1.1.1', '1.1.1.2'] },
    },
    {
      name: 'del of an absent element mid-batch',
      lines: [A, 'add a 1.1.1.1', 'add a 1.1.1.2', 'del a 1.1.1.1', 'del a 1.1.1.9', 'del a 1.1.1.2'],
      stderr: "Error in line 5: Element cannot be deleted from the set: it's not added",
      state: { a: ['1.1.1.2'] },
    },
    {
      name: 'a later userspace error masks the kernel error (duplicate never reported)',
      lines: [A, 'add a 1.1.1.1', 'add a 1.1.1.2', 'add a 1.1.1.1', 'add a 1.1.1.3', 'add nosuch 9.9.9.9'],
      stderr: 'Error in line 6: The set with the given name does not exist',
      state: { a: [] },
    },
    {
      name: 'the command that flushed a failing batch is not run',
      lines: [A, 'add a 1.1.1.1', 'add a 1.1.1.1', 'create b hash:ip'],
      stderr: "Error in line 3: Element cannot be added to the set: it's already added",
      state: { a: ['1.1.1.1'], b: null },
    },
    {
      name: 'unknown type on a create line (userspace)',
      lines: [A, 'add a 1.1.1.1', 'create b hash:foo'],
      stderr: "Error in line 3: Syntax error: typename 'hash:foo' is unknown",
      state: { a: [], b: null },
    },
    {
      name: 'create of an existing set (kernel)',
      lines: [A, 'add a 1.1.1.1', 'create a hash:ip'],
      stderr: 'Error in line 3: Set cannot be created: set with the same name already exists',
      state: { a: ['1.1.1.1'] },
    },
    {
      name: 'list:set member missing (kernel)',
      lines: ['create m1 hash:ip', 'create l list:set', 'add l m1', 'add l nosuchmember'],
      stderr: 'Error in line 4: Set to be added/deleted/tested as element does not exist.',
      state: { l: ['m1'] },
    },
    {
      name: 'flush of a missing set is a kernel error (batch kept)',
      lines: [A, 'add a 1.1.1.1', 'flush nosuch'],
      stderr: 'Error in line 3: The set with the given name does not exist',
      state: { a: ['1.1.1.1'] },
    },
    {
      name: 'rename of a missing set is a kernel error (batch kept)',
      lines: [A, 'add a 1.1.1.1', 'rename nosuch x'],
      stderr: 'Error in line 3: The set with the given name does not exist',
      state: { a: ['1.1.1.1'] },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const { r, k } = run(row.lines);
      expect(r).toEqual({ exitCode: row.rc ?? 1, stdout: '', stderr: `${P}${row.stderr}\n` });
      for (const [name, members] of Object.entries(row.state)) {
        if (members === null) expect(k.members(name)).toBeUndefined();
        else expect(sorted(k, name)).toEqual(members);
      }
    });
  }

  it('quit: rc 0, pending batch lost', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', 'quit', 'add a 1.1.1.2']);
    expect(r.exitCode).toBe(0);
    expect(k.members('a')).toEqual([]);
  });

  it('icmpv6 in an inet hash:ip,port after an add: segmentation fault (139, no stderr, batch lost)', () => {
    const { r, k } = run(['create a hash:ip,port', 'add a 10.0.0.1,80', 'add a 10.0.0.2,icmpv6:ping', 'add a 10.0.0.3,80']);
    expect(r).toEqual({ exitCode: 139, stdout: '', stderr: '', signal: 'SIGSEGV' });
    expect(k.members('a')).toEqual([]);
  });

  it('icmpv6 in an inet set when the previous command was not add: Invalid add command', () => {
    const { r, k } = run(['create a hash:ip,port', 'add a 10.0.0.1,80', 'create b hash:ip', 'add a 10.0.0.2,icmpv6:ping']);
    expect(r.stderr).toBe(`${P}Error in line 4: Invalid add command: missing setname\n`);
    expect(k.members('a')).toEqual(['10.0.0.1,tcp:80']);
  });

  it('icmp family mismatch on del/test: the mandatory-flags message without line number', () => {
    const msg = `${P}There are missing mandatory flags but can't check them. It's a bug, please report the problem.\n`;
    expect(run(['create a hash:ip,port', 'del a 10.0.0.2,icmpv6:ping']).r).toEqual({ exitCode: 1, stdout: '', stderr: msg });
    expect(run(['create a hash:ip,port family inet6', 'test a ::1,icmp:ping']).r.stderr).toBe(msg);
  });

  describe('icmp type of the other family on add, by what is pending (fixes the differential defect: pending DEL batch lost)', () => {
    const SETS = ['create m hash:ip', 'create p hash:ip,port', 'create p6 hash:ip,port family inet6', 'add m 10.0.0.1', 'add p 10.0.0.5,80', 'add p6 ::5,80', 'create z hash:ip'];
    const NOT_ADDED = "Element cannot be deleted from the set: it's not added";
    const rows: { name: string; lines: string[]; stderr: string; exitCode?: number; m: string[]; p?: string[]; p6?: string[] }[] = [
      { name: 'nothing pending', lines: ['add p 10.0.0.1,icmpv6:ping'], stderr: 'Error in line 8: Invalid add command: missing setname', m: ['10.0.0.1'] },
      { name: 'pending del batch on another set that fails: its kernel error wins', lines: ['del m 10.0.0.9', 'add p 10.0.0.1,icmpv6:ping'], stderr: `Error in line 8: ${NOT_ADDED}`, m: ['10.0.0.1'] },
      { name: 'pending del batch on another set that succeeds: applied, then the add fails', lines: ['del m 10.0.0.1', 'add p 10.0.0.1,icmpv6:ping'], stderr: 'Error in line 9: Invalid add command: missing setname', m: [] },
      { name: 'pending del batch on the same set that fails', lines: ['del p 10.0.0.9,80', 'add p 10.0.0.1,icmpv6:ping'], stderr: `Error in line 8: ${NOT_ADDED}`, m: ['10.0.0.1'] },
      { name: 'pending del batch on the same set that succeeds', lines: ['del p 10.0.0.5,80', 'add p 10.0.0.1,icmpv6:ping'], stderr: 'Error in line 9: Invalid add command: missing setname', m: ['10.0.0.1'], p: [] },
      { name: 'icmp in inet6, pending del batch on the same set', lines: ['del p6 ::5,80', 'add p6 ::1,icmp:ping'], stderr: 'Error in line 9: Invalid add command: missing setname', m: ['10.0.0.1'], p6: [] },
      { name: 'icmp in inet6, pending del batch that fails', lines: ['del p6 ::9,80', 'add p6 ::1,icmp:ping'], stderr: `Error in line 8: ${NOT_ADDED}`, m: ['10.0.0.1'] },
      { name: 'icmp in inet6, pending del batch on another set', lines: ['del m 10.0.0.1', 'add p6 ::1,icmp:ping'], stderr: 'Error in line 9: Invalid add command: missing setname', m: [] },
      { name: 'an add batch cut by a del: only the del batch is pending', lines: ['add m 10.0.0.2', 'del m 10.0.0.1', 'add p 10.0.0.1,icmpv6:ping'], stderr: 'Error in line 10: Invalid add command: missing setname', m: ['10.0.0.2'] },
      { name: 'del batch already sent by COMMIT', lines: ['del m 10.0.0.1', 'COMMIT', 'add p 10.0.0.1,icmpv6:ping'], stderr: 'Error in line 10: Invalid add command: missing setname', m: [] },
      { name: 'a later option error on the line wins (the family error is swallowed)', lines: ['del m 10.0.0.9', 'add p 10.0.0.1,icmpv6:ping timeout abc'], stderr: "Error in line 9: Syntax error: 'abc' is invalid as number", m: ['10.0.0.1'] },
      { name: 'a later decimal skbmark wins too', lines: ['add p 10.0.0.1,icmpv6:ping skbmark 1'], stderr: 'Error in line 8: Syntax error: Invalid skbmark format, it should be:  MARK/MASK or MARK (see manpage)', m: ['10.0.0.1'] },
    ];
    for (const row of rows) {
      it(row.name, () => {
        const { r, k } = run([...SETS, ...row.lines]);
        expect(r).toEqual({ exitCode: row.exitCode ?? 1, stdout: '', stderr: `${P}${row.stderr}\n` });
        expect(sorted(k, 'm')).toEqual(row.m);
        expect(sorted(k, 'p')).toEqual(row.p ?? ['10.0.0.5,tcp:80']);
        expect(sorted(k, 'p6')).toEqual(row.p6 ?? ['::5,tcp:80']);
      });
    }

    it.each([
      ['add m 10.0.0.2', 'add p 10.0.0.1,icmpv6:ping'],
      ['add m 10.0.0.2', 'add p6 ::1,icmp:ping'],
      ['add p 10.0.0.2,80', 'add p 10.0.0.1,icmpv6:ping'],
      // The previous *command* decides, not the batch: after COMMIT it still segfaults.
      ['add m 10.0.0.2\nCOMMIT', 'add p 10.0.0.1,icmpv6:ping'],
    ])('previous command an add (%s): segmentation fault, the pending batch lost', (before, line) => {
      const { r, k } = run([...SETS, ...before.split('\n'), line]);
      expect(r).toEqual({ exitCode: 139, stdout: '', stderr: '', signal: 'SIGSEGV' });
      expect(sorted(k, 'm')).toEqual(before.includes('COMMIT') ? ['10.0.0.1', '10.0.0.2'] : ['10.0.0.1']);
      expect(sorted(k, 'p')).toEqual(['10.0.0.5,tcp:80']);
    });

    it('a parameter error later on the line wins over the segfault', () => {
      const { r } = run([...SETS, 'add m 10.0.0.2', 'add p 10.0.0.1,icmpv6:ping bogus']);
      expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `${P}Unknown argument: \`bogus'\n${TRY}` });
    });

    it('del/test with a pending del batch: the mandatory-flags message, the batch lost', () => {
      const msg = `${P}There are missing mandatory flags but can't check them. It's a bug, please report the problem.\n`;
      for (const line of ['del p 10.0.0.1,icmpv6:ping', 'test p 10.0.0.1,icmpv6:ping']) {
        const { r, k } = run([...SETS, 'del m 10.0.0.1', line]);
        expect(r).toEqual({ exitCode: 1, stdout: '', stderr: msg });
        expect(sorted(k, 'm')).toEqual(['10.0.0.1']);
      }
    });

    it('outside restore mode the swallowed syntax error is printed too', () => {
      const k = kernelWith('create p hash:ip,port\ncreate p6 hash:ip,port family inet6\n');
      expect(k.exec(['add', 'p', '10.0.0.1,icmpv6:ping'])).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: `${P}Syntax error: Protocol ICMPv6 can be used with family inet6 only\nInvalid add command: missing setname\n`,
      });
      expect(k.exec(['add', 'p6', '::1,icmp:ping']).stderr).toBe(
        `${P}Syntax error: Protocol ICMP can be used with family inet only\nInvalid add command: missing setname\n`,
      );
      expect(k.exec(['add', 'p', '10.0.0.1,icmpv6:ping', 'timeout', 'abc']).stderr).toBe(
        `${P}Syntax error: Protocol ICMPv6 can be used with family inet6 only\nSyntax error: 'abc' is invalid as number\n`,
      );
      expect(k.exec(['-q', 'add', 'p', '10.0.0.1,icmpv6:ping'])).toEqual({ exitCode: 1, stdout: '', stderr: '' });
      expect(k.exec(['del', 'p', '10.0.0.1,icmpv6:ping']).stderr).toBe(
        `${P}There are missing mandatory flags but can't check them. It's a bug, please report the problem.\n`,
      );
    });
  });
});

describe('docs/ipset-semantics.md §2.3 long runs and docs/ipset-semantics.md §2.4 batch capacity', () => {
  it.each([
    [10, 0],
    [100, 0],
    [160, 0],
    [170, 167],
    [300, 167],
    [400, 334],
    [1000, 835],
    [10000, 9853],
  ])('%i adds then an unknown set: %i survive', (n, survive) => {
    const { r, k } = run([A, ...adds(n), 'add nosuch 1.2.3.4']);
    expect(r.stderr).toBe(`${P}Error in line ${n + 2}: The set with the given name does not exist\n`);
    expect(k.members('a')).toHaveLength(survive);
  });

  it('10000 adds then a syntax error: 9853 survive', () => {
    const { r, k } = run([A, ...adds(10000), 'add a 999.1.1.1']);
    expect(r.stderr).toBe(`${P}Error in line 10002: Syntax error: cannot parse 999.1.1.1: resolving to IPv4 address failed\n`);
    expect(k.members('a')).toHaveLength(9853);
  });

  it.each([10, 100, 10000])('%i adds then a duplicate of the first: all survive (kernel error)', (n) => {
    const { r, k } = run([A, ...adds(n), 'add a 10.0.0.1']);
    expect(r.stderr).toBe(`${P}Error in line ${n + 2}: Element cannot be added to the set: it's already added\n`);
    expect(k.members('a')).toHaveLength(n);
  });

  it('300 adds where line 12 duplicates line 2: 10 applied', () => {
    const lines = adds(300);
    lines[10] = lines[0] as string;
    const { r, k } = run([A, ...lines]);
    expect(r.stderr).toBe(`${P}Error in line 12: Element cannot be added to the set: it's already added\n`);
    expect(k.members('a')).toHaveLength(10);
  });

  it('inet6: 100 + nosuch ⟶ 0; 1000 + nosuch ⟶ 999', () => {
    const v6 = (n: number): string[] => Array.from({ length: n }, (_, i) => `add a 2001:db8::${(i + 1).toString(16)}`);
    expect(run(['create a hash:ip family inet6', ...v6(100), 'add nosuch ::1']).k.members('a')).toHaveLength(0);
    expect(run(['create a hash:ip family inet6', ...v6(1000), 'add nosuch ::1']).k.members('a')).toHaveLength(999);
  });

  /** Lines per batch: N+1 lines then a userspace error apply exactly one batch. */
  function perBatch(create: string, line: (i: number) => string, setName = 'a', extraSetup: string[] = []): number {
    for (let n = 60; n < 200; n++) {
      const lines = [create, ...extraSetup, ...Array.from({ length: n + 1 }, (_, i) => line(i + 1)), `add ${setName} bad..ip`];
      const { k } = run(lines);
      const applied = k.members(setName)?.length ?? 0;
      if (applied > 0) return applied;
    }
    return -1;
  }
  const ip = (i: number): string => `10.0.${i >> 8}.${i & 255}`;
  const long = 'abcdefghijabcdefghijabcdefghija';
  it.each([
    ['hash:ip inet, name a', 'create a hash:ip', (i: number) => `add a ${ip(i)}`, 'a', 167],
    ['hash:ip inet, 3-char name', 'create abc hash:ip', (i: number) => `add abc ${ip(i)}`, 'abc', 167],
    ['hash:ip inet, 4-char name', 'create abcd hash:ip', (i: number) => `add abcd ${ip(i)}`, 'abcd', 167],
    ['hash:ip inet, 31-char name', `create ${long} hash:ip`, (i: number) => `add ${long} ${ip(i)}`, long, 166],
    ['hash:ip inet6', 'create a hash:ip family inet6', (i: number) => `add a 2001:db8::${i.toString(16)}`, 'a', 111],
    ['hash:net x/24', 'create a hash:net', (i: number) => `add a 10.${i >> 8}.${i & 255}.0/24`, 'a', 125],
    ['hash:net host', 'create a hash:net', (i: number) => `add a ${ip(i)}`, 'a', 167],
    ['hash:net /24 nomatch', 'create a hash:net', (i: number) => `add a 10.${i >> 8}.${i & 255}.0/24 nomatch`, 'a', 100],
    ['hash:ip,port inet', 'create a hash:ip,port', (i: number) => `add a ${ip(i)},tcp:80`, 'a', 100],
    ['hash:ip,port inet6', 'create a hash:ip,port family inet6', (i: number) => `add a 2001:db8::${i.toString(16)},udp:53`, 'a', 77],
    ['hash:ip timeout 100', 'create a hash:ip timeout 300', (i: number) => `add a ${ip(i)} timeout 100`, 'a', 125],
    ['hash:ip comment "x"', 'create a hash:ip comment', (i: number) => `add a ${ip(i)} comment "x"`, 'a', 118],
    ['hash:ip x/32 explicit', 'create a hash:ip', (i: number) => `add a ${ip(i)}/32`, 'a', 125],
    ['hash:ip x-x explicit', 'create a hash:ip', (i: number) => `add a ${ip(i)}-${ip(i)}`, 'a', 111],
  ])('%s: %s', (_t, create, line, name, expected) => {
    expect(perBatch(create, line as (i: number) => string, name as string)).toBe(expected);
  });

  it('del lines: 167 per batch', () => {
    const { k } = run([A, ...adds(300), 'COMMIT', ...adds(168).map((l) => l.replace('add', 'del')), 'del a bad..ip']);
    expect(k.members('a')).toHaveLength(300 - 167);
  });

  it('list:set members m1000…: 167 per batch (NAME reserves 32 bytes)', () => {
    const creates = Array.from({ length: 168 }, (_, i) => `create m${1000 + i} hash:ip`);
    const { k } = run(['create l list:set', ...creates, ...creates.map((_, i) => `add l m${1000 + i}`), 'add l bad/name/that/is/way/too/long/for/a/set']);
    expect(k.members('l')).toHaveLength(167);
  });

  it('ipset -exist restore does not change the capacity', () => {
    const { k } = run([A, ...adds(168), 'add a bad..ip'], { exist: true });
    expect(k.members('a')).toHaveLength(167);
  });
});

describe('docs/ipset-semantics.md §2.6 -exist', () => {
  it('-exist on a line inside a started batch does not cover that batch', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', 'add a 2.2.2.2', 'add a 1.1.1.1 -exist', 'add a 3.3.3.3']);
    expect(r.stderr).toBe(`${P}Error in line 4: Element cannot be added to the set: it's already added\n`);
    expect(sorted(k, 'a')).toEqual(['1.1.1.1', '2.2.2.2']);
  });

  it('-exist on the first line of a batch covers it and every later line', () => {
    const { r, k } = run([A, 'add a 1.1.1.1', 'create b hash:ip', 'add a 1.1.1.1 -exist', 'add a 1.1.1.1', 'del a 7.7.7.7', 'create a hash:ip']);
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(k.members('a')).toEqual(['1.1.1.1']);
  });

  it('-exist on a create line persists; ipset -exist restore covers everything', () => {
    expect(run(['create a hash:ip -exist', 'add a 1.1.1.1', 'add a 1.1.1.1', 'del a 9.9.9.9']).r.exitCode).toBe(0);
    expect(run([A, 'add a 1.1.1.1', 'add a 1.1.1.1', A, 'del a 9.9.9.9'], { exist: true }).r.exitCode).toBe(0);
  });

  it('create -exist: hashsize and family not compared; type, maxelem, timeout, list size are', () => {
    const ok = ['create a hash:ip hashsize 2048 -exist', 'create a hash:ip hashsize 1000 -exist', 'create a hash:ip family inet6 -exist'];
    for (const line of ok) expect(run([A, line]).r.exitCode).toBe(0);
    const exists = `${P}Error in line 2: Set cannot be created: set with the same name already exists\n`;
    for (const line of ['create a hash:net -exist', 'create a hash:ip maxelem 100 -exist', 'create a hash:ip timeout 0 -exist']) {
      expect(run([A, line]).r.stderr).toBe(exists);
    }
    expect(run(['create l list:set', 'create l list:set size 16 -exist']).r.stderr).toBe(exists);
  });

  it('destroy of a missing set with -exist is silent', () => {
    expect(run(['destroy nosuch -exist']).r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(run(['destroy nosuch']).r.stderr).toBe(`${P}Error in line 1: The set with the given name does not exist\n`);
  });

  it('stale-cache quirk: create -exist with another family over a set not created in this run', () => {
    const k = kernelWith('create a hash:ip\n');
    expect(k.restore('create a hash:ip family inet6 -exist\nadd a 1.2.3.4\n').stderr).toBe(
      `${P}Error in line 2: Syntax error: cannot parse 1.2.3.4: resolving to IPv6 address failed\n`,
    );
    expect(k.restore('create a hash:ip family inet6 -exist\nadd a ::1\n').stderr).toBe(
      `${P}Error in line 2: Kernel error received: ipset protocol error\n`,
    );
    // Created in the same run: the first cache entry wins, no quirk.
    expect(run([A, 'create a hash:ip family inet6 -exist', 'add a 1.2.3.4']).r.exitCode).toBe(0);
  });

  it('with -exist a re-add flips nomatch both ways', () => {
    const { k } = run(['create a hash:net', 'add a 10.1.0.0/16 nomatch', 'add a 10.1.0.0/16', 'add a 10.2.0.0/16', 'add a 10.2.0.0/16 nomatch'], {
      exist: true,
    });
    expect(sorted(k, 'a')).toEqual(['10.1.0.0/16', '10.2.0.0/16 nomatch']);
  });
});
