import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../../../src/program/options.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1500ms', 1500],
    ['2h', 7_200_000],
    ['0.5', 500],
    ['1m30s', 90_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '5 minutes', '-1s', '1ms'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidArgumentError);
  });
});
