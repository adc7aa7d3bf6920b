/**
 * The command line's conventions, each pinned by the defect it had: a bad flag was
 * found only after the kernel lock was taken (a user who could not open the lock got
 * exit 1, not 2); `diff --exit-code` said 1 both for "differences" and for "the
 * kernel could not be read"; `ipsets` alone printed help and exited 0; `--version`
 * printed a bare number; port messages told command-line users to "pass ipsetPath".
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/program/index.js';
import type { CliIo } from '../../../src/cli-io.js';
import { useTempDir } from '../../../../../vitest.temp-dir.js';

const tempDir = useTempDir('ipsets-h28-conventions-');

function io(): CliIo & { out: string; err: string } {
  const self = {
    out: '',
    err: '',
    stdout: { write: (t: string) => (self.out += t) },
    stderr: { write: (t: string) => (self.err += t) },
    env: {},
    get cwd() {
      return tempDir();
    },
    now: () => performance.now(),
  };
  return self;
}

async function run(argv: string[]) {
  const r = io();
  const code = await runCli(argv, r);
  return { code, out: r.out, err: r.err };
}

const shop = (...members: string[]) => `sets:\n  - { type: namespace, name: shop, members: [${members.join(', ')}] }\n`;

describe('every flag is checked before a lock is taken or a kernel opened', () => {
  // A lock file that can never be opened: a command that tries to take it fails with
  // "cannot be opened" (exit 1); one that checks its flags first never gets there.
  const unopenable = ['--lock-file', '/dev/null/ipsets-h28.lock'];
  const cases: [string, string[], RegExp][] = [
    ['apply: --state without --kernel fake', ['apply', 'd.yaml', '--state', 'k.json', ...unopenable], /--state "k\.json" needs --kernel fake/],
    ['apply: --netns with --kernel fake', ['apply', 'd.yaml', '--kernel', 'fake', '--netns', 'x', ...unopenable], /--netns and --ipset need --kernel linux/],
    ['apply: a namespace name that is no name', ['apply', 'd.yaml', '--netns', 'a/b', ...unopenable], /netns "a\/b" is not a network namespace name/],
    ['apply: --ipset that is empty', ['apply', 'd.yaml', '--ipset', '', ...unopenable], /--ipset "" is not usable/],
    ['reset: --state without --kernel fake', ['reset', '--state', 'k.json', ...unopenable], /--state "k\.json" needs --kernel fake/],
    ['agent --once: --state without --kernel fake', ['agent', 'd.yaml', '--once', '--state', 'k.json', ...unopenable], /--state "k\.json" needs --kernel fake/],
    ['apply: an owner prefix that would claim other sets', ['apply', 'd.yaml', '--owner', 'a', ...unopenable], /invalid owner prefix "a"/],
    ['reset: an owner prefix that would claim other sets', ['reset', '--owner', 'kube', ...unopenable], /invalid owner prefix "kube"/],
  ];
  for (const [name, argv, message] of cases) {
    it(`${name}: exit 2 naming the flag, the lock never touched`, async () => {
      await writeFile(join(tempDir(), 'd.yaml'), shop('10.0.0.1'));
      const r = await run(argv);
      expect(r.err).toMatch(message);
      expect(r.err).not.toContain('lock');
      expect(r.code).toBe(2);
    });
  }

  it('diff and save: a bad flag is exit 2 before any kernel is read', async () => {
    await writeFile(join(tempDir(), 'd.yaml'), shop('10.0.0.1'));
    // The linux kernel's ipset would be "/nonexistent": reading it would fail with exit 1.
    for (const argv of [
      ['diff', 'd.yaml', '--state', 'k.json', '--ipset', '/nonexistent/ipset'],
      ['save', '--state', 'k.json', '--ipset', '/nonexistent/ipset'],
    ]) {
      const r = await run(argv);
      expect(r.err).toContain('needs --kernel fake');
      expect(r.code).toBe(2);
    }
  });
});

describe('diff --exit-code: 0 no differences, 1 differences, 6 the kernel could not be read (kubectl diff: more than 1 is an error)', () => {
  it('0, 1 and 6 on the fake kernel and on an ipset that cannot run; --json carries the same code', async () => {
    await writeFile(join(tempDir(), 'd.yaml'), shop('10.0.0.1'));
    expect((await run(['apply', 'd.yaml', '--kernel', 'fake'])).code).toBe(0);
    expect((await run(['diff', 'd.yaml', '--kernel', 'fake', '--exit-code'])).code).toBe(0);
    await writeFile(join(tempDir(), 'd.yaml'), shop('10.0.0.1', '10.0.0.2'));
    expect((await run(['diff', 'd.yaml', '--kernel', 'fake', '--exit-code'])).code).toBe(1);
    const unreadable = await run(['diff', 'd.yaml', '--ipset', join(tempDir(), 'no-such-ipset'), '--exit-code']);
    expect(unreadable.err).toContain('was not found');
    expect(unreadable.code).toBe(6);
    const json = await run(['diff', 'd.yaml', '--ipset', join(tempDir(), 'no-such-ipset'), '--exit-code', '--json']);
    expect(json.code).toBe(6);
    expect(JSON.parse(json.out)).toMatchObject({ exitCode: 6, error: { code: 'IPSET_UNAVAILABLE' } });
    // Without --exit-code a kernel failure stays 1, as for every other command; bad input stays 2.
    expect((await run(['diff', 'd.yaml', '--ipset', join(tempDir(), 'no-such-ipset')])).code).toBe(1);
    await writeFile(join(tempDir(), 'bad.yaml'), 'sets: [1]\n');
    expect((await run(['diff', 'bad.yaml', '--kernel', 'fake', '--exit-code'])).code).toBe(2);
  });
});

describe('ipsets with no command', () => {
  it('prints the help to stderr and exits 2, like any usage error (it printed to stdout and exited 0)', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('Usage: ipsets [options] [command]');
    expect(r.err).toContain('Exit codes:');
    expect((await run(['--debug'])).code).toBe(2);
    // Asked for, help is still stdout and 0.
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: ipsets');
  });
});

describe('--version', () => {
  it('names the command\'s version and the ipset found with its protocol (it printed a bare number); --json for tooling', async () => {
    const { cliVersion } = await import('../../../src/program/index.js');
    const text = await run(['--version']);
    expect(text.code).toBe(0);
    const [first, second] = text.out.split('\n');
    expect(first).toBe(`ipsets ${cliVersion()}`);
    // This machine's ipset, or why there is none: either way the line says which ipset was asked.
    expect(second).toMatch(/^ipset (v\d+\.\d+, protocol version: \d+ \(ipset on PATH|: unknown \()/);
    const json = await run(['--version', '--json']);
    const parsed = JSON.parse(json.out) as { schemaVersion: number; version: string; node: string; ipset: { path: string; version?: string; protocol?: number; problem?: string } };
    expect(parsed).toMatchObject({ schemaVersion: 1, version: cliVersion(), node: process.version, ipset: { path: 'ipset' } });
    expect(parsed.ipset.version !== undefined || parsed.ipset.problem !== undefined).toBe(true);
    expect((await run(['-V'])).out.startsWith(`ipsets ${cliVersion()}\n`)).toBe(true);
    expect((await run(['--version', '--yaml'])).code).toBe(2);
  });
});

describe('the owner prefix', () => {
  it('is the command\'s own (ipsets-) unless the file or --owner names one; a file and --owner that disagree are refused', async () => {
    await writeFile(join(tempDir(), 'd.yaml'), shop('10.0.0.1'));
    expect((await run(['plan', 'd.yaml'])).out).toMatch(/^-N ipsets-[0-9a-z]{20} --exist nethash$/m);
    expect((await run(['plan', 'd.yaml', '--owner', 'azure-npm-'])).out).toMatch(/^-N azure-npm-[0-9a-z]{20} --exist nethash$/m);
    await writeFile(join(tempDir(), 'npm.yaml'), `owner: azure-npm-\n${shop('10.0.0.1')}`);
    expect((await run(['plan', 'npm.yaml'])).out).toMatch(/^-N azure-npm-/m);
    expect((await run(['plan', 'npm.yaml', '--owner', 'azure-npm-'])).code).toBe(0);
    const conflict = await run(['plan', 'npm.yaml', '--owner', 'ipsets-']);
    expect(conflict.code).toBe(2);
    expect(conflict.err).toContain('owner prefix "azure-npm-" differs from "ipsets-" given by --owner');
    // Too long for the digest: said with where the owner came from.
    const long = await run(['plan', 'd.yaml', '--owner', 'a-very-long-owner-']);
    expect(long.code).toBe(2);
    expect(long.err).toContain('(given by --owner)');
  });
});

describe('messages name the command\'s flags, not the library\'s options', () => {
  it('a missing ipset says --ipset (it said "pass ipsetPath")', async () => {
    await writeFile(join(tempDir(), 'd.yaml'), shop('10.0.0.1'));
    const r = await run(['diff', 'd.yaml', '--ipset', join(tempDir(), 'no-such-ipset')]);
    expect(r.err).toContain('or pass --ipset');
    expect(r.err).not.toMatch(/ipsetPath|ipPath|flockPath/);
  });
});
