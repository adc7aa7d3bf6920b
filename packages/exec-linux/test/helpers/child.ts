/**
 * Runs a TypeScript fixture of `test/fixtures` as a separate node process (through
 * tsx, with the workspace packages resolved to their sources), for tests that need a
 * second process: lock contention, signals, concurrent writers.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/** A running fixture process. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Resolves with the next complete stdout line, parsed as JSON. */
  nextLine(): Promise<Record<string, unknown>>;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code, or `128 + n` / the signal name when killed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `test/fixtures/<name>` with `args`. With `detached` it leads a process group of
 * its own, so a test can signal that whole group as a terminal's Ctrl-C does.
 */
export function startFixture(name: string, args: readonly string[], env: Record<string, string> = {}, options: { detached?: boolean } = {}): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', `test/fixtures/${name}`, ...args], {
    cwd: packageDir,
    env: { ...process.env, TSX_TSCONFIG_PATH: 'test/tsconfig.json', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached === true,
  });
  let out = '';
  let err = '';
  let consumed = 0;
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.on('data', (chunk: string) => {
    err += chunk;
  });
  let closed = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      closed = true;
      resolve({ code, signal });
      for (const w of waiters.splice(0)) w();
    });
  });
  return {
    process: child,
    pid: child.pid!,
    exited,
    stdout: () => out,
    stderr: () => err,
    async nextLine() {
      for (;;) {
        const nl = out.indexOf('\n', consumed);
        if (nl !== -1) {
          const line = out.slice(consumed, nl);
          consumed = nl + 1;
          return JSON.parse(line) as Record<string, unknown>;
        }
        if (closed) throw new Error(`fixture ${name} exited without printing a line; stderr: ${err}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}
