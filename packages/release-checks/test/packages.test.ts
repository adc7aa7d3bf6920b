/**
 * Every published package as a packager and its users get it: `pnpm pack` into a
 * temp folder; the tarball carries LICENSE, README and the registry metadata;
 * publint and arethetypeswrong report nothing; under each supported Node line (the
 * exact releases CI tests) and the oldest release `engines` admits, the tarballs install
 * with npm (engine-strict) into an empty project where the `ipsets` command runs
 * (`--version`, `plan`, `demo`) and where CommonJS (plain and TypeScript) and ESM
 * consumers load @ipsets/core and use it; a production install of the `ipsets` command
 * alone carries no test tooling (fast-check, vitest).
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeBinDir, nodeVersions } from '../../../scripts/toolchain.mjs';
import { PUBLISHED, ROOT } from './helpers/repo.js';

const work = mkdtempSync(join(tmpdir(), 'ipsets-h5-pack-'));
const packs = join(work, 'packs');
const production = join(work, 'production');
const tarballs = new Map<string, string>();
const BIN = `${ROOT}packages/release-checks/node_modules/.bin/`;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type: string; url: string; directory: string };
  homepage?: string;
  bugs?: { url: string };
  keywords?: string[];
  files?: string[];
  dependencies?: Record<string, string>;
  publishConfig?: { access?: string };
}

function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
  timeout = 300_000,
  env: NodeJS.ProcessEnv = process.env,
): { status: number; out: string } {
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  return { status: result.status ?? -1, out: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
}

/**
 * npm flags of every install here: the registry's metadata from npm's cache where it has
 * it (five installs per run ask for the same packages), and a request that stalls is
 * retried after a minute instead of hanging the test to its timeout.
 */
const NPM_INSTALL = ['install', '--prefer-offline', '--fetch-timeout=60000', '--no-audit', '--no-fund', '--loglevel=error'];

/** The releases a user may run: the exact release of each supported line, and the oldest `engines` admits. */
const NODES = [...new Set([nodeVersions.floor, ...Object.values(nodeVersions.lines)])];

/** An environment whose `node` (for npm, `#!/usr/bin/env node` bins and consumers) is release `version`. */
function onNode(version: string): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${nodeBinDir(version)}${delimiter}${process.env['PATH'] ?? ''}` };
}

/** The files of a tarball (paths under `package/`). */
function tarList(tarball: string): string[] {
  const listed = run('tar', ['-tzf', tarball], work);
  expect(listed.status, listed.out).toBe(0);
  return listed.out.trim().split('\n').map((p) => p.replace(/^package\//, ''));
}

function tarFile(tarball: string, path: string): string {
  const result = spawnSync('tar', ['-xzOf', tarball, `package/${path}`], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

beforeAll(() => {
  mkdirSync(packs);
  for (const pkg of PUBLISHED) {
    const packed = run('pnpm', ['pack', '--pack-destination', packs], `${ROOT}packages/${pkg}`);
    expect(packed.status, packed.out).toBe(0);
  }
  for (const file of readdirSync(packs)) {
    const manifest = JSON.parse(tarFile(join(packs, file), 'package.json')) as Manifest;
    tarballs.set(manifest.name, join(packs, file));
  }
  expect([...tarballs.keys()].sort()).toEqual(PUBLISHED.map((p) => `@ipsets/${p}`).sort());
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('which packages are published', () => {
  it('every package is either published (public, versioned) or private and ignored by changesets', () => {
    const config = JSON.parse(readFileSync(`${ROOT}.changeset/config.json`, 'utf8')) as {
      access: string;
      ignore: string[];
      privatePackages?: { version: boolean; tag: boolean };
    };
    expect(config.access).toBe('public');
    expect(config.privatePackages).toEqual({ version: false, tag: false });
    for (const dir of readdirSync(`${ROOT}packages`)) {
      const manifest = JSON.parse(readFileSync(`${ROOT}packages/${dir}/package.json`, 'utf8')) as Manifest;
      if ((PUBLISHED as readonly string[]).includes(dir)) {
        expect(manifest.private, manifest.name).toBeUndefined();
        expect(config.ignore, manifest.name).not.toContain(manifest.name);
        expect(manifest.publishConfig?.access, manifest.name).toBe('public');
      } else {
        expect(manifest.private, `${manifest.name} is not published: it must be private`).toBe(true);
        expect(config.ignore, `${manifest.name} must not be versioned`).toContain(manifest.name);
      }
    }
  });
});

describe.each(PUBLISHED.map((p) => `@ipsets/${p}`))('the packed tarball of %s', (name) => {
  it('carries LICENSE (MIT, the @ipsets authors) and NOTICE (the credit to Azure NPM), both the repository\'s own, README, dist and the registry metadata, and no workspace: ranges', () => {
    const tarball = tarballs.get(name)!;
    const files = tarList(tarball);
    expect(files).toContain('LICENSE');
    expect(files).toContain('NOTICE');
    expect(files).toContain('README.md');
    expect(files).toContain('package.json');
    expect(files.filter((f) => !['LICENSE', 'NOTICE', 'README.md', 'package.json'].includes(f) && !f.startsWith('dist/'))).toEqual([]);
    const license = tarFile(tarball, 'LICENSE');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} The @ipsets authors\n/);
    expect(license).toBe(readFileSync(`${ROOT}LICENSE`, 'utf8'));
    expect(tarFile(tarball, 'NOTICE')).toBe(readFileSync(`${ROOT}NOTICE`, 'utf8'));
    const readme = tarFile(tarball, 'README.md');
    expect(readme).toMatch(new RegExp(`^# ${name.replace('/', '\\/')}`, 'm'));
    const manifest = JSON.parse(tarFile(tarball, 'package.json')) as Manifest;
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/ipsets/ipsets.git',
      directory: `packages/${name.slice('@ipsets/'.length)}`,
    });
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs?.url).toMatch(/^https:\/\//);
    expect(manifest.keywords?.length).toBeGreaterThan(2);
    expect(manifest.files).toContain('LICENSE');
    expect(manifest.files).toContain('NOTICE');
    expect(JSON.stringify(manifest.dependencies ?? {})).not.toContain('workspace:');
  });

  it('its CommonJS build loads the CommonJS builds of other @ipsets packages, never their ESM copies', () => {
    // A dynamic import() from a .cjs file loads the ESM build: the process would then hold two
    // copies of @ipsets/core, and isIpsetsError() would be false for errors from the other copy.
    const tarball = tarballs.get(name)!;
    for (const file of tarList(tarball).filter((f) => f.endsWith('.cjs'))) {
      expect(tarFile(tarball, file), file).not.toMatch(/import\(\s*["']@ipsets\//);
    }
  });

  it('publint reports nothing', () => {
    const result = run(`${BIN}publint`, ['run', tarballs.get(name)!, '--strict', '--level', 'suggestion'], work);
    expect(result.status, result.out).toBe(0);
    expect(result.out).toContain('All good!');
    expect(result.out).not.toMatch(/Suggestions|Warnings|Errors/);
  });

  it('arethetypeswrong reports nothing for Node 16+ resolution (import and require) and bundlers', () => {
    // node16 profile: the packages need Node 22.13 or later (exports maps, require of ESM), so node10 resolution (no exports map) does not apply.
    const result = run(`${BIN}attw`, ['--profile', 'node16', '--format', 'json', tarballs.get(name)!], work);
    expect(result.status, result.out).toBe(0);
    const report = JSON.parse(result.out.slice(result.out.indexOf('{'))) as {
      problems?: Record<string, { resolutionKind?: string; entrypoint?: string }[]>;
    };
    const problems = Object.values(report.problems ?? {})
      .flat()
      .filter((p) => p.resolutionKind !== 'node10');
    expect(problems).toEqual([]);
  });
});

describe.each(NODES)('the packed tarballs installed with npm into an empty project under Node %s', (version) => {
  const project = join(work, `project-${version}`);
  const env = onNode(version);
  const node = join(nodeBinDir(version), 'node');
  const ipsets = join(project, 'node_modules/.bin/ipsets');

  beforeAll(() => {
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '0.0.0', private: true }));
    // engine-strict: an `engines` range of ours or of a dependency that leaves this Node out fails the install.
    const installed = run(
      'npm',
      [...NPM_INSTALL, '--engine-strict', ...tarballs.values()],
      project,
      540_000,
      env,
    );
    expect(installed.status, installed.out).toBe(0);
  });

  it('npm ran on that Node, and every @ipsets package comes from its tarball, not from a registry', () => {
    expect(run('node', ['--version'], project, 10_000, env).out.trim()).toBe(`v${version}`);
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    const ours = Object.entries(lock.packages).filter(([path]) => /node_modules\/@ipsets\//.test(path));
    expect(ours.map(([path]) => path).sort()).toEqual(PUBLISHED.map((p) => `node_modules/@ipsets/${p}`).sort());
    for (const [path, entry] of ours) expect(entry.resolved, path).toMatch(/^file:.*\.tgz$/);
  });

  it('`ipsets --version`, `ipsets plan` and `ipsets demo` run from node_modules/.bin', () => {
    const printed = run(ipsets, ['--version'], project, 60_000, env);
    expect(printed.status, printed.out).toBe(0);
    expect(printed.out.split('\n')[0]).toBe(`ipsets ${(JSON.parse(tarFile(tarballs.get('@ipsets/cli')!, 'package.json')) as Manifest).version}`);
    writeFileSync(join(project, 'small.yaml'), readFileSync(`${ROOT}examples/small.yaml`));
    const plan = run(ipsets, ['plan', 'small.yaml'], project, 60_000, env);
    expect(plan.status, plan.out).toBe(0);
    // The command's own owner prefix: never Azure NPM's by default.
    expect(plan.out.match(/^-N ipsets-\w+ --exist /gm)).toHaveLength(11);
    const demo = run(ipsets, ['demo', '--pods', '40'], project, 120_000, env);
    expect(demo.status, demo.out).toBe(0);
    expect(demo.out).toMatch(/demo passed/);
  });

  const consumer = (load: string): string => `${load}
const name = kernelName('ns-shop');
const desired = { owner: 'azure-npm-', sets: [{ name, spec: 'nethash', members: ['10.244.1.10', '10.0.0.0/8'] }] };
const text = renderRestore(planReconcile(desired, parseSave(''), []));
console.log(JSON.stringify({ node: process.version, name, text }));
`;

  function expectPlanned(out: string): void {
    const planned = JSON.parse(out.trim().split('\n').at(-1)!) as { node: string; name: string; text: string };
    expect(planned.node).toBe(`v${version}`);
    expect(planned.name).toMatch(/^azure-npm-[0-9a-z]+$/);
    expect(planned.text).toBe(`-N ${planned.name} --exist nethash\n-A ${planned.name} 10.244.1.10\n-A ${planned.name} 10.0.0.0/8\n`);
  }

  it('a CommonJS consumer require()s @ipsets/core (and the other packages) and plans a restore, without a warning', () => {
    writeFileSync(
      join(project, 'consumer.cjs'),
      consumer(
        "const { kernelName, parseSave, planReconcile, renderRestore } = require('@ipsets/core');\n" +
          "for (const p of ['@ipsets/exec-linux', '@ipsets/fake-kernel', '@ipsets/testing', '@ipsets/cli']) if (typeof require(p) !== 'object') throw new Error(p);",
      ),
    );
    const result = run(node, ['consumer.cjs'], project, 60_000, env);
    expect(result.status, result.out).toBe(0);
    // exec-linux's CommonJS build require()s execa, an ES module: no ExperimentalWarning on any supported release.
    expect(result.out).not.toMatch(/Warning/);
    expectPlanned(result.out);
  });

  it('an ESM consumer imports @ipsets/core and plans the same restore', () => {
    writeFileSync(
      join(project, 'consumer.mjs'),
      consumer("import { kernelName, parseSave, planReconcile, renderRestore } from '@ipsets/core';\nawait import('@ipsets/cli');"),
    );
    const result = run(node, ['consumer.mjs'], project, 60_000, env);
    expect(result.status, result.out).toBe(0);
    expect(result.out).not.toMatch(/Warning/);
    expectPlanned(result.out);
  });

  it('a TypeScript CommonJS consumer (module node16) type-checks against the .d.cts types and runs', () => {
    writeFileSync(
      join(project, 'consumer.cts'),
      consumer(
        "import { kernelName, parseSave, planReconcile, renderRestore } from '@ipsets/core';\n" +
          "import type { DesiredState } from '@ipsets/core';\n" +
          // No @types/node in this project: the one Node global the consumer reads.
          'declare const process: { version: string };',
      ).replace('const desired =', 'const desired: DesiredState ='),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'node16', moduleResolution: 'node16', target: 'es2022', strict: true, outDir: 'out', types: [], skipLibCheck: false },
        files: ['consumer.cts'],
      }),
    );
    const tsc = run(node, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.json'], project, 120_000, env);
    expect(tsc.status, tsc.out).toBe(0);
    const compiled = readFileSync(join(project, 'out/consumer.cjs'), 'utf8');
    expect(compiled).toContain('require("@ipsets/core")');
    const result = run(node, ['out/consumer.cjs'], project, 60_000, env);
    expect(result.status, result.out).toBe(0);
    expectPlanned(result.out);
  });
});

/** Bytes under `dir` (files and links themselves, not what links point at). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(path) : lstatSync(path).size;
  }
  return total;
}

describe('a production install of the packed @ipsets/cli', () => {
  /** The @ipsets tarballs the CLI needs at run time: its dependencies, theirs, and so on. */
  function runtimeClosure(): string[] {
    const seen = new Set<string>();
    const visit = (name: string): void => {
      if (seen.has(name)) return;
      seen.add(name);
      const tarball = tarballs.get(name);
      expect(tarball, `${name} is a runtime dependency but no tarball of it was packed`).toBeDefined();
      const manifest = JSON.parse(tarFile(tarball!, 'package.json')) as Manifest;
      for (const dep of Object.keys(manifest.dependencies ?? {})) if (dep.startsWith('@ipsets/')) visit(dep);
    };
    visit('@ipsets/cli');
    return [...seen].sort();
  }

  beforeAll(() => {
    mkdirSync(production);
    writeFileSync(join(production, 'package.json'), JSON.stringify({ name: 'production', version: '0.0.0', private: true }));
    const closure = runtimeClosure();
    const installed = run(
      'npm',
      [...NPM_INSTALL, '--omit=dev', ...closure.map((name) => tarballs.get(name)!)],
      production,
      540_000,
    );
    expect(installed.status, installed.out).toBe(0);
  });

  it('has no fast-check and no vitest in its tree (the fake kernel it runs needs neither)', () => {
    const lock = JSON.parse(readFileSync(join(production, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const paths = Object.keys(lock.packages);
    const testTools = paths.filter((path) => /(^|\/)node_modules\/(fast-check|vitest|@vitest\/[^/]+)$/.test(path));
    expect(testTools, 'test tooling in the production tree of the ipsets command').toEqual([]);
    expect(paths.filter((path) => /node_modules\/@ipsets\/testing$/.test(path))).toEqual([]);
    const version = run(join(production, 'node_modules/.bin/ipsets'), ['--version'], production);
    expect(version.status, version.out).toBe(0);
    // Recorded for the operator's guide: what a production install of the command costs on disk.
    console.info(
      `[production install] ${(treeBytes(join(production, 'node_modules')) / 1024 ** 2).toFixed(1)} MiB in ${paths.length - 1} packages`,
    );
  });

  it('runs `ipsets demo` (the embedded fake kernel) from that tree', () => {
    const demo = run(join(production, 'node_modules/.bin/ipsets'), ['demo', '--pods', '40'], production);
    expect(demo.status, demo.out).toBe(0);
  });
});
