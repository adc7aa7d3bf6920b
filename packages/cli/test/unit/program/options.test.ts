import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../../../src/program/options.js';
import { createProgram } from '../../../src/program/index.js';
import { captureIo } from '../../helpers/capture-io.js';

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

describe('a duration flag shows the default it uses', () => {
  // The help text of a default was written by hand beside the value it describes
  // (`'5m'` beside DEFAULT_RESTORE_TIMEOUT_MS): a change of one would leave --help lying.
  it('every duration option of every command: the shown text parses to its default value', () => {
    const program = createProgram(captureIo(), { code: 0 });
    const checked: string[] = [];
    for (const command of [program, ...program.commands]) {
      for (const option of command.options) {
        if (!option.flags.endsWith('<duration>')) continue;
        checked.push(`${command.name()} ${option.long}`);
        expect(option.defaultValueDescription, `${command.name()} ${option.long}`).toBeDefined();
        expect(parseDuration(option.defaultValueDescription!), `${command.name()} ${option.long}`).toBe(option.defaultValue);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['apply --timeout', 'apply --read-timeout', 'apply --wait', 'apply --grace', 'agent --interval', 'agent --debounce']));
  });
});
