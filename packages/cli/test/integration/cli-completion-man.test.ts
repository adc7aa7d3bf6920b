/**
 * Shell completion and the man page, from the built command. Both are written from the
 * program's own command definitions, so the tests compare them with those definitions:
 * a command or flag added to the program shows up in both, or these fail.
 * (There was no completion and no man page at all.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/program/index.js';
import { programModel } from '../../src/program/command-model.js';
import type { CliIo } from '../../src/cli-io.js';
import { BIN, ipsets } from '../helpers/run-ipsets.js';

const silent: CliIo = { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: process.cwd(), now: () => 0 };
const model = programModel(createProgram(silent, { code: 0 }));
const bin = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;

/** Runs bash with the completion sourced and returns what `_ipsets_complete` offers for `words` (the last one is being typed). */
function complete(words: string[]): string[] {
  const script = [
    `source <(${bin} completion bash)`,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_ipsets_complete',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

function hasShell(shell: string): boolean {
  return spawnSync(shell, ['-c', 'true']).status === 0;
}

describe('ipsets completion bash', () => {
  it('sourced in bash, registers a completion for ipsets', () => {
    const out = execFileSync('bash', ['-c', `source <(${bin} completion bash); complete -p ipsets`], { encoding: 'utf8' });
    expect(out).toMatch(/^complete .*-F _ipsets_complete ipsets$/m);
  });

  it('completes every command, each command\'s flags, the choices of a flag, and file names where a file is asked for', () => {
    expect(complete(['ipsets', ''])).toEqual(expect.arrayContaining(model.commands.map((c) => c.name)));
    expect(complete(['ipsets', 'ap'])).toEqual(['apply']);
    expect(complete(['ipsets', 'apply', '--ke'])).toEqual(['--kernel']);
    expect(complete(['ipsets', 'diff', '--kernel', ''])).toEqual(['fake', 'linux']);
    expect(complete(['ipsets', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(complete(['ipsets', 'apply', '--log-format', ''])).toEqual(['json', 'text']);
    // FILE of apply: names from the working folder.
    expect(complete(['ipsets', 'apply', 'package.j'])).toEqual(['package.json']);
    for (const c of model.commands) {
      const offered = complete(['ipsets', c.name, '-']);
      for (const o of c.options) expect(offered, `${c.name} ${o.long}`).toContain(o.long);
    }
  });
});

describe('ipsets completion zsh and fish', () => {
  it('zsh: defines _ipsets with every command and compiles', () => {
    const run = ipsets(['completion', 'zsh'], { cwd: process.cwd() });
    return run.then((r) => {
      expect(r.exitCode).toBe(0);
      expect(r.stdout.startsWith('#compdef ipsets\n')).toBe(true);
      for (const c of model.commands) expect(r.stdout).toContain(`'${c.name}:`);
      if (hasShell('zsh')) {
        // Parsed by zsh itself (no compinit needed to check the syntax).
        const check = spawnSync('zsh', ['-n'], { input: r.stdout, encoding: 'utf8' });
        expect(check.status, check.stderr).toBe(0);
        // Sourced after compinit, it registers _ipsets for ipsets.
        const registered = spawnSync('zsh', ['-c', `autoload -U compinit; compinit -u; source <(${bin} completion zsh); print \${_comps[ipsets]}`], { encoding: 'utf8' });
        expect(registered.stdout.trim().split('\n').at(-1), registered.stderr).toBe('_ipsets');
      }
    });
  });

  it('fish: one complete line per command and flag, understood by fish when it is installed', async () => {
    const r = await ipsets(['completion', 'fish'], { cwd: process.cwd() });
    expect(r.exitCode).toBe(0);
    for (const c of model.commands) expect(r.stdout).toContain(`-a '${c.name}'`);
    expect(r.stdout).toContain("complete -c ipsets -n '__fish_seen_subcommand_from diff' -l kernel -x -a 'fake linux'");
    if (hasShell('fish')) {
      const out = execFileSync('fish', ['-c', `${bin} completion fish | source; complete -C 'ipsets ap'`], { encoding: 'utf8' });
      expect(out).toMatch(/^apply\t/m);
    }
  });

  it('an unknown shell is bad input (exit 2)', async () => {
    const r = await ipsets(['completion', 'tcsh'], { cwd: process.cwd() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('tcsh');
  });
});

describe('ipsets man', () => {
  it('is a section-1 page with every command and every flag, and man renders it without a warning', async () => {
    const r = await ipsets(['man'], { cwd: process.cwd() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^\.TH IPSETS 1 /);
    for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'EXIT STATUS']) expect(r.stdout).toContain(`.SH ${section}`);
    // roff escapes each "-" as "\-".
    for (const c of model.commands) {
      expect(r.stdout).toContain(`.SS ${c.name}`);
      for (const o of c.options) expect(r.stdout, `${c.name} ${o.long}`).toContain(`\\fB${o.long.replace(/-/g, '\\-')}\\fR`);
    }
    if (hasShell('man')) {
      const rendered = spawnSync('man', ['-l', '-'], { input: r.stdout, encoding: 'utf8', env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' } });
      expect(rendered.status, rendered.stderr).toBe(0);
      expect(rendered.stderr).toBe('');
      expect(rendered.stdout).toContain('ipsets apply FILE [options]');
      expect(rendered.stdout).toMatch(/--exit-code\s+exit\s+1\s+when\s+there\s+are\s+differences/);
    }
  });
});
