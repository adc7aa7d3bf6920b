/**
 * What `ipsets apply` loads before it works: the start is part of every apply (≈ 0.5 s
 * of CPU at 1,000,000 members was module loading). The `yaml` package is loaded only
 * for YAML the plain reader declines, pino only when a line is logged, prom-client only
 * by the agent (the one that makes metrics).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ipsets, tempDir } from '../helpers/run-ipsets.js';

let dir: string;
let cleanup: () => Promise<void>;
let preload: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  // Prints, at exit, the packages whose CommonJS modules the process loaded (yaml and pino are CommonJS for require()).
  preload = join(dir, 'loaded.mjs');
  await writeFile(
    preload,
    [
      "import { createRequire } from 'node:module';",
      "import { writeSync } from 'node:fs';",
      'const cache = createRequire(import.meta.url).cache;',
      "process.on('exit', () => {",
      '  const names = new Set();',
      "  for (const key of Object.keys(cache)) { const at = key.lastIndexOf('node_modules'); if (at === -1) continue; const parts = key.slice(at + 13).split(/[\\\\/]/); names.add(parts[0].startsWith('@') ? parts[0] + '/' + parts[1] : parts[0]); }",
      "  writeSync(2, '\\nloaded-packages ' + JSON.stringify([...names].sort()) + '\\n');",
      '});',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  await cleanup();
});

async function applyLoading(file: string, text: string, extra: readonly string[] = []): Promise<{ exitCode: number; packages: string[]; stdout: string; stderr: string }> {
  await writeFile(join(dir, file), text);
  const run = await ipsets(['apply', file, '--kernel', 'fake', '--state', 'state.json', ...extra], {
    cwd: dir,
    env: { NODE_OPTIONS: `--import ${pathToFileURL(preload).href}` },
  });
  const line = /(?:^|\n)loaded-packages (.*)(?:\n|$)/.exec(run.stderr);
  expect(line, run.stderr).not.toBeNull();
  return { exitCode: run.exitCode, packages: JSON.parse(line![1]!) as string[], stdout: run.stdout, stderr: run.stderr };
}

describe('ipsets apply loads only what the run needs', () => {
  it('a JSON file: neither the yaml package nor pino', async () => {
    const run = await applyLoading('desired.json', JSON.stringify({ sets: [{ type: 'namespace', name: 'a', members: ['10.0.0.1'] }] }));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('1 created');
    expect(run.packages).not.toContain('yaml');
    expect(run.packages).not.toContain('pino');
    expect(run.packages).not.toContain('prom-client');
  });

  it('plain block YAML: the fast reader, without the yaml package', async () => {
    const run = await applyLoading('desired.yaml', 'sets:\n  - type: namespace\n    name: a\n    members:\n      - 10.0.0.1\n');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.packages).not.toContain('yaml');
  });

  it('YAML the fast reader declines (flow style, an anchor) loads the yaml package and applies the same', async () => {
    const run = await applyLoading('desired.yaml', 'sets:\n  - { type: namespace, name: a, members: &m [10.0.0.1] }\n  - { type: namespace, name: b, members: *m }\n');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('2 created');
    expect(run.packages).toContain('yaml');
  });
});
