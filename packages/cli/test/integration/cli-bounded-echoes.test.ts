/**
 * Reports quote a bounded excerpt of what ipset printed. Defect pinned: ipset's whole
 * stderr was copied into the apply report (200 MB of stderr → a 200 MB report at
 * 1.5 GB RSS). A fake ipset prints 200 MB on every restore attempt.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ipsets, tempDir } from '../helpers/run-ipsets.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

describe('ipsets apply against an ipset that floods stderr', () => {
  it('a 200 MB stderr gives a JSON report under 64 KiB that still quotes ipset\'s error', { timeout: 120_000 }, async () => {
    const fake = join(dir, 'noisy-ipset');
    await writeFile(
      fake,
      `#!/bin/sh
case "$*" in
  *restore*) cat > /dev/null; echo 'ipset v7.17: Error in line 1: Syntax error: first' >&2; head -c 200000000 /dev/zero | tr '\\0' x >&2; exit 1;;
  *--version*) echo 'ipset v7.17, protocol version: 7';;
esac
exit 0
`,
    );
    await chmod(fake, 0o755);
    await writeFile(join(dir, 'd.json'), JSON.stringify({ sets: [{ type: 'namespace', name: 'a', members: ['10.0.0.1'] }] }));
    // Its own lock file: a test never takes the host's.
    const run = await ipsets(['apply', 'd.json', '--ipset', fake, '--lock-file', join(dir, 'k.lock'), '--json'], { cwd: dir });
    expect(run.exitCode).toBe(1);
    expect(Buffer.byteLength(run.stdout)).toBeLessThan(64 * 1024);
    // ipset's own error, classified from the head that was kept.
    expect(JSON.parse(run.stdout)).toMatchObject({ attempts: [{ error: { kind: 'syntax', line: 1, message: expect.stringMatching(/^Syntax error: first\n/) } }] });
  });
});
