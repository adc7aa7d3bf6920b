import { describe, expect, it } from 'vitest';
import { cutText, formatBytes, formatCount, formatDuration, quoteCut } from '../../src/format.js';

describe('values in messages', () => {
  it('format durations, counts and bytes', () => {
    expect(formatDuration(1.25)).toBe('1.3 ms');
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(2410)).toBe('2.41 s');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(12)).toBe('12');
    expect(formatBytes(812)).toBe('812 B');
    expect(formatBytes(46387)).toBe('45.3 KiB');
  });

  it('quote a long value cut, with its full length, and cut long text saying so', () => {
    expect(quoteCut('short')).toBe('"short"');
    expect(quoteCut('a'.repeat(100), 4)).toBe('"aaaa"… (100 characters)');
    expect(cutText('abc', 5)).toBe('abc');
    expect(cutText('a'.repeat(2000), 3)).toBe('aaa… (cut, 2,000 characters in all)');
  });
});
