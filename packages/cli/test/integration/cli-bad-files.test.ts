/**
 * End-to-end: bad desired-state files are refused as a whole — exit 2, a message
 * that names the path and quotes the value — and change nothing in the kernel.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipsets, tempDir } from '../helpers/run-ipsets.js';

let dir: string;
let cleanup: () => Promise<void>;
let stateBefore: string;

const GOOD = 'sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n';

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, 'good.yaml'), GOOD);
  const applied = await ipsets(['apply', '--kernel', 'fake', 'good.yaml'], { cwd: dir });
  expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
  stateBefore = await readFile(join(dir, '.ipsets-state.json'), 'utf8');
});
afterAll(async () => {
  await cleanup();
});

// Each bad file also carries a good change (a new member of ns-shop) that must not be applied.
const withGoodChange = (bad: string) => `sets:\n  - { type: namespace, name: shop, members: [10.0.0.1, 10.0.0.2] }\n${bad}`;

const CASES: { title: string; file: string; path: string; quoted: string; ext?: string }[] = [
  { title: 'an unknown type', file: withGoodChange('  - { type: podLabel, name: app }\n'), path: 'sets[1].type', quoted: '"podLabel"' },
  { title: 'an invalid IP', file: withGoodChange('  - { type: namespace, name: b, members: [10.0.0.256] }\n'), path: 'sets[1].members[0]', quoted: '"10.0.0.256"' },
  {
    title: 'an injection attempt: a newline in a member',
    file: withGoodChange('  - type: namespace\n    name: b\n    members: ["10.0.0.3\\n-X azure-npm-victim"]\n'),
    path: 'sets[1].members[0]',
    quoted: '"10.0.0.3\\n-X azure-npm-victim"',
  },
  {
    title: 'an injection attempt: a leading "-" in a member',
    file: withGoodChange('  - { type: cidrBlocks, name: c, members: ["-F azure-npm-victim"] }\n'),
    path: 'sets[1].members[0]',
    quoted: '"-F azure-npm-victim"',
  },
  {
    title: 'an injection attempt: a newline in a set name',
    file: withGoodChange('  - { type: namespace, name: "b\\n-X azure-npm-victim" }\n'),
    path: 'sets[1].name',
    quoted: '"b\\n-X azure-npm-victim"',
  },
  {
    title: 'an injection attempt: a "#" and a leading "-" in names (JSON)',
    file: JSON.stringify({ sets: [{ type: 'namespace', name: 'shop', members: ['10.0.0.2'] }, { type: 'namespace', name: '-X#' }] }),
    path: 'sets[1].name',
    quoted: '"-X#"',
    ext: 'json',
  },
  {
    title: 'a list containing itself',
    file: withGoodChange('  - type: nestedLabelOfPod\n    name: l\n    members: [{ type: nestedLabelOfPod, name: l }]\n'),
    path: 'sets[1].members[0]',
    quoted: '"l"',
  },
  {
    title: 'a list containing another list',
    file: withGoodChange(
      '  - { type: keyLabelOfNamespace, name: team }\n  - type: keyValueLabelOfNamespace\n    name: team:a\n    members: [{ type: keyLabelOfNamespace, name: team }]\n',
    ),
    path: 'sets[2].members[0]',
    quoted: '"team"',
  },
  {
    title: 'a kernel name over 31 characters (owner prefix too long)',
    file: `owner: this-owner-is-far-too-long-\n${withGoodChange('')}`,
    path: 'owner',
    quoted: '"this-owner-is-far-too-long-"',
  },
];

describe('bad files exit 2 and change nothing', () => {
  it.each(CASES)('$title', async ({ file, path, quoted, ext }) => {
    const name = `bad.${ext ?? 'yaml'}`;
    await writeFile(join(dir, name), file);
    for (const command of ['apply', 'plan', 'diff']) {
      const run = await ipsets([command, name, ...(command === 'plan' ? [] : ['--kernel', 'fake'])], { cwd: dir });
      expect(run.exitCode, `${command}: ${run.stderr}`).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`${name}: `);
      expect(run.stderr).toContain('nothing was applied');
      expect(run.stderr).toContain(`${path}: `);
      expect(run.stderr).toContain(quoted);
      expect(run.stderr).toContain('expected');
    }
    expect(await readFile(join(dir, '.ipsets-state.json'), 'utf8')).toBe(stateBefore);
  });

  it('the agent refuses a bad file at start (exit 2) and a metrics address without a port', async () => {
    await writeFile(join(dir, 'bad.yaml'), CASES[1]!.file);
    const bad = await ipsets(['agent', '--kernel', 'fake', 'bad.yaml'], { cwd: dir });
    expect(bad.exitCode, bad.stdout + bad.stderr).toBe(2);
    const noPort = await ipsets(['agent', '--kernel', 'fake', 'good.yaml', '--metrics-bind-address', '0.0.0.0'], { cwd: dir });
    expect(noPort.exitCode, noPort.stdout + noPort.stderr).toBe(2);
    expect(noPort.stderr).toContain('metrics address "0.0.0.0" has no port');
    expect(await readFile(join(dir, '.ipsets-state.json'), 'utf8')).toBe(stateBefore);
  });

  it('a missing file exits 2', async () => {
    const run = await ipsets(['apply', '--kernel', 'fake', 'nope.yaml'], { cwd: dir });
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain('cannot read desired-state file');
  });
});
