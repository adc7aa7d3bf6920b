/**
 * The differences the widened differential test found against ipset 7.17, pinned with
 * their exact texts (docs/ipset-semantics.md §1.2, §1.5, §2.6, §10): quotes at the end
 * of an fgets chunk, a multibyte character cut by the 1,023-byte chunk end, inet6
 * hash:net ranges after a CIDR, `test` with `/0`, and `swap` with the set cache.
 */
import { describe, expect, it } from 'vitest';
import { kernelWith, P, run, TRY } from '../../helpers/fake.js';

const C = 'create c hash:ip comment';

describe('a quote as the last byte of an fgets chunk', () => {
  it('a closing one keeps its word: on a last line without newline, and on a 1,023-byte line', () => {
    const k = kernelWith();
    expect(k.restore(`${C}\nadd c 10.0.0.1 comment "a b"`).exitCode).toBe(0);
    expect(k.saveText()).toContain('add c 10.0.0.1 comment "a b"\n');
    const tail = ` comment "${'z'.repeat(200)}"`;
    const line = `add c 10.0.0.5${' '.repeat(1023 - 14 - tail.length)}${tail}`;
    const { r, k: k2 } = run([C, line]);
    expect(r.exitCode).toBe(0);
    expect(k2.saveText()).toContain(`add c 10.0.0.5 comment "${'z'.repeat(200)}"\n`);
    // The newline of the 1,023-byte line is a chunk (a line) of its own.
    expect(run([C, line, 'add nosuch 10.0.0.1']).r.stderr).toBe(`${P}Error in line 4: The set with the given name does not exist\n`);
  });

  it('an opening one is never closed; one left open by a newline drops its word', () => {
    const k = kernelWith();
    expect(k.restore(`${C}\nadd c 10.0.0.1 comment abc"`)).toEqual({ exitCode: 2, stdout: '', stderr: `${P}Missing close quote!\n${TRY}` });
    expect(run([C, 'add c 10.0.0.1 comment abc"']).r.stderr).toBe(`${P}Missing mandatory argument of option \`comment'\n${TRY}`);
    expect(k.restore(`${C} -exist\nadd c 10.0.0.1 comment "a" "b"`).stderr).toBe(`${P}Unknown argument: \`b'\n${TRY}`);
  });
});

describe('a multibyte character cut by the 1,023-byte chunk end', () => {
  it('each chunk keeps its bytes of it; messages show them as U+FFFD (one for the cut lead, one per lone continuation byte)', () => {
    // A whole-line comment of 1,022 bytes, then the character: the second chunk starts inside it.
    const head = `#${'x'.repeat(1021)}`;
    expect(run([C, `${head}é`]).r.stderr).toBe(`${P}No command specified: unknown argument \ufffd\n${TRY}`);
    // The first chunk's part of it is an argument of its own line.
    expect(run([C, `add c 10.0.0.5${' '.repeat(1022 - 14)}é`]).r.stderr).toBe(`${P}Unknown argument: \`\ufffd'\n${TRY}`);
    // A 3-byte character cut after its first byte leaves two continuation bytes.
    expect(run([C, `${head}€x`]).r.stderr).toBe(`${P}No command specified: unknown argument \ufffd\ufffdx\n${TRY}`);
    // Cut after two bytes: one for the lead part, one for the last byte.
    expect(run([C, `${head.slice(0, -1)}€x`]).r.stderr).toBe(`${P}No command specified: unknown argument \ufffdx\n${TRY}`);
  });
});

describe('inet6 hash:net ranges and test /0', () => {
  it('a `-` after the `/` is a range; a `-` at the end is a bad CIDR', () => {
    const N6 = 'create n6 hash:net family inet6';
    expect(run([N6, 'add n6 2001:db8::/127-2001:db8::5']).r.stderr).toBe(
      `${P}Error in line 2: Syntax error: IP address or IP/cidr must be specified: 2001:db8::/127-2001:db8::5\n`,
    );
    expect(run([N6, 'test n6 2001:db8::/-64']).r.stderr).toBe(`${P}Error in line 2: Syntax error: IP address or IP/cidr must be specified: 2001:db8::/-64\n`);
    expect(run([N6, 'add n6 2001:db8::/64-']).r.stderr).toBe(`${P}Error in line 2: Syntax error: '64-' is invalid as number\n`);
  });

  it('test of a hash:net set with an explicit /0 is NOT in set, even when a CIDR holds the address', () => {
    expect(run(['create n hash:net', 'add n 10.0.0.0/24', 'test n 10.0.0.1/0']).r).toEqual({ exitCode: 1, stdout: '', stderr: '10.0.0.1/0 is NOT in set n.\n' });
    expect(run(['create n6 hash:net family inet6', 'add n6 2001:db8::/64', '-T n6 2001:db8::1/00']).r.stderr).toBe('2001:db8::1/0 is NOT in set n6.\n');
  });
});

describe('swap and the userspace set cache', () => {
  const setup = 'create a hash:ip\ncreate b hash:ip\n';
  it('a swap with a name that is not cached leaves the cache as it was, a stale family included', () => {
    expect(run(['create a hash:ip family inet6 -exist', 'swap a b', 'add a 10.0.0.1'], { setup }).r.stderr).toBe(
      `${P}Error in line 3: Syntax error: cannot parse 10.0.0.1: resolving to IPv6 address failed\n`,
    );
    expect(run(['create a hash:ip family inet6 -exist', 'swap a b', 'add b 10.0.0.1'], { setup }).r.exitCode).toBe(0);
  });

  it('a swap of two cached names exchanges their entries', () => {
    expect(run(['create a hash:ip family inet6 -exist', 'create b hash:ip -exist', 'swap a b', 'add a 10.0.0.1', 'add b 10.0.0.1'], { setup }).r.stderr).toBe(
      `${P}Error in line 5: Syntax error: cannot parse 10.0.0.1: resolving to IPv6 address failed\n`,
    );
  });
});
