import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planReconcile, renderRestore } from '@ipsets/core';
import { planCommand } from '../../../src/commands/plan.js';
import { planToJson } from '../../../src/output/plan-json.js';
import { CHUNK_CHARS } from '../../../src/output/write-chunks.js';
import { bigDesired, bigDesiredText } from '../../helpers/big-plans.js';
import { captureIo } from '../../helpers/capture-io.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipsets-plan-a4-'));
  await writeFile(join(dir, 'big.json'), bigDesiredText(3, 10_000));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Defect pinned: `plan --json` built its whole document as one string, so a plan of
// 3.4M lines failed with "RangeError: Invalid string length" (and a 1M-member plan took
// 1.7 GB). It is written in pieces now; these runs are small enough for CI, and fail
// when the document (or the restore text) reaches stdout in one write.
describe('ipsets plan writes a large plan in pieces', () => {
  it('--json: the same bytes as the document built whole, in writes of about 64 KiB', async () => {
    const io = captureIo(dir);
    expect(await planCommand('big.json', { json: true }, io)).toBe(0);
    const plan = planReconcile(bigDesired(3, 10_000), { sets: [], problems: [] }, []);
    expect(io.out).toBe(JSON.stringify({ schemaVersion: 1, ...planToJson(plan) }, null, 2) + '\n');
    expect(io.out.length).toBeGreaterThan(8_000_000);
    expect(Math.max(...io.writes)).toBeLessThan(2 * CHUNK_CHARS);
    expect(io.writes.length).toBeGreaterThan(100);
  });

  it('text: the restore text, then the counts on stderr', async () => {
    const io = captureIo(dir);
    expect(await planCommand('big.json', {}, io)).toBe(0);
    const plan = planReconcile(bigDesired(3, 10_000), { sets: [], problems: [] }, []);
    expect(io.out).toBe(renderRestore(plan));
    expect(io.err).toBe('ipsets: plan against an empty kernel: create 3, add 30,000\n');
    expect(Math.max(...io.writes)).toBeLessThan(2 * CHUNK_CHARS);
  });
});
