import { describe, expect, it } from 'vitest';
import { IpsetsError } from '@ipsets/core';
import { createLogger, defaultLogFormat, parseLogFormat, parseLogLevel, textLine } from '../../src/logging.js';

function sink(isTTY = false) {
  const lines: string[] = [];
  return { isTTY, write: (t: string) => void lines.push(t), lines };
}

describe('createLogger', () => {
  it('json: one JSON object per line with level name, ISO time, msg and fields', () => {
    const s = sink();
    const log = createLogger({ stream: s, format: 'json' });
    log.info({ durationMs: 12, lines: 3, converged: true, failedSets: ['a'] }, 'applied');
    log.error({ err: new IpsetsError('TIMEOUT', 'ipset ran longer than 5m\nsecond line') }, 'apply failed');
    expect(s.lines).toHaveLength(2);
    for (const line of s.lines) expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).toBe(true);
    const [a, b] = s.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(a).toMatchObject({ level: 'info', msg: 'applied', durationMs: 12, lines: 3, converged: true, failedSets: ['a'] });
    expect(String(a!['time'])).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(b).toMatchObject({ level: 'error', err: { code: 'TIMEOUT', message: 'ipset ran longer than 5m\nsecond line' } });
  });

  it('text: one line per event, multi-line errors folded onto it', () => {
    const s = sink(true);
    const log = createLogger({ stream: s, format: 'text' });
    log.warn({ err: new IpsetsError('INVALID_INPUT', 'bad file:\n  sets[0]: nope'), file: '/a b.yaml' }, 'file\nnot applied');
    expect(s.lines).toHaveLength(1);
    expect(s.lines[0]!.split('\n')).toHaveLength(2);
    expect(s.lines[0]).toMatch(/WARN  file \| not applied err="INVALID_INPUT: bad file: \|   sets\[0\]: nope" file="\/a b.yaml"\n$/);
  });

  it('honours the level', () => {
    const s = sink();
    const log = createLogger({ stream: s, format: 'json', level: 'warn' });
    log.info({}, 'hidden');
    log.warn({}, 'shown');
    expect(s.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shown']);
  });

  it('defaults to text on a terminal and JSON elsewhere', () => {
    expect(defaultLogFormat({ isTTY: true, write() {} })).toBe('text');
    expect(defaultLogFormat({ write() {} })).toBe('json');
  });

  it('refuses unknown formats and levels, quoting them', () => {
    expect(() => parseLogFormat('yaml')).toThrow(/--log-format "yaml" is not a log format; expected json or text/);
    expect(() => parseLogLevel('loud')).toThrow(/--log-level "loud" is not a log level; expected one of debug, info/);
    expect(parseLogLevel('debug')).toBe('debug');
  });

  it('textLine leaves a non-JSON line as one line', () => {
    expect(textLine('plain')).toBe('plain\n');
  });
});
