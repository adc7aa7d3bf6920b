#!/usr/bin/env node
// Every root npm script lands here (`npm run demo`, `npm test`, `npm run ipsets`, `npm run build`, …), so
// they work on a fresh machine that has only Node and npm, even an end-of-life Node:
// the pinned Node and pnpm are fetched from the npm registry into .cache/toolchain/
// on first use (scripts/toolchain.mjs), dependencies are installed when missing, and
// every tool (pnpm, turbo, tsdown, vitest, the demo itself) runs on the pinned Node.
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { clearReports, lineReport, REPORT, summarize, testRuns } from './test-summary.mjs';
import { nodeBinary, nodeVersions, root, toolchainNode, toolEnv } from './toolchain.mjs';

/** Stops with the message alone: a failed fetch or a bad setting needs no stack trace. */
function fail(error) {
  console.error(`npm run: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

let env;
let node;
try {
  env = toolEnv(toolchainNode);
  node = nodeBinary(toolchainNode);
} catch (error) {
  fail(error);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** The pinned pnpm (first on `env`'s PATH, whatever pnpm the machine has). */
const pnpmRun = (args, options) => run('pnpm', args, options);

function ensureInstalled() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lock = join(root, 'pnpm-lock.yaml');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  const status = pnpmRun(['install', '--frozen-lockfile']);
  if (status !== 0) process.exit(status);
}

/** Builds `filter` and what it depends on, code only (a first run needs no type declarations). */
function buildQuietly(filter) {
  return pnpmRun(['exec', 'turbo', 'run', 'build', `--filter=${filter}`, '--output-logs=errors-only'], {
    env: { ...env, IPSETS_SKIP_DTS: '1' },
  });
}

/**
 * `npm test`: the whole suite on the toolchain's Node, then the published packages'
 * suites on every other supported line, each on that line's binary. Every report is
 * deleted first and each run's reports are renamed after it, so the summary counts only
 * what this run ran.
 */
function testAllLines() {
  const runs = testRuns(root, nodeVersions);
  // Every binary before any test: the release checks run the packed packages on each.
  for (const version of [...Object.values(nodeVersions.lines), nodeVersions.floor]) nodeBinary(version);
  clearReports(root);
  let status = 0;
  for (const { line, version, packages, whole } of runs) {
    console.log(`\n=== Node v${version}: ${whole ? 'the whole suite (the toolchain\'s Node)' : packages.join(', ')} ===\n`);
    const filters = whole ? [] : packages.map((pkg) => `--filter=./${pkg}`);
    const ran = pnpmRun(['exec', 'turbo', 'run', 'test', ...filters, '--concurrency=1', '--continue', '--output-logs=full'], {
      env: whole ? env : toolEnv(version),
    });
    if (ran !== 0) status = ran;
    for (const pkg of packages) {
      const report = join(root, pkg, REPORT);
      if (existsSync(report)) renameSync(report, join(root, pkg, lineReport(line)));
    }
  }
  const { perLine, line, ok } = summarize(root, runs);
  console.log(`\nNode versions tested: ${runs.map((r) => `v${r.version}`).join(', ')}`);
  for (const text of perLine) console.log(text);
  console.log(line);
  return status === 0 && ok ? 0 : 1;
}

const command = process.argv[2];
ensureInstalled();

/** The `ipsets` command with `args` on the pinned Node, built first when needed. */
function runIpsets(args, options) {
  const built = buildQuietly('@ipsets/cli...');
  if (built !== 0) return built;
  return run(node, [join(root, 'packages/cli/dist/bin.js'), ...args], options);
}

if (command === 'demo') {
  process.exit(runIpsets(['demo', ...process.argv.slice(3)]));
} else if (command === 'ipsets') {
  // `npm run ipsets -- ARGS`: from the folder npm was run in.
  process.exit(runIpsets(process.argv.slice(3), { cwd: process.env.INIT_CWD ?? process.cwd() }));
} else if (command === 'simulate') {
  const built = buildQuietly('@ipsets/example-simulator...');
  if (built !== 0) process.exit(built);
  process.exit(run(node, [join(root, 'examples/simulator/dist/cli.js'), ...process.argv.slice(3)]));
} else if (command === 'playground') {
  process.exit(pnpmRun(['--filter', '@ipsets/browser-check', 'run', 'playground', ...process.argv.slice(3)]));
} else if (command === 'test') {
  let status = 1;
  try {
    status = testAllLines();
  } catch (error) {
    fail(error);
  }
  process.exit(status);
} else if (command === 'turbo') {
  // `npm run build|typecheck|bench`: any turbo run, after the install a fresh clone needs.
  process.exit(pnpmRun(['exec', 'turbo', 'run', ...process.argv.slice(3)]));
} else if (command === 'exec') {
  // `npm run changeset`: a workspace tool, after the install a fresh clone needs.
  process.exit(pnpmRun(['exec', ...process.argv.slice(3)]));
} else {
  console.error(`usage: node scripts/quickstart.mjs demo|test|ipsets ARGS…|simulate|playground|turbo TASK…|exec TOOL… (got ${JSON.stringify(command)})`);
  process.exit(2);
}
