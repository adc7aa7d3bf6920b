/**
 * The command on a Node it does not support: `node packages/cli/dist/bin.js apply …` on the
 * machine's end of life Node (v20 on the CI machines) died mid-apply with "internal error:
 * TypeError: Promise.withResolvers is not a function (a bug in ipsets …)". It must instead refuse at once, before it reads a
 * file or opens a kernel, naming the Node it runs on and the versions it needs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, isSupportedNode } from '../../src/node-support.js';

const BIN = new URL('../../dist/bin.js', import.meta.url).pathname;
const engines = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

describe('the Node versions the command runs on', () => {
  it('are the package\'s engines range', () => {
    expect(SUPPORTED_NODE).toBe(engines);
  });

  it.each([
    ['20.20.2', false],
    ['22.12.0', false],
    ['22.13.0', true],
    ['22.23.5', true],
    ['23.11.0', false],
    ['24.0.0', true],
    ['25.9.0', false],
    ['26.0.0', true],
    ['27.1.0', true],
    ['18.0.0', false],
  ])('%s supported: %s', (version, supported) => {
    expect(isSupportedNode(version)).toBe(supported);
  });

  // The machine's own Node (end of life on the CI machines) when it is one the command does not support.
  const old = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => {
    if (!existsSync(path)) return false;
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    return version !== '' && !isSupportedNode(version);
  });
  it.skipIf(old === undefined || !existsSync(BIN))(`the built command on an unsupported Node refuses at once (${old ?? 'no unsupported Node on this machine'})`, () => {
    const result = spawnSync(old!, [BIN, 'apply', 'no-such-file.yaml', '--kernel', 'fake'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^ipsets: Node v\d+\.\d+\.\d+ is not supported: ipsets needs Node \^22\.13\.0 \|\| \^24\.0\.0 \|\| >=26\.0\.0/);
    expect(result.stderr).not.toMatch(/internal error|no-such-file/);
  });
});
