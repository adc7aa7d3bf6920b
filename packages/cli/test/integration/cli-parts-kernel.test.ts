/**
 * A desired state made of parts, against the REAL kernel inside a network namespace
 * this test creates and deletes: 200,000 members split over 8 parts (each under the
 * 1 MiB a ConfigMap holds, three of them gzip), laid out as the kubelet lays out a
 * projected volume. `ipsets apply DIR` makes `ipset save` equal to the parts; the agent
 * on the same folder re-reads only the part a `..data` swap replaced (its log line names
 * it) and converges; a part that declares a set another part declares is refused naming
 * both files, and the kernel keeps the other parts' state.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kernelName, parseSave } from '@ipsets/core';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { describeKernel } from '../helpers/kernel.js';
import { writeProjectedVolume } from '../helpers/projected-volume.js';
import { ipsets, spawnIpsets, tempDir } from '../helpers/run-ipsets.js';
import { DEFAULT_CLI_OWNER } from '../../src/defaults.js';

const PARTS = 8;
const SETS_PER_PART = 5;
const MEMBERS_PER_SET = 5000;

interface PartSet {
  name: string;
  members: string[];
}

/** The hash sets of part `p`: 5 sets of 5,000 distinct IPv4 members each. */
function partSets(p: number, shift = 0): PartSet[] {
  return Array.from({ length: SETS_PER_PART }, (_, s) => ({
    name: `p${p}-s${s}`,
    members: Array.from({ length: MEMBERS_PER_SET }, (_, i) => {
      const n = i + shift;
      return `10.${p * 16 + s}.${(n >> 8) & 255}.${n & 255}`;
    }),
  }));
}

/** A list in part 0 whose members are declared in parts 3 and 7. */
const LIST = { type: 'keyLabelOfNamespace', name: 'team', members: [{ type: 'namespace', name: 'p3-s0' }, { type: 'namespace', name: 'p7-s4' }] };

function partText(p: number, sets: PartSet[], extra: readonly object[] = []): string {
  const doc = { sets: [...sets.map((s) => ({ type: 'namespace', name: s.name, members: s.members })), ...extra] };
  return p % 2 === 0 ? JSON.stringify(doc) : `sets:\n${doc.sets.map((s) => `  - ${JSON.stringify(s)}\n`).join('')}`;
}

/** Part file name: parts 5-7 are gzip (binaryData). */
function partName(p: number): string {
  const ext = p % 2 === 0 ? 'json' : 'yaml';
  return p >= 5 ? `part-${p}.${ext}.gz` : `part-${p}.${ext}`;
}

function payloadOf(sets: PartSet[][], extras: Record<number, object[]> = {}): Record<string, string | Buffer> {
  const out: Record<string, string | Buffer> = {};
  for (let p = 0; p < PARTS; p++) {
    const text = partText(p, sets[p]!, p === 0 ? [LIST, ...(extras[p] ?? [])] : (extras[p] ?? []));
    out[partName(p)] = p >= 5 ? gzipSync(text) : text;
  }
  return out;
}

const kname = (set: string) => kernelName(`ns-${set}`, { owner: DEFAULT_CLI_OWNER });
const klist = kernelName('nslabel-team', { owner: DEFAULT_CLI_OWNER });

/** The owned sets `ipset save` should show: name → sorted members. */
function expected(sets: PartSet[][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of sets) for (const s of part) out.set(kname(s.name), [...s.members].sort());
  out.set(klist, [kname('p3-s0'), kname('p7-s4')].sort());
  return out;
}

async function kernelSets(ns: TestNamespace): Promise<Map<string, string[]>> {
  const save = parseSave((await ns.run(['ipset', 'save'])).stdout);
  return new Map(save.sets.filter((s) => s.name.startsWith(DEFAULT_CLI_OWNER)).map((s) => [s.name, [...s.members].sort()]));
}

describeKernel('a desired state made of parts on the real kernel (network namespace)', () => {
  let ns: TestNamespace;
  let dir: string;
  let cleanup: () => Promise<void>;
  let volume: string;
  const sets = Array.from({ length: PARTS }, (_, p) => partSets(p));

  beforeAll(async () => {
    ns = await createTestNamespace('parts');
    ({ dir, cleanup } = await tempDir());
    volume = join(dir, 'desired');
  });
  afterAll(async () => {
    await ns?.dispose();
    if (ns !== undefined) await rm(`/run/ipsets/${ns.name}.lock`, { force: true });
    await cleanup?.();
  });

  it('apply DIR: 200,000 members over 8 parts (each < 1 MiB, three gzip) make ipset save equal to the parts', async () => {
    const payload = payloadOf(sets);
    for (const [name, content] of Object.entries(payload)) expect(Buffer.byteLength(content), name).toBeLessThan(1024 * 1024);
    expect(Object.keys(payload).filter((n) => n.endsWith('.gz'))).toHaveLength(3);
    await writeProjectedVolume(volume, payload);
    const started = performance.now();
    const apply = await ipsets(['apply', 'desired', '--netns', ns.name], { cwd: dir });
    const ms = performance.now() - started;
    expect(apply.exitCode, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('converged');
    const kernel = await kernelSets(ns);
    expect([...kernel.values()].reduce((n, m) => n + m.length, 0)).toBe(PARTS * SETS_PER_PART * MEMBERS_PER_SET + 2);
    expect(kernel).toEqual(expected(sets));
    console.info(`[parts] apply of 200,000 members in 8 parts (3 gzip), real kernel: ${Math.round(ms)} ms wall (process start included)`);
  });

  it('agent DIR: a ..data swap that replaces one part re-reads that part only and converges; a part redeclaring another part\'s set is refused naming both, the kernel keeps the rest', async () => {
    const agent = spawnIpsets(['agent', 'desired', '--netns', ns.name, '--no-metrics', '--interval', '60s', '--debounce', '200ms', '--log-format', 'json'], { cwd: dir });
    let stderr = '';
    agent.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const lines = () => stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    const until = async (test: (l: Record<string, unknown>) => boolean, from = 0) => {
      for (let i = 0; i < 1200; i++) {
        const hit = lines().slice(from).find(test);
        if (hit !== undefined) return hit;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`timed out; agent stderr:\n${stderr}`);
    };
    try {
      await until((l) => l['msg'] === 'apply converged' && l['trigger'] === 'start');
      expect(lines().find((l) => l['msg'] === 'agent started')).toMatchObject({ parts: PARTS });

      // Part 3 changes: its first set drops 500 members and gains 500 others.
      const next = sets.map((part) => part.map((s) => ({ ...s, members: [...s.members] })));
      next[3]![0] = { name: 'p3-s0', members: partSets(3, 500)[0]!.members };
      const mark = lines().length;
      const swapped = performance.now();
      await writeProjectedVolume(volume, payloadOf(next));
      const converged = await until((l) => l['msg'] === 'apply converged' && l['trigger'] === 'file changed', mark);
      const took = performance.now() - swapped;
      const reread = lines().slice(mark).filter((l) => l['msg'] === 'desired part changed; re-read it');
      expect(reread.map((l) => l['part'])).toEqual([join(volume, 'part-3.yaml')]);
      expect(converged['linesApplied']).toBeGreaterThan(0);
      expect(await kernelSets(ns)).toEqual(expected(next));
      console.info(`[parts] agent: one part of 8 replaced by a ..data swap, converged in ${Math.round(took)} ms (debounce 200 ms; the apply itself ${String(converged['durationMs'])} ms)`);

      // Part 2 now also declares p6-s1, which the gzip part 6 declares.
      const before = await kernelSets(ns);
      const mark2 = lines().length;
      await writeProjectedVolume(volume, payloadOf(next, { 2: [{ type: 'namespace', name: 'p6-s1', members: ['10.200.0.1'] }] }));
      const refused = await until((l) => String(l['msg']).includes('keeping the last good state'), mark2);
      const why = JSON.stringify(refused['err']);
      expect(why).toContain(join(volume, 'part-2.json'));
      expect(why).toContain(join(volume, 'part-6.json.gz'));
      expect(why).toContain('is declared in both');
      // Give a (wrong) apply the time to happen: the kernel must still hold every part's last good state.
      await new Promise((r) => setTimeout(r, 1000));
      expect(await kernelSets(ns)).toEqual(before);
    } finally {
      agent.kill('SIGTERM');
      const result = await agent;
      expect(result.exitCode, stderr).toBe(0);
    }
  });
});
