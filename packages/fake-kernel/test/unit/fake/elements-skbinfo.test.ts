/**
 * skbinfo element options as ipset 7.17 parses and the kernel stores them: skbmark is
 * `sscanf("0x%lx/0x%lx")` (decimal is a userspace syntax error), skbprio `sscanf("%x:%x")`,
 * zero values are not reported, and an `-exist` re-add replaces all three. Every row
 * was measured on ipset 7.17 in a network namespace (the differential test found the
 * decimal-skbmark defect; these rows pin the fix).
 */
import { describe, expect, it } from 'vitest';
import { kernelWith, P, run } from '../../helpers/fake.js';

const SKB = 'create d hash:ip skbinfo';
const BAD_MARK = 'Syntax error: Invalid skbmark format, it should be:  MARK/MASK or MARK (see manpage)';
const BAD_PRIO = 'Syntax error: Invalid skbprio format, it should be:MAJOR:MINOR (see manpage)';

/** The element line `add d 10.0.0.1 <opt>` stores as (the save line's tail). */
function stored(opt: string): string[] | undefined {
  const { r, k } = run([SKB, `add d 10.0.0.1 ${opt}`]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  return k.members('d');
}

describe('skbmark (fixes the differential defect: decimal skbmark accepted)', () => {
  it.each([
    ['1'],
    ['0X1'],
    ['010'],
    ['abc'],
    ['0x'],
    ['0xg'],
    ['0x-'],
    ['0x+'],
    ['0x--1'],
  ])('skbmark %s: userspace syntax error, rc 1, nothing added', (mark) => {
    const { r, k } = run([SKB, 'add d 10.0.0.2', `add d 10.0.0.1 skbmark ${mark}`]);
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: `${P}Error in line 3: ${BAD_MARK}\n` });
    // A userspace error: the pending batch (10.0.0.2) is lost with the line.
    expect(k.members('d')).toEqual([]);
  });

  it.each([
    ['0x1', '10.0.0.1 skbmark 0x1'],
    ['0x1/0xff', '10.0.0.1 skbmark 0x1/0xff'],
    ['0xABCDEF12/0xFF00', '10.0.0.1 skbmark 0xabcdef12/0xff00'],
    ['0xff/0x0', '10.0.0.1 skbmark 0xff/0x0'],
    ['0x1/0xffffffff', '10.0.0.1 skbmark 0x1'],
    ['0x00000001', '10.0.0.1 skbmark 0x1'],
    // The mask needs its own literal `0x`, else the default mask stays.
    ['0x1/255', '10.0.0.1 skbmark 0x1'],
    ['0x1/0XFF', '10.0.0.1 skbmark 0x1'],
    ['0x1/0x', '10.0.0.1 skbmark 0x1'],
    ['0x1/', '10.0.0.1 skbmark 0x1'],
    ['0x1/0X5', '10.0.0.1 skbmark 0x1'],
    // %lx takes its own 0x/0X prefix, a sign, and ignores what follows.
    ['0x0x5', '10.0.0.1 skbmark 0x5'],
    ['0x0X5', '10.0.0.1 skbmark 0x5'],
    ['0x1/0x0XfF', '10.0.0.1 skbmark 0x1/0xff'],
    ['0x1zz', '10.0.0.1 skbmark 0x1'],
    ['0x1/0xffzz', '10.0.0.1 skbmark 0x1/0xff'],
    ['0x1/0xff/0x3', '10.0.0.1 skbmark 0x1/0xff'],
    ['0x+2', '10.0.0.1 skbmark 0x2'],
    ['0x-1', '10.0.0.1 skbmark 0xffffffff'],
    ['0x-0x5', '10.0.0.1 skbmark 0xfffffffb'],
    ['0x1/0x-1', '10.0.0.1 skbmark 0x1'],
    // glibc reads a bare `0x` as 0.
    ['0x0x', '10.0.0.1 skbmark 0x0'],
    ['0x0xg', '10.0.0.1 skbmark 0x0'],
    ['0x0x/0x5', '10.0.0.1 skbmark 0x0/0x5'],
    ['0x1/0x0x', '10.0.0.1 skbmark 0x1/0x0'],
    // Only the low 32 bits of each half reach the kernel; overflow saturates.
    ['0x100000000', '10.0.0.1 skbmark 0x0'],
    ['0x1/0x100000000', '10.0.0.1 skbmark 0x1/0x0'],
    ['0xffffffffffffffffff', '10.0.0.1 skbmark 0xffffffff'],
    ['0x1/0xfffffffffffffffffff', '10.0.0.1 skbmark 0x1'],
    ['0x0/0xffffffff', '10.0.0.1 skbmark 0x0'],
    // mark 0 with mask 0 is all zero: the kernel does not report it.
    ['0x0/0x0', '10.0.0.1'],
  ])('skbmark %s is stored as %s', (mark, member) => {
    expect(stored(`skbmark ${mark}`)).toEqual([member]);
  });

  it('a decimal skbmark on a set without skbinfo is the userspace syntax error, not the kernel one (batch lost)', () => {
    const { r, k } = run(['create d hash:ip', 'add d 10.0.0.2', 'add d 10.0.0.1 skbmark 1']);
    expect(r.stderr).toBe(`${P}Error in line 3: ${BAD_MARK}\n`);
    expect(k.members('d')).toEqual([]);
  });

  it('a valid skbmark on a set without skbinfo is a kernel error (the batch before it is applied)', () => {
    const { r, k } = run(['create d hash:ip', 'add d 10.0.0.2', 'add d 10.0.0.1 skbmark 0x1']);
    expect(r.stderr).toBe(`${P}Error in line 3: Skbinfo mapping cannot be used: set was created without skbinfo support\n`);
    expect(k.members('d')).toEqual(['10.0.0.2']);
  });

  it('outside restore mode: the same syntax error without a line number', () => {
    const k = kernelWith(SKB);
    expect(k.exec(['add', 'd', '10.0.0.1', 'skbmark', '1'])).toEqual({ exitCode: 1, stdout: '', stderr: `${P}${BAD_MARK}\n` });
  });
});

describe('skbprio and skbqueue', () => {
  it.each([['1'], ['ff:'], [':1'], ['-:1'], ['x']])('skbprio %s: userspace syntax error', (prio) => {
    const { r } = run([SKB, `add d 10.0.0.1 skbprio ${prio}`]);
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: `${P}Error in line 2: ${BAD_PRIO}\n` });
  });

  it.each([
    ['1:2', '10.0.0.1 skbprio 1:2'],
    ['0x1:0x2', '10.0.0.1 skbprio 1:2'],
    ['ffff:ffff', '10.0.0.1 skbprio ffff:ffff'],
    ['FFFF:0', '10.0.0.1 skbprio ffff:0'],
    ['10000:1', '10.0.0.1 skbprio 0:1'],
    ['1:10000', '10.0.0.1 skbprio 1:0'],
    ['-1:1', '10.0.0.1 skbprio ffff:1'],
    ['1:-1', '10.0.0.1 skbprio 1:ffff'],
    ['1:2zz', '10.0.0.1 skbprio 1:2'],
    ['1:2:3', '10.0.0.1 skbprio 1:2'],
    ['a:b/c', '10.0.0.1 skbprio a:b'],
    ['0:0', '10.0.0.1'],
  ])('skbprio %s is stored as %s', (prio, member) => {
    expect(stored(`skbprio ${prio}`)).toEqual([member]);
  });

  it.each([
    ['1', '10.0.0.1 skbqueue 1'],
    ['0x10', '10.0.0.1 skbqueue 16'],
    ['010', '10.0.0.1 skbqueue 8'],
    ['65535', '10.0.0.1 skbqueue 65535'],
    ['0', '10.0.0.1'],
  ])('skbqueue %s is stored as %s', (queue, member) => {
    expect(stored(`skbqueue ${queue}`)).toEqual([member]);
  });

  it.each([
    ['65536', "Syntax error: '65536' is out of range 0-65535"],
    ['-1', "Syntax error: '-1' is out of range 0-65535"],
    ['abc', "Syntax error: 'abc' is invalid as number"],
  ])('skbqueue %s: %s', (queue, message) => {
    expect(run([SKB, `add d 10.0.0.1 skbqueue ${queue}`]).r.stderr).toBe(`${P}Error in line 2: ${message}\n`);
  });
});

describe('an -exist re-add replaces the skbinfo (ip_set_init_skbinfo copies zeros too)', () => {
  it('hash: the values absent on the re-add are cleared', () => {
    const { r, k } = run([SKB, 'add d 10.0.0.1 skbmark 0x5 skbprio 1:2 skbqueue 3', 'add d 10.0.0.2 skbmark 0x5', 'create z hash:ip', 'add d 10.0.0.1 skbqueue 4', 'add d 10.0.0.2'], { exist: true });
    expect(r.exitCode).toBe(0);
    expect([...(k.members('d') ?? [])].sort()).toEqual(['10.0.0.1 skbqueue 4', '10.0.0.2']);
  });

  it('list:set: skbinfo cleared, counters kept', () => {
    const { r, k } = run([
      'create l list:set skbinfo comment counters',
      'create d hash:ip',
      'add l d skbmark 0x5 skbprio 1:2 comment y packets 4 bytes 3',
      'create z hash:ip',
      'add l d -exist',
    ]);
    expect(r.exitCode).toBe(0);
    expect(k.members('l')).toEqual(['d packets 4 bytes 3']);
  });
});
