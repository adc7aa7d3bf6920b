import { describe, expect, it } from 'vitest';
import { QUOTE_LIMIT, quote } from '../../src/errors.js';
import { canonicalMember, validateSetName } from '../../src/members.js';

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
