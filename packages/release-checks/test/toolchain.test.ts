/**
 * The root scripts' bootstrap (scripts/quickstart.mjs, scripts/toolchain.mjs,
 * scripts/test-summary.mjs): the tools run on the pinned Node and pnpm whatever Node
 * and pnpm the machine has; `npm test`'s summary counts only what that run ran, on
 * every Node line it names; a newcomer sees no update notice from npm or pnpm.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/repo.js';

interface NodeVersions {
  toolchain: string;
  lines: Record<string, string>;
  floor: string;
}

const versions = JSON.parse(readFileSync(`${ROOT}scripts/node-versions.json`, 'utf8')) as NodeVersions;
const toolchainVersion = versions.lines[versions.toolchain]!;
const pinnedPnpm = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { packageManager: string }).packageManager.split('@')[1]!;
const CACHE = `${ROOT}.cache/toolchain`;
const work = mkdtempSync(join(tmpdir(), 'ipsets-toolchain-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** The machine's PATH without the toolchain folders the test run put in front of it. */
const machinePath = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter((dir) => !dir.startsWith(CACHE) && !dir.includes('node_modules'))
  .join(delimiter);

/** The machine's own `node` (an end-of-life one on this project's machines), found on that PATH. */
function machineNode(): string {
  const found = spawnSync('sh', ['-c', 'command -v node'], { encoding: 'utf8', env: { PATH: machinePath } });
  expect(found.status, 'no node on the machine PATH').toBe(0);
  return found.stdout.trim();
}

/** Runs `cmd` with the test's environment (less CI, which both tools read) and `env` over it. */
function run(cmd: string, args: readonly string[], cwd: string, env: Record<string, string | undefined>) {
  const { CI: _ci, IPSETS_TEST_NODE_LINES: _lines, ...base } = process.env;
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...base, ...env })) if (value !== undefined) merged[key] = value;
  const result = spawnSync(cmd, args, { cwd, env: merged, encoding: 'utf8', timeout: 300_000 });
  const stdout = result.stdout ?? '';
  return { status: result.status ?? -1, stdout, out: `${stdout}${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
}

describe('the bootstrap runs the tools on the pinned Node and pnpm', () => {
  it(`pins an exact release of every supported line, and the toolchain's line (${versions.toolchain}) among them`, () => {
    expect(Object.keys(versions.lines).sort()).toEqual(['22', '24', '26']);
    for (const [line, version] of Object.entries(versions.lines)) expect(version).toMatch(new RegExp(`^${line}\\.\\d+\\.\\d+$`));
    expect(toolchainVersion).toBeDefined();
  });

  it('the pinned Node and pnpm run the tools even when the machine\'s Node is another one and another pnpm is first on PATH', () => {
    const node = machineNode();
    const fakeBin = join(work, 'other-pnpm');
    mkdirSync(fakeBin);
    // A pnpm of another version that would try to switch versions (and fail here).
    writeFileSync(join(fakeBin, 'pnpm'), '#!/bin/sh\necho "pnpm 9.0.0 from PATH was used" >&2\nexit 7\n');
    chmodSync(join(fakeBin, 'pnpm'), 0o755);
    const env = { PATH: `${fakeBin}${delimiter}${machinePath}`, IPSETS_TOOLCHAIN_CACHE: CACHE };
    const versionsSeen = run(node, ['scripts/quickstart.mjs', 'exec', 'node', '-p', 'process.version + " " + process.env.npm_config_user_agent'], ROOT, env);
    expect(versionsSeen.status, versionsSeen.out).toBe(0);
    expect(versionsSeen.out).toContain(`v${toolchainVersion} pnpm/${pinnedPnpm} `);
    const pnpm = run(node, ['scripts/quickstart.mjs', 'exec', 'pnpm', '--version'], ROOT, env);
    expect(pnpm.status, pnpm.out).toBe(0);
    expect(pnpm.stdout.trim().split('\n').at(-1)).toBe(pinnedPnpm);
    expect(pnpm.out).not.toContain('from PATH was used');
  });
});

/** A workspace of one package, `packages/a`, with the root scripts and a stale report of an old run. */
function staleWorkspace(name: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'packages/a'), { recursive: true });
  cpSync(`${ROOT}scripts`, join(dir, 'scripts'), { recursive: true });
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', '.npmrc']) cpSync(`${ROOT}${file}`, join(dir, file));
  writeFileSync(join(dir, 'packages/a/package.json'), JSON.stringify({ name: 'a', private: true, scripts: { test: 'exit 1' } }));
  // Installed already (newer than the lock file), so the quick start does not install.
  mkdirSync(join(dir, 'node_modules'));
  writeFileSync(join(dir, 'node_modules/.modules.yaml'), '');
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dir, 'node_modules/.modules.yaml'), later, later);
  const old = JSON.stringify({ numPassedTests: 99, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [] });
  writeFileSync(join(dir, 'packages/a/test-results.json'), old);
  for (const line of Object.keys(versions.lines)) writeFileSync(join(dir, `packages/a/test-results.node${line}.json`), old);
  return dir;
}

describe('`npm test` counts only what it ran', () => {
  it('a package whose tests did not run (here: no turbo to run them) counts as failed, never from the previous run\'s report', () => {
    // Regression: the quick start's `npm test` kept the previous run's test-results.json,
    // so a package that failed to build or never ran was counted from the old file.
    const dir = staleWorkspace('stale');
    const env = { PATH: machinePath, IPSETS_TOOLCHAIN_CACHE: CACHE, IPSETS_TEST_NODE_LINES: versions.toolchain };
    const result = run(machineNode(), ['scripts/quickstart.mjs', 'test'], dir, env);
    expect(result.status, result.out).toBe(1);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('0 passed, 1 failed, 0 skipped');
    expect(result.out).toContain(`Node v${toolchainVersion} (whole suite, toolchain): 0 passed, 1 failed, 0 skipped; no test report from packages/a`);
    expect(existsSync(join(dir, 'packages/a/test-results.json'))).toBe(false);
    for (const line of Object.keys(versions.lines)) expect(existsSync(join(dir, `packages/a/test-results.node${line}.json`))).toBe(false);
  });

  it('the summary names every Node line it expected and fails when one line\'s report is missing', () => {
    const dir = join(work, 'summary');
    mkdirSync(join(dir, 'scripts'), { recursive: true });
    cpSync(`${ROOT}scripts/node-versions.json`, join(dir, 'scripts/node-versions.json'));
    const report = JSON.stringify({ numPassedTests: 3, numFailedTests: 0, numPendingTests: 1, testResults: [] });
    for (const pkg of ['core', 'cli', 'bench']) {
      mkdirSync(join(dir, 'packages', pkg), { recursive: true });
      for (const line of Object.keys(versions.lines)) {
        // The bench is not published: it runs on the toolchain's line only. cli's run on one other line is missing.
        const otherLine = Object.keys(versions.lines).find((l) => l !== versions.toolchain)!;
        if ((pkg === 'bench' && line !== versions.toolchain) || (pkg === 'cli' && line === otherLine)) continue;
        writeFileSync(join(dir, 'packages', pkg, `test-results.node${line}.json`), report);
      }
    }
    const result = run(process.execPath, [`${ROOT}scripts/test-summary.mjs`, dir], dir, {});
    expect(result.status, result.out).toBe(1);
    const lines = result.stdout.trim().split('\n');
    // 3 packages on the toolchain's line, 2 on each other line, one report missing.
    expect(lines.at(-1)).toBe('18 passed, 1 failed, 6 skipped');
    for (const version of Object.values(versions.lines)) expect(result.out).toContain(`Node v${version} (`);
    expect(lines.filter((l) => l.includes('no test report from packages/cli'))).toHaveLength(1);
  });
});

describe('no update notice for a newcomer', () => {
  // Both notices come from a background check that prints only if it answers before the
  // command ends, so what is tested is the setting each tool reads in this repository
  // (with a fresh HOME: a newcomer has no user config), against its default elsewhere.
  const setting = (cmd: string, args: readonly string[], cwd: string) => {
    // Neither the settings the bootstrap exports nor a user config: only the repository's files.
    const result = run(cmd, args, cwd, {
      HOME: mkdtempSync(join(work, 'home-')),
      npm_config_update_notifier: undefined,
      pnpm_config_update_notifier: undefined,
      NPM_CONFIG_UPDATE_NOTIFIER: undefined,
      npm_config_userconfig: undefined,
      npm_config_globalconfig: undefined,
    });
    expect(result.status, result.out).toBe(0);
    return result.stdout.trim();
  };

  it('pnpm reads updateNotifier: false here (pnpm-workspace.yaml), so no "Update available … curl … | sh"', () => {
    expect(setting('pnpm', ['config', 'get', 'updateNotifier'], ROOT)).toBe('false');
    expect(setting('pnpm', ['config', 'get', 'updateNotifier'], work)).not.toBe('false');
  });

  it('npm reads update-notifier=false here (.npmrc), so no "New version of npm available"', () => {
    expect(setting('npm', ['config', 'get', 'update-notifier'], ROOT)).toBe('false');
    expect(setting('npm', ['config', 'get', 'update-notifier'], work)).toBe('true');
  });

  it('turbo hands the machine\'s TLS and proxy settings to every task (the registry\'s Node binaries trust only their own CA list)', () => {
    // Regression: the release check's npm installs ran under the registry's Node inside a
    // turbo task without NODE_EXTRA_CA_CERTS, failed with SELF_SIGNED_CERT_IN_CHAIN behind
    // a TLS-inspecting proxy, and retried for minutes.
    const turbo = JSON.parse(readFileSync(`${ROOT}turbo.json`, 'utf8')) as { globalPassThroughEnv: string[] };
    for (const name of ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY']) {
      expect(turbo.globalPassThroughEnv).toContain(name);
    }
  });

  it('the bootstrap turns both off for the tools it runs, wherever they run (a temp project of the release check)', () => {
    const node = machineNode();
    const seen = run(node, ['scripts/quickstart.mjs', 'exec', 'node', '-p', 'process.env.npm_config_update_notifier + " " + process.env.pnpm_config_update_notifier'], ROOT, {
      PATH: machinePath,
      IPSETS_TOOLCHAIN_CACHE: CACHE,
    });
    expect(seen.status, seen.out).toBe(0);
    expect(seen.stdout.trim().split('\n').at(-1)).toBe('false false');
  });
});

describe('one Node support policy, named the same everywhere', () => {
  const rootManifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
  const engines = rootManifest.engines.node;
  const lines = Object.keys(versions.lines).sort();

  /** Whether `version` satisfies one `^X.Y.Z` or `>=X.Y.Z` clause of `range` (the forms engines uses here). */
  function satisfies(version: string, range: string): boolean {
    const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
    return range.split('||').some((clause) => {
      const m = /^\s*(\^|>=)(\d+)\.(\d+)\.(\d+)\s*$/.exec(clause);
      if (!m) throw new Error(`engines clause ${JSON.stringify(clause)} is neither ^X.Y.Z nor >=X.Y.Z`);
      const [low, atLeast] = [[Number(m[2]), Number(m[3]), Number(m[4])], (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!];
      const v = [major, minor, patch];
      return atLeast(v, low) >= 0 && (m[1] === '>=' || major === low[0]);
    });
  }

  it(`every package's engines is the root's (${engines}): each tested release in, Node 20 and the odd lines out`, () => {
    for (const dir of ['packages', 'examples']) {
      for (const name of readdirSync(`${ROOT}${dir}`)) {
        const file = `${ROOT}${dir}/${name}/package.json`;
        if (!existsSync(file)) continue;
        const manifest = JSON.parse(readFileSync(file, 'utf8')) as { engines?: { node?: string } };
        expect(manifest.engines?.node, `${dir}/${name}`).toBe(engines);
      }
    }
    for (const version of Object.values(versions.lines)) expect(satisfies(version, engines), version).toBe(true);
    for (const outside of ['20.20.2', '22.12.0', '23.11.1', '25.9.0']) expect(satisfies(outside, engines), outside).toBe(false);
  });

  it(`engines admits nothing older than ${versions.floor}, the oldest release the release check runs on`, () => {
    expect(engines.split('||')[0]!.trim()).toBe(`^${versions.floor}`);
  });

  it('@types/node is the oldest supported line\'s, so the sources use no API that line lacks', () => {
    expect(rootManifest.devDependencies['@types/node']).toMatch(new RegExp(`^${lines[0]}\\.\\d+\\.\\d+$`));
  });

  it('the README, the operator\'s guide and the systemd unit name the same lines', () => {
    for (const doc of ['README.md', 'docs/operating.md']) {
      const text = readFileSync(`${ROOT}${doc}`, 'utf8');
      expect(text, doc).toContain('## Supported Node versions');
      expect(text, doc).toContain(engines);
      for (const line of lines) expect(text, doc).toContain(`**${line}**`);
    }
    const unit = readFileSync(`${ROOT}deploy/systemd/ipsets-agent.service`, 'utf8');
    expect(unit).toContain(`${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}`);
  });

  it('no file of the repository names Node 20 as the runtime', () => {
    const files = spawnSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim().split('\n');
    const named = /node(\.js)?[ :@-]?v?20\b|node(\.js)? *\(?(>=|≥) ?20|@types\/node.{0,6}\b20\.|\bnode20\b/i;
    const offending = files
      .filter((file) => file !== 'pnpm-lock.yaml' && file !== 'packages/release-checks/test/toolchain.test.ts' && existsSync(`${ROOT}${file}`))
      .flatMap((file) =>
        readFileSync(`${ROOT}${file}`, 'utf8')
          .split('\n')
          // A line that says Node 20 is gone (a changeset, the support policy) names no runtime.
          .flatMap((text, i) => (named.test(text) && !/no longer supported|end of life/i.test(text) ? [`${file}:${i + 1}: ${text.trim()}`] : [])),
      );
    expect(offending).toEqual([]);
  });
});
