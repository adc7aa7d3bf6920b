/**
 * End-to-end on the fake kernel: the destroy budget. Defect pinned: only a file with
 * no sets at all was refused, so a block-YAML file cut after 1 of its 50 sets was
 * valid and destroyed the other 49. Now an apply or agent tick that would destroy more
 * than half of the owned sets the kernel holds, and more than 10 of them, is refused
 * (bad input, nothing changed) unless `--allow-destroy`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSave } from '@ipsets/core';
import { ipsets, jsonLines, spawnIpsets, tempDir, watchText } from '../helpers/run-ipsets.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

/** A block-YAML file of namespace sets ns0…ns(n-1), one member each. */
function sets(n: number): string {
  return `sets:\n${Array.from({ length: n }, (_, i) => `  - type: namespace\n    name: ns${i}\n    members:\n      - 10.0.${i}.1\n`).join('')}`;
}

async function ownedSets(): Promise<number> {
  return parseSave((await ipsets(['save', '--kernel', 'fake'], { cwd: dir })).stdout).sets.length;
}

describe('the destroy budget', () => {
  it('apply: a file cut to 1 of its 50 sets is refused (exit 2, naming the counts) unless --allow-destroy; ordinary churn is applied', async () => {
    const full = sets(50);
    await writeFile(join(dir, 'd.yaml'), full);
    expect((await ipsets(['apply', '--kernel', 'fake', 'd.yaml'], { cwd: dir })).exitCode).toBe(0);
    // Cut after the first set: still a valid file.
    await writeFile(join(dir, 'cut.yaml'), full.slice(0, full.indexOf('  - type', 10)));
    const refused = await ipsets(['apply', '--kernel', 'fake', 'cut.yaml'], { cwd: dir });
    expect(refused.exitCode, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^ipsets: error: cut\.yaml would destroy 49 of the 50 owned sets in the kernel \(more than half, and more than 10\); nothing was changed\. A cut or badly rendered file looks like this: check it, or give --allow-destroy to destroy them on purpose/,
    );
    expect(await ownedSets()).toBe(50);
    // The agent refuses it the same way, not counted toward --max-failures.
    const agent = await ipsets(['agent', '--kernel', 'fake', 'cut.yaml', '--once', '--no-metrics'], { cwd: dir });
    expect(agent.exitCode, agent.stderr).toBe(2);
    expect(agent.stderr).toContain('"consecutiveFailures":0');
    expect(agent.stderr).toContain('would destroy 49 of the 50 owned sets');
    expect(await ownedSets()).toBe(50);

    // Ordinary churn: 10 of 50 go (at most 10), then 20 of 40 (half, not more).
    await writeFile(join(dir, 'd.yaml'), sets(40));
    expect((await ipsets(['apply', '--kernel', 'fake', 'd.yaml'], { cwd: dir })).exitCode).toBe(0);
    await writeFile(join(dir, 'd.yaml'), sets(20));
    expect((await ipsets(['apply', '--kernel', 'fake', 'd.yaml'], { cwd: dir })).exitCode).toBe(0);
    expect(await ownedSets()).toBe(20);
    // 11 of 20: more than half and more than 10.
    await writeFile(join(dir, 'd.yaml'), sets(9));
    const eleven = await ipsets(['apply', '--kernel', 'fake', 'd.yaml'], { cwd: dir });
    expect(eleven.exitCode).toBe(2);
    expect(eleven.stderr).toContain('would destroy 11 of the 20 owned sets');

    const allowed = await ipsets(['apply', '--kernel', 'fake', 'cut.yaml', '--allow-destroy'], { cwd: dir });
    expect(allowed.exitCode, allowed.stdout + allowed.stderr).toBe(0);
    expect(await ownedSets()).toBe(1);
    // --allow-destroy also lets a file with no sets empty the node (the extreme case).
    await writeFile(join(dir, 'empty.yaml'), 'sets: []\n');
    expect((await ipsets(['apply', '--kernel', 'fake', 'empty.yaml'], { cwd: dir })).exitCode).toBe(2);
    expect((await ipsets(['apply', '--kernel', 'fake', 'empty.yaml', '--allow-destroy'], { cwd: dir })).exitCode).toBe(0);
    expect(await ownedSets()).toBe(0);
  });

  it('agent: the cut file is refused on a tick, /readyz 503 says why, the kernel keeps its 50 sets, then the full file is applied again', async () => {
    const full = sets(50);
    const file = join(dir, 'd.yaml');
    await writeFile(file, full);
    const agent = spawnIpsets(['agent', '--kernel', 'fake', 'd.yaml', '--metrics-bind-address', '127.0.0.1:0', '--interval', '1s', '--debounce', '50ms', '--max-failures', '2'], { cwd: dir });
    const err = watchText(agent.stderr!);
    try {
      const [, port] = await err.waitFor(/"address":"127\.0\.0\.1:(\d+)"/, true);
      await err.waitFor(/"trigger":"start","converged":true/, true);
      const refused = err.waitFor(/the desired state was refused; keeping the last good state/);
      await writeFile(file, full.slice(0, full.indexOf('  - type', 10)));
      await refused;
      const probe = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(probe.status).toBe(503);
      expect(await probe.text()).toContain('would destroy 49 of the 50 owned sets');
      // Several interval ticks later: still refused, never counted as failures (--max-failures 2).
      await new Promise((r) => setTimeout(r, 3000));
      expect(await ownedSets()).toBe(50);
      const back = err.waitFor(/"converged":true/);
      await writeFile(file, full);
      await back;
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      agent.kill('SIGTERM');
    }
    const result = await agent;
    expect(result.exitCode, err.text).toBe(0);
    expect(jsonLines(err.text).filter((l) => l['msg'] === 'apply failed')).toEqual([]);
  }, 60_000);
});
