/**
 * End-to-end on the REAL kernel, inside network namespaces this file creates and
 * deletes: what a node's operator does to `ipsets` — several writers at once, a hung
 * ipset, SIGTERM in the middle of a big apply, a set that can never converge. An
 * `--ipset` wrapper script logs the start and end of every restore (with the pid of
 * the ipsets process that ran it) and then runs the real ipset.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { readKernelLockHolder } from '@ipsets/exec-linux';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { describeKernel } from '../helpers/kernel.js';
import { BIN, ipsets, spawnIpsets, tempDir } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

const REAL_IPSET = '/usr/sbin/ipset';
const SHARED = kernelName('ns-shared', { owner: DEFAULT_CLI_OWNER });

/** Members 10.<a>.<b>.<c> for i in [0, n): distinct per `a`. */
function members(a: number, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`10.${a}.${(i >> 8) & 255}.${i & 255}`);
  return out;
}

function desiredYaml(sets: { name: string; members: string[] }[]): string {
  return `sets:\n${sets.map((s) => `  - type: namespace\n    name: ${s.name}\n    members: [${s.members.join(', ')}]\n`).join('')}`;
}

/** Owned sets of a namespace's kernel, name -> sorted members. */
async function ownedSets(ns: TestNamespace): Promise<Map<string, string[]>> {
  const save = parseSave((await ns.run(['ipset', 'save'])).stdout);
  return new Map(save.sets.filter((s) => s.name.startsWith(DEFAULT_CLI_OWNER)).map((s) => [s.name, [...s.members].sort()]));
}

function expected(sets: { name: string; members: string[] }[]): Map<string, string[]> {
  return new Map(sets.map((s) => [kernelName(`ns-${s.name}`, { owner: DEFAULT_CLI_OWNER }), [...s.members].sort()]));
}

describeKernel('ipsets on a node (real kernel, network namespaces)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let wrapper: string;
  let restoreLog: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    restoreLog = join(dir, 'restores.log');
    wrapper = join(dir, 'logging-ipset');
    // `ip netns exec` execs the wrapper: its parent is the ipsets process.
    await writeFile(
      wrapper,
      `#!/bin/sh
case "$*" in
  *restore*)
    echo "start $PPID $(date +%s%N)" >> ${restoreLog}
    ${REAL_IPSET} "$@"; rc=$?
    echo "end $PPID $(date +%s%N) $rc" >> ${restoreLog}
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

  it('5 concurrent applies with different files: one restore at a time, exit codes true, the final kernel exactly one file, foreign sets untouched', { timeout: 180_000 }, async () => {
    const ns = await createTestNamespace('h4-lock');
    try {
      await ns.run(['ipset', 'create', 'foreign-h4', 'hash:ip']);
      for (const ip of ['192.0.2.1', '192.0.2.2']) await ns.run(['ipset', 'add', 'foreign-h4', ip]);
      const foreignBefore = (await ns.run(['ipset', 'save', 'foreign-h4'])).stdout;
      const files = [1, 2, 3, 4, 5].map((i) => [
        { name: 'shared', members: members(i, 20_000) },
        { name: `only${i}`, members: members(100 + i, 50) },
      ]);
      for (const [i, sets] of files.entries()) await writeFile(join(dir, `f${i}.yaml`), desiredYaml(sets));
      await writeFile(restoreLog, '');

      const procs = files.map((_, i) => spawnIpsets(['apply', `f${i}.yaml`, '--netns', ns.name, '--ipset', wrapper, '--wait', '2m', '--json'], { cwd: dir }));
      const results = await Promise.all(procs);
      const pids = procs.map((p) => p.pid);

      // Never more than one restore at a time, and each process's restores in one block.
      const events = (await readFile(restoreLog, 'utf8')).trim().split('\n').map((l) => l.split(' '));
      let open = 0;
      let maxOpen = 0;
      const blocks: number[] = [];
      for (const [kind, pid] of events) {
        open += kind === 'start' ? 1 : -1;
        maxOpen = Math.max(maxOpen, open);
        if (blocks.at(-1) !== Number(pid)) blocks.push(Number(pid));
      }
      expect(maxOpen).toBe(1);
      expect(new Set(blocks).size).toBe(blocks.length);

      // Every process converged inside its own block: exit 0 means the kernel held its file when it let go.
      for (const [i, r] of results.entries()) {
        expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
        expect((JSON.parse(String(r.stdout)) as { converged: boolean; schemaVersion: number }).converged).toBe(true);
        expect(blocks).toContain(pids[i]);
      }
      const last = pids.indexOf(blocks.at(-1));
      expect(await ownedSets(ns)).toEqual(expected(files[last]!));
      expect((await ns.run(['ipset', 'save', 'foreign-h4'])).stdout).toBe(foreignBefore);
      console.info(`[h4] 5 concurrent applies: ${events.length / 2} restores, max ${maxOpen} at a time, final kernel = file ${last}`);
    } finally {
      await ns.dispose();
      // The lock file of a namespace that no longer exists.
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });

  it('a second writer exits 4 naming the holder pid once --wait ran out; readers never wait', async () => {
    const ns = await createTestNamespace('h4-held');
    try {
      const slow = join(dir, 'slow-ipset');
      // The holder's restore waits until the test releases it, then runs for real (a fixed
      // sleep raced with a slow start of the second writer on a busy machine).
      const release = join(dir, 'release-holder');
      await rm(release, { force: true });
      await writeFile(slow, `#!/bin/sh\ncase "$*" in\n  *restore*) while [ ! -e ${release} ]; do sleep 0.1; done;;\nesac\nexec ${REAL_IPSET} "$@"\n`, { mode: 0o755 });
      await writeFile(join(dir, 'held.yaml'), desiredYaml([{ name: 'held', members: members(40, 5) }]));
      await writeFile(restoreLog, '');
      const holder = spawnIpsets(['apply', 'held.yaml', '--netns', ns.name, '--ipset', slow], { cwd: dir });
      let holderDone = false;
      void holder.finally(() => (holderDone = true));
      // Wait until the holder has the lock: its record names its pid. (Waiting for its
      // `sleep 8` with pgrep raced: the `sh -c 'pgrep -f "sleep 8"'` that asks matches
      // itself, so the second writer could start before the holder took the lock.)
      const lockPath = `/run/ipsets/${ns.name}.lock`;
      for (let i = 0; i < 600 && (await readKernelLockHolder(lockPath))?.pid !== holder.pid; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await readKernelLockHolder(lockPath))?.pid, 'the holder took the lock within 30 s').toBe(holder.pid);
      const started = Date.now();
      const second = await ipsets(['apply', 'held.yaml', '--netns', ns.name, '--wait', '1s'], { cwd: dir });
      expect(second.exitCode, second.stdout + second.stderr).toBe(4);
      expect(second.stderr).toContain(String(holder.pid));
      const json = await ipsets(['reset', '--netns', ns.name, '--wait', '500ms', '--json'], { cwd: dir });
      expect(json.exitCode).toBe(4);
      expect(JSON.parse(json.stdout)).toMatchObject({ schemaVersion: 1, exitCode: 4, error: { code: 'LOCK_HELD' } });
      const readerStarted = Date.now();
      const reader = await ipsets(['diff', 'held.yaml', '--netns', ns.name], { cwd: dir });
      expect(reader.exitCode, reader.stderr).toBe(0);
      const readerMs = Date.now() - readerStarted;
      // The reader ended while the writer still held the lock.
      expect(holderDone).toBe(false);
      await writeFile(release, '');
      expect((await holder).exitCode).toBe(0);
      console.info(`[h4] lock held by pid ${holder.pid}: a second apply exited 4 naming it; reset --json exited 4; diff ran in ${readerMs} ms while the lock was held (writers: ${readerStarted - started} ms)`);
      console.info(`[h4] the message: ${second.stderr.trim().split('\n').at(-1)}`);
    } finally {
      await ns.dispose();
      // The lock file of a namespace that no longer exists.
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });

  it('a hung ipset ends apply within its timeout plus a few seconds with exit 1 and a report; the next apply converges', async () => {
    const ns = await createTestNamespace('h4-hang');
    try {
      const hung = join(dir, 'hung-ipset');
      // Applies the first 2,500 lines for real, then hangs with the rest of stdin unread.
      await writeFile(
        hung,
        `#!/bin/sh\ncase "$*" in\n  *restore*) date +%s%3N > ${join(dir, 'hang-started')}; head -n 2500 | ${REAL_IPSET} "$@"; exec sleep 1000;;\nesac\nexec ${REAL_IPSET} "$@"\n`,
        { mode: 0o755 },
      );
      const sets = [{ name: 'big', members: members(7, 6000) }, { name: 'small', members: members(8, 10) }];
      await writeFile(join(dir, 'hang.yaml'), desiredYaml(sets));
      const started = Date.now();
      const run = await ipsets(['apply', 'hang.yaml', '--netns', ns.name, '--ipset', hung, '--timeout', '3s'], { cwd: dir });
      const took = Date.now() - started;
      // From the start of the hung restore to the exit: the timeout plus a few seconds
      // (Node's start and the file's load before it are not the timeout's business).
      const hungFor = Date.now() - Number((await readFile(join(dir, 'hang-started'), 'utf8')).trim());
      expect(run.exitCode, run.stdout + run.stderr).toBe(1);
      expect(hungFor).toBeLessThan(3000 + 5000);
      expect(run.stdout).toContain('ran longer than --timeout 3000 ms');
      // The report names the sets that did not (fully) reach the kernel.
      expect(run.stdout).toContain(kernelName('ns-big', { owner: DEFAULT_CLI_OWNER }));
      expect(run.stdout).toMatch(/sets: .*failed \(/);
      const half = (await ownedSets(ns)).get(kernelName('ns-big', { owner: DEFAULT_CLI_OWNER }))?.length ?? 0;
      expect(half).toBeGreaterThan(0);
      expect(half).toBeLessThan(6000);

      const again = await ipsets(['apply', 'hang.yaml', '--netns', ns.name], { cwd: dir });
      expect(again.exitCode, again.stdout + again.stderr).toBe(0);
      expect(await ownedSets(ns)).toEqual(expected(sets));
      console.info(`[h4] hung ipset: apply ended after ${took} ms (timeout 3000 ms), ${half}/6000 members were in the kernel; the next apply converged`);
    } finally {
      await ns.dispose();
      // The lock file of a namespace that no longer exists.
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });

  it('SIGTERM during a 200,000-member agent apply: exit 0 within the grace period, JSON stop lines, the kernel exactly desired after the next start', { timeout: 180_000 }, async () => {
    const ns = await createTestNamespace('h4-term');
    try {
      // 200,000 members in 4 sets (a namespace set holds at most 65,536).
      const sets = [20, 21, 22, 23].map((a) => ({ name: `huge${a}`, members: members(a, 50_000) }));
      // JSON: a 200,000-member YAML flow list takes many seconds to parse on a busy machine.
      await writeFile(join(dir, 'huge.yaml'), JSON.stringify({ sets: sets.map((s) => ({ type: 'namespace', ...s })) }));
      await writeFile(restoreLog, '');
      const agent = spawnIpsets(['agent', 'huge.yaml', '--netns', ns.name, '--ipset', wrapper, '--no-metrics', '--grace', '20s'], { cwd: dir });
      // Wait for the restore to begin, then stop the agent in the middle of it.
      for (let i = 0; i < 1200 && !(await readFile(restoreLog, 'utf8')).includes('start'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await readFile(restoreLog, 'utf8')).toContain('start');
      const signalled = Date.now();
      agent.kill('SIGTERM');
      const result = await agent;
      const took = Date.now() - signalled;
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(took).toBeLessThan(20_000);
      const lines = String(result.stderr).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'stop requested; letting the apply in flight finish', signal: 'SIGTERM' }));
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', signal: 'SIGTERM', exitCode: 0 });
      const log = (await readFile(restoreLog, 'utf8')).trim().split('\n');
      expect(log.some((l) => l.startsWith('end'))).toBe(true);

      // The next start: the kernel is (or becomes) exactly desired.
      const next = await ipsets(['agent', 'huge.yaml', '--netns', ns.name, '--once'], { cwd: dir });
      expect(next.exitCode, next.stderr).toBe(0);
      const diff = await ipsets(['diff', 'huge.yaml', '--netns', ns.name, '--exit-code'], { cwd: dir });
      expect(diff.exitCode, diff.stdout).toBe(0);
      expect(await ownedSets(ns)).toEqual(expected(sets));
      console.info(`[h4] SIGTERM during a 200,000-member restore: agent exited 0 after ${took} ms (grace 20 s); restores logged: ${log.join(' | ')}`);
    } finally {
      await ns.dispose();
      // The lock file of a namespace that no longer exists.
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });

  it('SIGTERM during apply: the restore in flight finishes, a JSON stop line, the exit code of the report (here 0, converged)', { timeout: 180_000 }, async () => {
    const ns = await createTestNamespace('h4-aterm');
    try {
      // 100 sets: the defect left 6 of 100 filled and exited 143.
      const sets = Array.from({ length: 100 }, (_, i) => ({ name: `s${i}`, members: members(i, 500) }));
      await writeFile(join(dir, 'hundred.json'), JSON.stringify({ sets: sets.map((s) => ({ type: 'namespace', ...s })) }));
      await writeFile(restoreLog, '');
      const apply = spawnIpsets(['apply', 'hundred.json', '--netns', ns.name, '--ipset', wrapper, '--log-format', 'json'], { cwd: dir });
      for (let i = 0; i < 1200 && !(await readFile(restoreLog, 'utf8')).includes('start'); i++) await new Promise((r) => setTimeout(r, 20));
      apply.kill('SIGTERM');
      const result = await apply;
      expect(result.exitCode, String(result.stdout) + String(result.stderr)).toBe(0);
      const lines = String(result.stderr).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'stop requested: the restore in flight may finish, no other starts', signal: 'SIGTERM' }));
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', signal: 'SIGTERM', converged: true, exitCode: 0 });
      expect(await ownedSets(ns)).toEqual(expected(sets));
      console.info(`[h4] SIGTERM during apply of 100 sets: exit ${result.exitCode}, ${(await ownedSets(ns)).size}/100 sets complete`);
    } finally {
      await ns.dispose();
      // The lock file of a namespace that no longer exists.
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });

  it('every stderr line of a whole agent run parses as JSON: a failing set, a bad file, a stop', async () => {
    const ns = await createTestNamespace('h4-json');
    try {
      const stuck = kernelName('ns-stuck', { owner: DEFAULT_CLI_OWNER });
      await ns.run(['ipset', 'create', stuck, 'hash:ip', 'maxelem', '4']);
      await ns.run(['iptables', '-A', 'OUTPUT', '-m', 'set', '--match-set', stuck, 'dst', '-j', 'ACCEPT']);
      const file = join(dir, 'json-run.yaml');
      await writeFile(file, desiredYaml([{ name: 'stuck', members: members(31, 10) }, { name: 'fine', members: members(32, 10) }]));
      const agent = spawnIpsets(['agent', 'json-run.yaml', '--netns', ns.name, '--no-metrics', '--interval', '500ms', '--debounce', '50ms'], { cwd: dir });
      let stderr = '';
      agent.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const until = async (re: RegExp) => {
        for (let i = 0; i < 300 && !re.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
        expect(stderr).toMatch(re);
      };
      await until(/apply did not converge/);
      await writeFile(file, 'sets:\n  - { type: namespace, name: fine, members: [10.0.0.300] }\n');
      await until(/keeping the last good state/);
      agent.kill('SIGTERM');
      const result = await agent;
      expect(result.exitCode, stderr).toBe(0);
      const lines = stderr.trim().split('\n');
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const p of parsed) expect(p).toMatchObject({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) });
      expect(parsed).toContainEqual(expect.objectContaining({ msg: 'apply did not converge', failedSets: [stuck] }));
      expect(parsed.at(-1)).toMatchObject({ msg: 'stopped', exitCode: 0 });
      console.info(`[h4] a whole agent run (failing set, bad file, SIGTERM): ${lines.length} stderr lines, all JSON`);
    } finally {
      await ns.dispose();
      // The lock file of a namespace that no longer exists.
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });

  it('a set that can never converge raises ipsets_consecutive_failures and at --max-failures the agent exits 5; /livez stays 200, /readyz says 503', async () => {
    const ns = await createTestNamespace('h4-fail');
    try {
      // A foreign create of an owned name with a tiny maxelem, held by an iptables rule:
      // it cannot be recreated, so the set never reaches its desired state.
      const stuck = kernelName('ns-stuck', { owner: DEFAULT_CLI_OWNER });
      await ns.run(['ipset', 'create', stuck, 'hash:ip', 'maxelem', '4']);
      const rule = await ns.run(['iptables', '-A', 'OUTPUT', '-m', 'set', '--match-set', stuck, 'dst', '-j', 'ACCEPT']);
      expect(rule.exitCode, rule.stderr).toBe(0);
      await writeFile(join(dir, 'stuck.yaml'), desiredYaml([{ name: 'stuck', members: members(30, 10) }]));
      const agent = spawnIpsets(
        ['agent', 'stuck.yaml', '--netns', ns.name, '--metrics-bind-address', '127.0.0.1:0', '--interval', '700ms', '--max-failures', '4'],
        { cwd: dir },
      );
      let stderr = '';
      agent.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      let port: string | undefined;
      for (let i = 0; i < 200 && port === undefined; i++) {
        port = /"address":"127\.0\.0\.1:(\d+)"/.exec(stderr)?.[1];
        await new Promise((r) => setTimeout(r, 50));
      }
      const seen: number[] = [];
      // /livez and /readyz while sets fail but the limit is not reached yet: a failing set
      // never makes the agent not live. (Once the limit is reached the agent is on its way to
      // exit 5 and /livez may say 503 in the moment before it does: that is true, not checked.)
      const whileFailing: { live: number; ready: number }[] = [];
      for (let i = 0; i < 100; i++) {
        try {
          const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          const n = Number(/^ipsets_consecutive_failures (\d+)/m.exec(text)?.[1] ?? -1);
          if (seen.at(-1) !== n) seen.push(n);
          const live = (await fetch(`http://127.0.0.1:${port}/livez`)).status;
          const ready = (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
          const after = Number(/^ipsets_consecutive_failures (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1] ?? -1);
          if (n > 0 && after < 4) whileFailing.push({ live, ready });
        } catch {
          break; // the agent exited
        }
        await new Promise((r) => setTimeout(r, 150));
      }
      const result = await agent;
      expect(result.exitCode, stderr).toBe(5);
      expect(seen.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
      expect(Math.max(...seen)).toBeGreaterThanOrEqual(3);
      expect(whileFailing.length).toBeGreaterThan(0);
      expect(whileFailing).toEqual(whileFailing.map(() => ({ live: 200, ready: 503 })));
      for (const line of stderr.trim().split('\n')) JSON.parse(line);
      expect(stderr).toContain('the consecutive-failure limit was reached');
      console.info(`[h4] never-converging set: ipsets_consecutive_failures went ${seen.join(' -> ')}, agent exited ${result.exitCode}`);
    } finally {
      await ns.dispose();
      // The lock file of a namespace that no longer exists.
      await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    }
  });
});

// Keep the binary path in the report of a failure.
void BIN;
