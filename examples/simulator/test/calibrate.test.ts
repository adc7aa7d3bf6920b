import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { kernelTestGate } from '@ipsets/exec-linux/testing';
import { createDescribeKernel } from '@ipsets/testing/vitest';

const run = promisify(execFile);
const CLI = join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'cli.js');
const describeKernel = await createDescribeKernel(kernelTestGate);

describeKernel('ipsets-simulate --calibrate (real kernel, in namespaces it creates and deletes)', () => {
  it('measures every row of the cost model, the kernel rows on the real kernel, and prints it as a CostModel', async () => {
    const { stdout } = await run(process.execPath, [CLI, '--calibrate'], { timeout: 280_000, maxBuffer: 16 * 2 ** 20 });
    const model = JSON.parse(stdout.slice(stdout.indexOf('\n{') + 1)) as Record<string, Record<string, number> | string>;
    expect(model['measured']).toMatch(/kernel rows real/);
    for (const group of ['kernel', 'agent', 'memory']) {
      for (const [name, value] of Object.entries(model[group] as Record<string, number>)) {
        expect(Number.isFinite(value), `${group}.${name}`).toBe(true);
        expect(value, `${group}.${name}`).toBeGreaterThanOrEqual(name === 'reconcileFixedUs' ? 0 : Number.MIN_VALUE);
      }
    }
    // The real agent ran at both sizes, and the model was checked against its ticks.
    expect(stdout).toMatch(/agent process, \d+ members: steady RSS [\d.]+ MiB, peak [\d.]+ MiB, [\d.]+ ms CPU per tick/);
    expect(stdout).toMatch(/model: one converged tick \d+ members [\d.]+ ms; \d+ members [\d.]+ ms/);
  }, 300_000);
});
