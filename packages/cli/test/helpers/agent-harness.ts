/**
 * In-process `agentCommand` on the fake kernel, for the agent's unit tests: a fresh
 * folder per test, an io whose stderr must be JSON lines (any other line fails the
 * test) with a way to wait for a line, and starting and stopping the agent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { kernelName } from '@ipsets/core';
import { agentCommand } from '../../src/commands/agent.js';
import type { CliIo } from '../../src/cli-io.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';
import { loadFakeKernel } from '../../src/kernel/fake-state-file.js';

/** The folder of the running test (the agent's working folder). */
export const agentDir = { path: '' };

/** Gives every test of the calling file a fresh folder in {@link agentDir}, removed after it. */
export function useTempAgentDir(): void {
  beforeEach(async () => {
    agentDir.path = await mkdtemp(join(tmpdir(), 'ipsets-agent-'));
  });
  afterEach(async () => {
    await rm(agentDir.path, { recursive: true, force: true });
  });
}

export type Line = Record<string, unknown> & { msg: string; level: string };

/** An io whose stderr must be JSON lines (any other line fails the test). */
export function testIo() {
  let err = '';
  const lines: Line[] = [];
  const waiters: { test: (l: Line) => boolean; from: number; ok: (l: Line) => void }[] = [];
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: {
      write: (t: string) => {
        err += t;
        for (const raw of t.split('\n').filter((x) => x !== '')) {
          const line = JSON.parse(raw) as Line;
          lines.push(line);
        }
        for (const w of [...waiters]) {
          const hit = lines.slice(w.from).find(w.test);
          if (hit) {
            waiters.splice(waiters.indexOf(w), 1);
            w.ok(hit);
          }
        }
        return true;
      },
    },
    env: {},
    cwd: agentDir.path,
    now: () => performance.now(),
  };
  return {
    io,
    lines,
    get err() {
      return err;
    },
    /** Waits for a line matching `test` that arrives after this call (or earlier, when `fromStart`). */
    waitFor(test: (l: Line) => boolean, { fromStart = false, ms = 20_000 } = {}): Promise<Line> {
      const from = fromStart ? 0 : lines.length;
      const hit = lines.slice(from).find(test);
      if (hit) return Promise.resolve(hit);
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`timed out waiting in:\n${err}`)), ms);
        waiters.push({ test, from, ok: (x) => (clearTimeout(timer), ok(x)) });
      });
    },
  };
}

export const SHOP = kernelName('ns-shop', { owner: DEFAULT_CLI_OWNER });
export const shop = (...members: string[]) => `sets:\n  - { type: namespace, name: shop, members: [${members.join(', ')}] }\n`;
export const applied = (trigger?: string) => (l: Line) => l.msg === 'apply converged' && (trigger === undefined || l['trigger'] === trigger);
export const kernelMembers = async () => (await loadFakeKernel(join(agentDir.path, '.ipsets-state.json'))).members(SHOP);

export function start(file: string, t: ReturnType<typeof testIo>, extra: Record<string, unknown> = {}) {
  let stop!: (why: string) => void;
  const stopSignal = new Promise<string>((ok) => (stop = ok));
  const done = agentCommand(
    file,
    { kernel: 'fake', intervalMs: 60_000, debounceMs: 20, metricsBindAddress: '127.0.0.1:0', logFormat: 'json', stopSignal, ...extra },
    t.io,
  );
  return { stop, done };
}

export async function portOf(t: ReturnType<typeof testIo>): Promise<string> {
  const line = await t.waitFor((l) => l.msg === 'serving /metrics, /livez and /readyz', { fromStart: true });
  return String(line['address']).split(':').pop()!;
}

