/**
 * Ctrl-C at a terminal sends SIGINT to the whole foreground process group, not just
 * to `ipsets`. When `ipset restore` shared that group it died half-way whatever our
 * stop logic decided. On the REAL kernel, in a network namespace this file creates:
 * `ipsets apply` is started as a terminal would start a job (a process group of its
 * own) and the whole group gets SIGINT while the restore runs.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { describeKernel } from '../helpers/kernel.js';
import { BIN, tempDir } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

const REAL_IPSET = '/usr/sbin/ipset';

function members(a: number, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`10.${a}.${(i >> 8) & 255}.${i & 255}`);
  return out;
}

async function ownedSets(ns: TestNamespace): Promise<Map<string, string[]>> {
  const save = parseSave((await ns.run(['ipset', 'save'])).stdout);
  return new Map(save.sets.filter((s) => s.name.startsWith(DEFAULT_CLI_OWNER)).map((s) => [s.name, [...s.members].sort()]));
}

describeKernel('Ctrl-C (SIGINT to the process group) during ipsets apply (real kernel)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let wrapper: string;
  let restoreLog: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    restoreLog = join(dir, 'restores.log');
    wrapper = join(dir, 'slow-ipset');
    // Logs the start of each restore, then feeds the real ipset slowly enough (the text
    // through a pipe with a pause) that the signal surely lands while it runs.
    await writeFile(
      wrapper,
      `#!/bin/sh
case "$*" in
  *restore*)
    echo "start $(date +%s%N)" >> ${restoreLog}
    { sleep 1; cat; } | ${REAL_IPSET} "$@"; rc=$?
    echo "end $(date +%s%N) $rc" >> ${restoreLog}
    exit $rc;;
esac
exec ${REAL_IPSET} "$@"
`,
      { mode: 0o755 },
    );
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('the restore in flight finishes, exit 0 with a converged report; never a half-applied set without one', { timeout: 180_000 }, async () => {
    // Defect pinned: the group's SIGINT killed `ipset restore` at once (the wrapper logged
    // "end … 130"), so the grace period never applied and sets were left half-filled.
    const ns = await createTestNamespace('a6-ctrlc');
    try {
      const sets = Array.from({ length: 20 }, (_, i) => ({ name: `s${i}`, members: members(i, 500) }));
      await writeFile(join(dir, 'twenty.json'), JSON.stringify({ sets: sets.map((s) => ({ type: 'namespace', ...s })) }));
      await writeFile(restoreLog, '');
      const apply = execa(process.execPath, [BIN, 'apply', 'twenty.json', '--netns', ns.name, '--ipset', wrapper, '--log-format', 'json', '--json'], {
        cwd: dir,
        reject: false,
        env: { NO_COLOR: '1' },
        stdin: 'ignore',
        // A job of its own, as a shell starts a foreground command.
        detached: true,
        timeout: 170_000,
      });
      for (let i = 0; i < 1500 && !(await readFile(restoreLog, 'utf8')).includes('start'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(await readFile(restoreLog, 'utf8')).toContain('start');
      process.kill(-apply.pid!, 'SIGINT');
      const result = await apply;
      const log = (await readFile(restoreLog, 'utf8')).trim().split('\n');
      expect(log.filter((l) => l.startsWith('end')).every((l) => l.endsWith(' 0')), log.join(' | ')).toBe(true);
      expect(result.exitCode, String(result.stdout) + String(result.stderr)).toBe(0);
      const lines = String(result.stderr).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toContainEqual(expect.objectContaining({ signal: 'SIGINT' }));
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', signal: 'SIGINT', converged: true, exitCode: 0 });
      const report = JSON.parse(String(result.stdout)) as { schemaVersion: number; converged: boolean };
      expect(report).toMatchObject({ schemaVersion: 1, converged: true });
      expect(await ownedSets(ns)).toEqual(new Map(sets.map((s) => [kernelName(`ns-${s.name}`, { owner: DEFAULT_CLI_OWNER }), [...s.members].sort()])));
      console.info(`[a6] SIGINT to the group of ipsets apply mid-restore: exit ${result.exitCode}; restores: ${log.join(' | ')}`);
    } finally {
      await ns.dispose();
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });
});
