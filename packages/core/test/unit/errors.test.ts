import { describe, expect, expectTypeOf, it } from 'vitest';
import { IpsetsError, QUOTE_LIMIT, isIpsetsError, quote } from '../../src/errors.js';
import { canonicalMember } from '../../src/model/members.js';
import { validateSetName } from '../../src/model/set-names.js';

describe('quote', () => {
  it('quotes short values whole, with control characters visible', () => {
    expect(quote('a\nb')).toBe('"a\\nb"');
    expect(quote(42)).toBe('"42"');
    expect(quote('x'.repeat(QUOTE_LIMIT))).toBe(JSON.stringify('x'.repeat(QUOTE_LIMIT)));
  });

  it('a 50 MB value is cut to a readable length and its full length is stated (messages used to echo it whole)', () => {
    const huge = 'a'.repeat(50 * 1024 * 1024);
    const text = quote(huge);
    expect(text).toBe(`"${'a'.repeat(QUOTE_LIMIT)}…" (52428800 characters)`);
    expect(text.length).toBeLessThan(QUOTE_LIMIT + 40);
  });

  it('never cuts a surrogate pair in half', () => {
    const value = 'a'.repeat(QUOTE_LIMIT - 1) + '😀' + 'b'.repeat(10);
    expect(quote(value)).toBe(`"${'a'.repeat(QUOTE_LIMIT - 1)}…" (${value.length} characters)`);
  });

  it('errors about hostile members and names stay short', () => {
    const member = '1'.repeat(10_000_000);
    expect(() => canonicalMember('hash:net', member)).toThrow(/\(10000000 characters\)/);
    try {
      validateSetName('n'.repeat(1_000_000));
    } catch (e) {
      expect((e as Error).message.length).toBeLessThan(1000);
    }
    try {
      canonicalMember('hash:net', `10.0.0.0/${'0'.repeat(1_000_000)}24`);
    } catch (e) {
      expect((e as Error).message.length).toBeLessThan(1000);
    }
  });
});

describe('IpsetsError details are typed by code', () => {
  it('isIpsetsError narrows the code and the details to that code', () => {
    const error: unknown = new IpsetsError('KERNEL_READ_FAILED', 'ipset save exited with 1', { details: { command: 'save', exitCode: 1 } });
    if (!isIpsetsError(error, 'KERNEL_READ_FAILED')) throw new Error('expected a KERNEL_READ_FAILED error');
    expectTypeOf(error.code).toEqualTypeOf<'KERNEL_READ_FAILED'>();
    expectTypeOf(error.details.exitCode).toEqualTypeOf<number | null | undefined>();
    expect(error.details.command).toBe('save');
    // A field of the wrong type does not compile.
    // @ts-expect-error exitCode is a number
    void new IpsetsError('KERNEL_READ_FAILED', 'x', { details: { exitCode: '1' } });
  });

  it('an error of any code keeps its details readable by name', () => {
    const error: unknown = new IpsetsError('LOCK_HELD', 'held', { details: { holder: { pid: 7 }, path: '/run/x' } });
    if (!isIpsetsError(error)) throw new Error('expected an IpsetsError');
    expectTypeOf(error.details['holder']).toEqualTypeOf<unknown>();
    expect(error.details['path']).toBe('/run/x');
  });
});
