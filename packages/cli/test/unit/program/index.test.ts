import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/program/index.js';
import { captureIo as io } from '../../helpers/capture-io.js';

describe('defaults shown in --help', () => {
  it('are the ones the commands and the libraries use', async () => {
    const defaults = await import('../../../src/defaults.js');
    const lib = await import('@ipsets/exec-linux');
    expect(defaults.DEFAULT_RESTORE_TIMEOUT_MS).toBe(lib.DEFAULT_RESTORE_TIMEOUT_MS);
    expect(defaults.DEFAULT_READ_TIMEOUT_MS).toBe(lib.DEFAULT_READ_TIMEOUT_MS);
    expect(defaults.DEFAULT_LOCK_WAIT_MS).toBe(lib.DEFAULT_LOCK_WAIT_MS);
    const core = await import('@ipsets/core');
    const help = (argv: string[]) => {
      const run = io();
      return runCli(argv, run).then(() => run.out.replace(/\s+/g, ' '));
    };
    // The --owner default shown is the command's own prefix, never core's Azure NPM compatibility prefix.
    expect(defaults.DEFAULT_CLI_OWNER).not.toBe(core.DEFAULT_OWNER);
    expect(await help(['save', '--help'])).toContain(`(default: ${defaults.DEFAULT_CLI_OWNER})`);
    expect(await help(['reset', '--help'])).toContain(`(default: ${defaults.DEFAULT_CLI_OWNER})`);
    expect(await help(['apply', '--help'])).toContain(`(default ${defaults.DEFAULT_CLI_OWNER};`);
  });
});

describe('--json errors', () => {
  it('are { schemaVersion: 1, error: { code, message } } on stdout with the exit code', async () => {
    const run = io();
    expect(await runCli(['plan', 'does-not-exist.yaml', '--json'], run)).toBe(2);
    expect(run.err).toBe('');
    const json = JSON.parse(run.out) as { schemaVersion: number; error: { code: string; message: string } };
    expect(json.schemaVersion).toBe(1);
    expect(json.error.code).toBe('INVALID_INPUT');
    expect(json.error.message).toContain('does-not-exist.yaml');
  });
});

describe('runCli', () => {
  it('maps commander errors to exit 2 and help to exit 0', async () => {
    const bad = io();
    expect(await runCli(['apply'], bad)).toBe(2);
    expect(bad.err).toContain("missing required argument 'file'");
    const help = io();
    expect(await runCli(['--help'], help)).toBe(0);
    expect(help.out).toContain('Exit codes:\n  0  done');
    expect(help.out).toMatch(/4 +another writer holds the kernel lock/);
    const dur = io();
    expect(await runCli(['agent', 'x.yaml', '--interval', 'soon'], dur)).toBe(2);
    expect(dur.err).toContain('expected a duration like 30s');
  });

  it.each([
    ['agent', '--interval', '600h', 'from 100ms to 24h'],
    ['agent', '--interval', '10ms', 'from 100ms to 24h'],
    ['agent', '--debounce', '2h', 'from 10ms to 10m'],
    ['agent', '--grace', '2h', 'from 10ms to 1h'],
    ['apply', '--grace', '600h', 'from 10ms to 1h'],
    ['apply', '--wait', '25h', 'from 10ms to 24h'],
    ['apply', '--timeout', '100ms', 'from 1s to 24h'],
    ['save', '--read-timeout', '600h', 'from 1s to 24h'],
  ])('%s %s %s exits 2 naming the range (a duration past Node\'s timer range became 1 ms)', async (command, flag, value, range) => {
    const run = io();
    const args = command === 'save' ? [command, flag, value] : [command, 'x.yaml', flag, value];
    expect(await runCli(args, run)).toBe(2);
    expect(run.err).toContain(`${flag}: "${value}" is out of range; expected a duration ${range}`);
    const help = io();
    await runCli([command, '--help'], help);
    expect(help.out.replace(/\s+/g, ' ')).toContain(range.replace('from ', '').replace(' to ', '–'));
  });

  it('reports a bad file as exit 2 with the problem on stderr', async () => {
    const run = io();
    expect(await runCli(['plan', 'does-not-exist.yaml'], run)).toBe(2);
    expect(run.err).toContain('ipsets: error: cannot read desired-state file "');
    expect(run.out).toBe('');
  });
});

describe('agent flags', () => {
  it('keep --metrics as a deprecated alias of --metrics-bind-address, with a warning', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'ipsets-flags-'));
    try {
      await writeFile(join(dir, 'd.yaml'), 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n');
      const run = Object.assign(io(), { cwd: dir });
      // A port that is not a number fails after the warning, before anything is served.
      expect(await runCli(['agent', 'd.yaml', '--kernel', 'fake', '--metrics', '127.0.0.1:http'], run)).toBe(2);
      expect(run.err).toContain('"msg":"--metrics is deprecated; use --metrics-bind-address"');
      expect(run.err).toContain('metrics port "http"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
