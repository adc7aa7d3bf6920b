#!/usr/bin/env node
// The README's quick-start commands land here (`npm run demo`, `npm test`,
// `npm run simulate`, `npm run playground`), so
// they work on a fresh machine that has only Node and npm: pnpm is taken from PATH
// when it is the pinned version, otherwise run through npx; dependencies are
// installed when missing; everything else goes through turbo.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize } from './test-summary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function pnpmCommand() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', env });
  if (probe.status === 0 && probe.stdout.trim() === pinned) return ['pnpm', []];
  return ['npx', ['--yes', `pnpm@${pinned}`]];
}

const [pnpm, pnpmArgs] = pnpmCommand();
const pnpmRun = (...args) => run(pnpm, [...pnpmArgs, ...args]);

function ensureInstalled() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lock = join(root, 'pnpm-lock.yaml');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  const status = pnpmRun('install', '--frozen-lockfile');
  if (status !== 0) process.exit(status);
}

const command = process.argv[2];
ensureInstalled();
/** Builds `filter` and what it depends on, code only (a first run needs no type declarations). */
function buildQuietly(filter) {
  env.IPSETS_SKIP_DTS = '1';
  const status = pnpmRun('exec', 'turbo', 'run', 'build', `--filter=${filter}`, '--output-logs=errors-only');
  delete env.IPSETS_SKIP_DTS;
  return status;
}

if (command === 'demo') {
  const built = buildQuietly('@ipsets/cli...');
  if (built !== 0) process.exit(built);
  process.exit(run(process.execPath, [join(root, 'packages/cli/dist/bin.js'), 'demo', ...process.argv.slice(3)]));
} else if (command === 'simulate') {
  const built = buildQuietly('@ipsets/example-simulator...');
  if (built !== 0) process.exit(built);
  process.exit(run(process.execPath, [join(root, 'examples/simulator/dist/cli.js'), ...process.argv.slice(3)]));
} else if (command === 'playground') {
  process.exit(pnpmRun('--filter', '@ipsets/browser-check', 'run', 'playground', ...process.argv.slice(3)));
} else if (command === 'test') {
  const status = pnpmRun('exec', 'turbo', 'run', 'test', '--concurrency=1', '--continue', '--output-logs=full');
  const { line, ok } = summarize(root);
  console.log(line);
  process.exit(status === 0 && ok ? 0 : 1);
} else if (command === 'turbo') {
  // `npm run build|typecheck|bench`: any turbo run, after the install a fresh clone needs.
  process.exit(pnpmRun('exec', 'turbo', 'run', ...process.argv.slice(3)));
} else if (command === 'exec') {
  // `npm run changeset`: a workspace tool, after the install a fresh clone needs.
  process.exit(pnpmRun('exec', ...process.argv.slice(3)));
} else {
  console.error(`usage: node scripts/quickstart.mjs demo|test|simulate|playground|turbo TASK…|exec TOOL… (got ${JSON.stringify(command)})`);
  process.exit(2);
}
