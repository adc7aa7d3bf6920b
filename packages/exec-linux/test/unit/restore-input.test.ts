/**
 * What `ipset restore` can be left with when its writer dies. Defect pinned: the port
 * used to feed the text through a pipe; a writer killed by SIGKILL (or the OOM killer)
 * left its orphaned ipset with whatever was in the pipe, ending in a cut line (a bare
 * `-F` flushes every set of the namespace, a cut member is another address), and the
 * kernel lock died with the writer while that ipset still wrote.
 */
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { acquireKernelLock } from '../../src/kernel-lock.js';
import { createLinuxPort } from '../../src/linux-port.js';
import { alive } from '../helpers/fake-bin.js';
import { startFixture } from '../helpers/child.js';
import type { Child } from '../helpers/child.js';

let dir: string;
const children: Child[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipsets-restore-input-'));
});
afterEach(async () => {
  await writeFile(join(dir, 'go'), '').catch(() => undefined);
  for (const c of children.splice(0)) {
    if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
    await c.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

/**
 * A fake ipset that says it started (its pid in `started`), waits for a `go` file, then
 * records what its stdin is (`stdin-kind`: `<mode> <size> <type>`, taken before reading), copies its stdin to `input` and writes `done`.
 */
async function gatedIpset(): Promise<string> {
  const path = join(dir, 'ipset');
  await writeFile(
    path,
    `#!/bin/sh
d='${dir}'
stat -L -c '%a %s %F' /proc/self/fd/0 > "$d/stdin-kind"
echo $$ > "$d/started.tmp" && mv "$d/started.tmp" "$d/started"
# (at most ~60 s: a failed test never leaves it looping)
i=0; while [ ! -e "$d/go" ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i + 1)); done
cat > "$d/input"
: > "$d/done"
`,
  );
  await chmod(path, 0o755);
  return path;
}

/** Resolves once `file` exists (the fake's own report of its progress). */
async function until(file: string): Promise<void> {
  for (;;) {
    if (await stat(file).then(() => true, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A restore text of `sets` sets with `members` members each (~27 bytes a line). */
function restoreText(sets: number, members: number): string {
  const lines: string[] = [];
  for (let s = 0; s < sets; s += 1) {
    lines.push(`-N azure-npm-${s} nethash`, `-F azure-npm-${s}`);
    for (let m = 0; m < members; m += 1) lines.push(`-A azure-npm-${s} 10.${s % 256}.${m >> 8}.${m % 256}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('restore input: ipset only ever gets the whole text', () => {
  it('a writer SIGKILLed before its ipset read a byte leaves that ipset the whole text, and the lock held until it exits', async () => {
    const text = restoreText(40, 5_000); // ~5.5 MB: far more than any pipe or socket buffer
    const textFile = join(dir, 'text');
    await writeFile(textFile, text);
    const lockPath = join(dir, 'locks', 'test.lock');
    const ipset = await gatedIpset();
    const writer = startFixture('restore-writer.ts', [lockPath, ipset, textFile, join(dir, 'restore')]);
    children.push(writer);
    expect(await writer.nextLine()).toEqual({ locked: true });
    await until(join(dir, 'started'));
    writer.process.kill('SIGKILL');
    expect((await writer.exited).signal).toBe('SIGKILL');

    // The orphan still acts for the dead writer: the lock stays taken.
    const held = await acquireKernelLock({ path: lockPath, waitMs: 0 }).then(
      () => 'taken',
      (error: unknown) => (isIpsetsError(error, 'LOCK_HELD') ? 'LOCK_HELD' : error),
    );
    expect(held).toBe('LOCK_HELD');

    // The ipset's stdin was a private file holding the whole text before it read a byte.
    expect(await readFile(join(dir, 'stdin-kind'), 'utf8')).toBe(`600 ${Buffer.byteLength(text)} regular file\n`);
    await writeFile(join(dir, 'go'), '');
    await until(join(dir, 'done'));
    expect(await readFile(join(dir, 'input'), 'utf8')).toBe(text);
    const pid = Number(await readFile(join(dir, 'started'), 'utf8'));
    while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 10));

    const lock = await acquireKernelLock({ path: lockPath, waitMs: 5_000 });
    await lock.release();
    // The staged file lost its name before ipset started: nothing is left behind.
    expect(await readdir(join(dir, 'restore'))).toEqual([]);
  });
});

describe('restore input: the restore folder', () => {
  it('is made 0700, keeps no file after a restore, and removes files of writers that died', async () => {
    const restoreDir = join(dir, 'restore');
    await mkdir(restoreDir, { mode: 0o755 });
    await chmod(restoreDir, 0o755);
    // A dead writer's file (pid 2^22 + 1 is above Linux's largest pid) and one of a live process.
    const stale = join(restoreDir, `restore-${2 ** 22 + 1}-0123456789abcdef`);
    const live = join(restoreDir, `restore-${process.ppid}-0123456789abcdef`);
    await writeFile(stale, '-F\n');
    await writeFile(live, '-A a 10.0.0.1\n');
    const ipset = await gatedIpset();
    await writeFile(join(dir, 'go'), '');
    const port = createLinuxPort({ ipsetPath: ipset, restoreDir });
    await port.restore('-A a 10.0.0.1\n');
    expect(((await stat(restoreDir)).mode & 0o777).toString(8)).toBe('700');
    expect((await readdir(restoreDir)).sort()).toEqual([`restore-${process.ppid}-0123456789abcdef`]);
  });

  it('a restore folder that is a symbolic link is refused before ipset runs', async () => {
    await mkdir(join(dir, 'real'), { mode: 0o700 });
    await symlink(join(dir, 'real'), join(dir, 'link'));
    const ipset = await gatedIpset();
    const port = createLinuxPort({ ipsetPath: ipset, restoreDir: join(dir, 'link') });
    await expect(port.restore('-A a 10.0.0.1\n')).rejects.toMatchObject({
      code: 'IPSET_UNAVAILABLE',
      message: expect.stringContaining('is a symbolic link'),
    });
    expect(await stat(join(dir, 'started')).catch(() => undefined)).toBeUndefined();
  });
});
