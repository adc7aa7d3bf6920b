#!/usr/bin/env node
// The test runs of `npm test` and the one plain line CI reads: `N passed, N failed`.
//
// `npm test` runs the whole suite on the toolchain's Node and the published packages'
// suites on every other supported line (scripts/node-versions.json). Each run leaves one
// vitest JSON report per package, which the runner renames to
// `test-results.node<line>.json`; this file adds them up. A report that is missing
// counts as one failure, so a package that failed to build or whose tests never ran
// can never look green — and the runner deletes every report before it starts, so an
// old one can never stand in for a run that did not happen.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The packages whose suites run on every supported line, not only on the toolchain's. */
export const PUBLISHED = ['packages/core', 'packages/fake-kernel', 'packages/testing', 'packages/exec-linux', 'packages/cli'];

/** The report a package's `vitest run` writes (its `test` script names it). */
export const REPORT = 'test-results.json';

/** The report of a package's run on Node `line`, once the runner has renamed it. */
export const lineReport = (line) => `test-results.node${line}.json`;

const REPORT_FILE = /^test-results(\.node\d+)?\.json$/;

/**
 * Folders whose suite `npm test` runs: every one under `packages/`, and those under
 * `examples/` whose package.json has a `test` script.
 */
export function testedPackages(root) {
  const found = readdirSync(join(root, 'packages')).sort().map((name) => `packages/${name}`);
  const examples = join(root, 'examples');
  if (!existsSync(examples)) return found;
  for (const name of readdirSync(examples).sort()) {
    const manifest = join(examples, name, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test !== undefined) found.push(`examples/${name}`);
  }
  return found;
}

/**
 * The runs of one `npm test`: the toolchain's line first with every package, then each
 * other line in `only` (default: every supported line) with the published packages.
 * `IPSETS_TEST_NODE_LINES=24` (a comma list) narrows the other lines for a quicker
 * local run; the toolchain's line always runs.
 */
export function testRuns(root, versions, only = process.env.IPSETS_TEST_NODE_LINES) {
  const wanted = only ? new Set(only.split(',').map((line) => line.trim()).filter(Boolean)) : undefined;
  for (const line of wanted ?? []) {
    if (versions.lines[line] === undefined) {
      throw new Error(`IPSETS_TEST_NODE_LINES names Node ${JSON.stringify(line)}; expected supported lines among ${Object.keys(versions.lines).join(', ')}`);
    }
  }
  const all = testedPackages(root);
  const runs = [{ line: versions.toolchain, version: versions.lines[versions.toolchain], packages: all, whole: true }];
  for (const [line, version] of Object.entries(versions.lines)) {
    if (line === versions.toolchain || (wanted && !wanted.has(line))) continue;
    runs.push({ line, version, packages: PUBLISHED.filter((pkg) => all.includes(pkg)), whole: false });
  }
  return runs;
}

/** Deletes every test report under packages/ and examples/, so a run counts only what it ran. */
export function clearReports(root) {
  for (const pkg of testedPackages(root)) {
    for (const name of readdirSync(join(root, pkg))) if (REPORT_FILE.test(name)) rmSync(join(root, pkg, name), { force: true });
  }
}

/** Adds up one vitest JSON report. */
function count(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  // A file that failed without a failing test (an import or syntax error) counts once.
  const brokenFiles = (report.testResults ?? []).filter(
    (result) => result.status === 'failed' && !(result.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + brokenFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

const format = ({ passed, failed, skipped }) => `${passed} passed, ${failed} failed, ${skipped} skipped`;

/**
 * Reads every run's reports; returns one line per Node line, the summary line (last,
 * plain) and whether all is green.
 */
export function summarize(root, runs) {
  const total = { passed: 0, failed: 0, skipped: 0 };
  const perLine = [];
  for (const run of runs) {
    const sum = { passed: 0, failed: 0, skipped: 0 };
    const missing = [];
    for (const pkg of run.packages) {
      const file = join(root, pkg, lineReport(run.line));
      const counted = existsSync(file) ? count(file) : (missing.push(pkg), { passed: 0, failed: 1, skipped: 0 });
      for (const key of Object.keys(sum)) sum[key] += counted[key];
    }
    for (const key of Object.keys(total)) total[key] += sum[key];
    const what = run.whole ? 'whole suite, toolchain' : `${run.packages.length} published packages`;
    perLine.push(`Node v${run.version} (${what}): ${format(sum)}${missing.length > 0 ? `; no test report from ${missing.join(', ')}` : ''}`);
  }
  return { perLine, line: format(total), ok: total.failed === 0 && total.passed > 0 };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..');
  try {
    const versions = JSON.parse(readFileSync(join(root, 'scripts', 'node-versions.json'), 'utf8'));
    const { perLine, line, ok } = summarize(root, testRuns(root, versions));
    for (const text of perLine) console.log(text);
    console.log(line);
    process.exit(ok ? 0 : 1);
  } catch (error) {
    // The summary line is what CI reads: it must be there, and count this as a failure.
    console.error(error instanceof Error ? error.message : String(error));
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}
