import { describe, expect, it } from 'vitest';
import { colorEnabled, createStyle } from '../../src/style.js';

describe('colorEnabled', () => {
  it('colours a terminal, not a pipe', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({}, {})).toBe(false);
  });

  it('NO_COLOR turns it off even on a terminal, FORCE_COLOR on for a pipe', () => {
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: 'x', FORCE_COLOR: '1' })).toBe(false);
  });
});

describe('createStyle', () => {
  it('wraps text in ANSI codes only when enabled', () => {
    expect(createStyle(true).green('+1')).toBe('\u001b[32m+1\u001b[39m');
    expect(createStyle(false).green('+1')).toBe('+1');
    expect(createStyle(false).bold('x')).toBe('x');
  });
});
