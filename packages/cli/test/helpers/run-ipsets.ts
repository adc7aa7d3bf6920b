/**
 * Runs the built `ipsets` binary (dist/bin.js) with execa, in a folder of the test's
 * choosing, without colour unless asked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { inject } from 'vitest';
import type {} from './build.js';

/** dist/bin.js of this package. */
export const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
/** The repository's examples folder. */
export const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));

/** What one run printed and how it ended. */
export interface IpsetsRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link ipsets}. */
export interface RunOptions {
  cwd: string;
  env?: Record<string, string>;
  input?: string;
}

function assertBuilt(): void {
  const error = inject('ipsetsBuildError');
  if (error) throw new Error(`the ipsets binary could not be built: ${error}`);
}

/** Runs `ipsets ARGS` to completion. */
export async function ipsets(args: readonly string[], options: RunOptions): Promise<IpsetsRun> {
  assertBuilt();
  const result = await execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    reject: false,
    env: { NO_COLOR: '1', ...options.env },
    extendEnv: true,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    timeout: 60_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Starts `ipsets ARGS` and returns the running process (for the agent). */
export function spawnIpsets(args: readonly string[], options: RunOptions): ResultPromise {
  assertBuilt();
  return execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    reject: false,
    env: { NO_COLOR: '1', ...options.env },
    stdin: 'ignore',
    // Below the slowest kernel tests' own timeout (180 s): a busy machine starts Node slowly.
    timeout: 170_000,
  });
}

/** A fresh temporary folder and its removal. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ipsets-cli-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Awaits a run and checks its exit code, showing its output when it differs. */
export async function expectExit(run: Promise<IpsetsRun>, code: number): Promise<IpsetsRun> {
  const result = await run;
  if (result.exitCode !== code) {
    throw new Error(`expected exit ${code}, got ${result.exitCode}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
  return result;
}

/** Collects a stream's text and resolves when a pattern shows up (or rejects after a timeout). */
export function watchText(stream: NodeJS.ReadableStream) {
  let text = '';
  const waiters: { re: RegExp; from: number; ok: (m: RegExpMatchArray) => void }[] = [];
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of [...waiters]) {
      const m = text.slice(w.from).match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(m);
      }
    }
  });
  return {
    get text() {
      return text;
    },
    /** Waits for `re` in output that arrives after this call (or already present when `fromStart`). */
    waitFor(re: RegExp, fromStart = false, ms = 20_000): Promise<RegExpMatchArray> {
      const from = fromStart ? 0 : text.length;
      const m = text.slice(from).match(re);
      if (m) return Promise.resolve(m);
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`timed out waiting for ${re} in:\n${text}`)), ms);
        waiters.push({ re, from, ok: (x) => (clearTimeout(timer), ok(x)) });
      });
    },
  };
}

/** Parses every stderr line as JSON (a line that is not JSON fails the test). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`a stderr line is not JSON: ${l}\n--- all of stderr:\n${text}`);
      }
    });
}
