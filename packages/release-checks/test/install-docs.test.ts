/**
 * The operator's guide's install from packed tarballs works as written (it said
 * `npm install -g @ipsets/cli`, a package that is not published). The guide's own block
 * is run with bash from this checkout, with only its install locations moved into a
 * temporary folder, and the installed command must answer `--version` and plan.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/repo.js';

const work = mkdtempSync(join(tmpdir(), 'ipsets-h28-install-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The sh block under the guide's "From packed tarballs" heading. */
function guideBlock(): string {
  const guide = readFileSync(join(ROOT, 'docs/operating.md'), 'utf8');
  const section = guide.slice(guide.indexOf('#### From packed tarballs'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  expect(block, 'the guide has an install block').not.toBeNull();
  return block![1]!;
}

describe('docs/operating.md: installing from packed tarballs', () => {
  it('runs as written and installs a working ipsets command', { timeout: 300_000 }, () => {
    const block = guideBlock();
    // The release checks run after the build; the rest runs unchanged but for where it installs.
    expect(block.split('\n')[0]).toBe('npm run build');
    const prefix = join(work, 'opt');
    const bin = join(work, 'bin');
    const script = [
      'set -euo pipefail',
      `mkdir -p ${JSON.stringify(bin)}`,
      ...block
        .split('\n')
        .slice(1)
        .map((line) => line.replaceAll('/opt/ipsets-cli', prefix).replaceAll('/usr/local/bin/ipsets', join(bin, 'ipsets')).replace(/^ipsets /, `${join(bin, 'ipsets')} `)),
    ].join('\n');
    const run = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 240_000, env: { ...process.env, NO_COLOR: '1' } });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^ipsets \d+\.\d+\.\d+\n/m);
    const plan = spawnSync(join(bin, 'ipsets'), ['plan', join(ROOT, 'examples/small.yaml')], { encoding: 'utf8' });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^-N ipsets-[0-9a-z]+ --exist nethash$/m);
  });
});
