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

  it(`writes the same bytes on every supported Node (here ${process.version}), nested styles included, whatever the environment says`, () => {
    // util.styleText's own checks (a terminal, NO_COLOR, FORCE_COLOR) differ between 22.x
    // releases; the style colours exactly when colorEnabled said so.
    const saved = { NO_COLOR: process.env['NO_COLOR'], FORCE_COLOR: process.env['FORCE_COLOR'] };
    process.env['NO_COLOR'] = '1';
    process.env['FORCE_COLOR'] = '0';
    try {
      const s = createStyle(true);
      expect([s.red('a'), s.yellow('b'), s.cyan('c'), s.dim('d')]).toEqual([
        '\u001b[31ma\u001b[39m',
        '\u001b[33mb\u001b[39m',
        '\u001b[36mc\u001b[39m',
        '\u001b[2md\u001b[22m',
      ]);
      expect(s.green(s.bold('demo passed'))).toBe('\u001b[32m\u001b[1mdemo passed\u001b[22m\u001b[39m');
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
