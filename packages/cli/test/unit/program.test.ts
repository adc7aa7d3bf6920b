import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { parseDuration, runCli } from '../../src/program.js';
import type { CliIo } from '../../src/cli-io.js';

function io(): CliIo & { out: string; err: string } {
  const self = {
    out: '',
    err: '',
    stdout: { write: (t: string) => (self.out += t) },
    stderr: { write: (t: string) => (self.err += t) },
    env: {},
    cwd: process.cwd(),
    now: () => 0,
  };
  return self;
}

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1500ms', 1500],
    ['2h', 7_200_000],
    ['0.5', 500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '5 minutes', '-1s', '1ms'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidArgumentError);
  });
});

describe('runCli', () => {
  it('maps commander errors to exit 2 and help to exit 0', async () => {
    const bad = io();
    expect(await runCli(['apply'], bad)).toBe(2);
    expect(bad.err).toContain("missing required argument 'file'");
    const help = io();
    expect(await runCli(['--help'], help)).toBe(0);
    expect(help.out).toContain('Exit codes: 0 done');
    const dur = io();
    expect(await runCli(['agent', 'x.yaml', '--interval', 'soon'], dur)).toBe(2);
    expect(dur.err).toContain('expected a duration like 30s');
  });

  it('reports a bad file as exit 2 with the problem on stderr', async () => {
    const run = io();
    expect(await runCli(['plan', 'does-not-exist.yaml'], run)).toBe(2);
    expect(run.err).toContain('ipsets: error: cannot read desired-state file "');
    expect(run.out).toBe('');
  });
});
