/**
 * The DaemonSet delivers the desired file as a ConfigMap volume. The kubelet updates
 * such a volume the way its atomic writer does: the files live in a timestamped
 * folder, `..data` links to it, and `desired.yaml` links to `..data/desired.yaml`; an
 * update writes a new folder and renames a new `..data` link over the old one. The
 * file named `desired.yaml` itself never changes, so an agent that only watches for
 * that name misses every update until its next interval. This checks the agent applies
 * such a swap promptly (fake kernel: no root needed).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ROOT, runCli } from './helpers/repo.js';

const work = mkdtempSync(join(tmpdir(), 'ipsets-h5-configmap-'));
const volume = join(work, 'etc-ipsets');
const state = join(work, 'kernel.json');

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

let generation = 0;

/** Publishes `text` as the volume's desired.yaml the way the kubelet's atomic writer does. */
function publish(text: string): void {
  const dir = `..2026_12_01_00_00_0${generation++}.000000001`;
  mkdirSync(join(volume, dir), { recursive: true });
  writeFileSync(join(volume, dir, 'desired.yaml'), text);
  symlinkSync(dir, join(volume, '..data_tmp'));
  renameSync(join(volume, '..data_tmp'), join(volume, '..data'));
  try {
    symlinkSync('..data/desired.yaml', join(volume, 'desired.yaml'));
  } catch {
    // Already there: the user-visible link never changes after the first publish.
  }
}

function savedSets(): string {
  const saved = runCli(['save', '--kernel', 'fake', '--state', state]);
  expect(saved.status, saved.stderr).toBe(0);
  return saved.stdout;
}

async function until(what: string, check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the agent on a ConfigMap volume', () => {
  it('applies a `..data` swap well before its reconcile interval', async () => {
    const small = readFileSync(`${ROOT}examples/small.yaml`, 'utf8');
    publish(small);
    const agent = spawn(
      process.execPath,
      [CLI_BIN, 'agent', join(volume, 'desired.yaml'), '--kernel', 'fake', '--state', state, '--interval', '1h', '--debounce', '100ms', '--no-metrics'],
      { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
    agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((r) => agent.on('exit', (code) => r(code)));
    try {
      await until('the first apply', () => runCli(['save', '--kernel', 'fake', '--state', state]).stdout.includes('10.244.1.12'), 20_000);
      expect(savedSets()).not.toContain('10.244.1.99');
      publish(small.replace('members: [10.244.1.10, 10.244.1.11, 10.244.1.12]', 'members: [10.244.1.10, 10.244.1.11, 10.244.1.12, 10.244.1.99]'));
      // The interval is an hour: only the watch can bring the change in.
      await until('the swapped file to be applied', () => savedSets().includes('10.244.1.99'), 15_000);
      agent.kill('SIGTERM');
      expect(await exited, output).toBe(0);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nagent output:\n${output}`);
    } finally {
      if (agent.exitCode === null) agent.kill('SIGKILL');
    }
  });
});
