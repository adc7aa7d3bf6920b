#!/usr/bin/env node
/**
 * `fake-ipset`: the `ipset` command line over a {@link FakeKernel} whose state lives in
 * the JSON file named by `IPSETS_FAKE_STATE` (created when missing, replaced atomically
 * after every command that can change it). Same arguments, output, stderr and exit codes
 * as ipset 7.17 for restore (stdin), save, list (-n, -t, -o save), create, add, del, test,
 * flush, destroy, swap, rename and version.
 *
 * Concurrent invocations on one state file are not serialised (last writer wins).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FakeKernel } from '../fake-kernel.js';
import { matchCommand, matchEnvOpt } from '../fake/session.js';
import { readStateFile, writeStateFile } from '../state-file.js';

const READ_ONLY = new Set(['list', 'save', 'version', 'help', 'test', 'quit']);

function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i] as string;
    const opt = matchEnvOpt(w);
    if (opt !== undefined) {
      if (opt === 'output' || opt === 'file') i++;
      continue;
    }
    return matchCommand(w);
  }
  return undefined;
}

async function main(): Promise<number> {
  const statePath = process.env.IPSETS_FAKE_STATE;
  if (statePath === undefined || statePath === '') {
    process.stderr.write('fake-ipset: set IPSETS_FAKE_STATE to the path of the JSON state file\n');
    return 255;
  }
  let kernel: FakeKernel;
  try {
    kernel = await readStateFile(statePath);
  } catch (e) {
    process.stderr.write(`fake-ipset: ${(e as Error).message}\n`);
    return 255;
  }
  const argv = process.argv.slice(2);
  const cmd = commandOf(argv);
  // `-f FILE` / `-file FILE` feed restore from a file; like ipset, a missing file ends with 255 silently.
  let input: string | undefined;
  const f = argv.findIndex((w) => matchEnvOpt(w) === 'file');
  if (f >= 0 && cmd === 'restore' && argv[f + 1] !== undefined) {
    const file = argv[f + 1] as string;
    argv.splice(f, 2);
    if (!existsSync(file)) return 255;
    input = readFileSync(file, 'utf8');
  }
  const stdin = cmd === 'restore' ? (input ?? readFileSync(0, 'utf8')) : '';
  const result = kernel.exec(argv, stdin);
  if (cmd === undefined || !READ_ONLY.has(cmd)) {
    await writeStateFile(statePath, kernel);
  }
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  if (result.signal !== undefined) {
    process.kill(process.pid, result.signal as NodeJS.Signals);
  }
  return result.exitCode;
}

void main().then((code) => {
  process.exitCode = code;
});
