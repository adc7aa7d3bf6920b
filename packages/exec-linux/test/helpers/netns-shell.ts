/**
 * A long-lived shell inside a test namespace that runs `ipset` for the differential
 * test. Spawning a process from node costs ~25 ms here; a shell that is already inside
 * the namespace forks `ipset` for a few. Inputs and outputs go through files in a temp dir.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandResult } from '@ipsets/core';

/** Results of one script run. */
export interface ShellRun {
  restore: CommandResult;
  save: CommandResult;
}

/** A shell inside a namespace (see the module comment). */
export interface NamespaceShell {
  /**
   * Clears every set (flush, destroy), runs `ipset restore` of `setup` when given (it
   * must succeed), then `ipset [-exist] restore` of `text`, then `ipset save`.
   */
  runScript(text: string, exist: boolean, setup?: string): Promise<ShellRun>;
  close(): Promise<void>;
}

const SIGNALS = Object.entries(constants.signals) as [string, number][];

/** Starts a shell inside network namespace `netns`. */
export async function openNamespaceShell(netns: string): Promise<NamespaceShell> {
  const dir = await mkdtemp(join(tmpdir(), 'ipsets-nsshell-'));
  await writeFile(join(dir, 'clear'), 'flush\ndestroy\n');
  const child: ChildProcessWithoutNullStreams = spawn('ip', ['netns', 'exec', netns, 'sh'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = '';
  const waiting = new Map<number, (rc: number) => void>();
  let broken: Error | undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const m = /^DONE (\d+) (\d+)$/.exec(line);
      if (m !== null) waiting.get(Number(m[1]))?.(Number(m[2]));
    }
  });
  child.stderr.resume();
  child.on('exit', (code) => {
    broken = new Error(`namespace shell exited (${code})`);
  });
  let counter = 0;

  const toResult = (rc: number, stdout: string, stderr: string): CommandResult => {
    if (rc > 128) {
      const signal = SIGNALS.find(([, n]) => n === rc - 128)?.[0];
      if (signal !== undefined) return { exitCode: rc, stdout, stderr, signal };
    }
    return { exitCode: rc, stdout, stderr };
  };

  return {
    async runScript(text, exist, setup) {
      if (broken !== undefined) throw broken;
      counter += 1;
      const n = counter;
      const f = (name: string): string => join(dir, `${name}.${n}`);
      await writeFile(f('in'), text);
      await writeFile(f('setup'), setup ?? '');
      const done = new Promise<number>((resolve) => waiting.set(n, resolve));
      // The clear must succeed (a failure would leak state into the next script): its rc is checked too.
      child.stdin.write(
        `ipset restore < ${dir}/clear > ${f('cerr')} 2>&1 && ipset restore < ${f('setup')} >> ${f('cerr')} 2>&1; c=$?; ` +
          // A subshell that execs ipset: the shell's own "Segmentation fault" notice then goes
          // to the shell's stderr, not into the captured ipset stderr.
          `( exec ipset ${exist ? '-exist ' : ''}restore < ${f('in')} > ${f('out')} 2> ${f('err')} ); rc=$?; ` +
          `ipset save > ${f('save')} 2> ${f('serr')}; s=$?; ` +
          `[ $c -eq 0 ] || rc=900; [ $s -eq 0 ] || rc=901; echo "DONE ${n} $rc"\n`,
      );
      const rc = await done;
      waiting.delete(n);
      const read = (name: string): Promise<string> => readFile(f(name), 'utf8');
      if (rc === 900) throw new Error(`clearing the namespace or its setup failed: ${await read('cerr')}`);
      if (rc === 901) throw new Error(`ipset save failed: ${await read('serr')}`);
      const result = toResult(rc, await read('out'), await read('err'));
      const save: CommandResult = { exitCode: 0, stdout: await read('save'), stderr: '' };
      await Promise.all(['in', 'setup', 'out', 'err', 'save', 'serr', 'cerr'].map((name) => rm(f(name), { force: true })));
      return { restore: result, save };
    },
    async close() {
      child.stdin.end();
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
