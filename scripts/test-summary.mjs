#!/usr/bin/env node
// Adds up vitest's JSON reports (packages/*/test-results.json, and
// examples/*/test-results.json of the examples that have tests) into the one plain
// line CI reads: `N passed, N failed` (a package whose report is missing counts
// as one failure, so a crashed run can never look green).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Folders whose report is expected: every one under `packages/`, and those under
 * `examples/` whose package.json has a `test` script.
 */
function testedPackages(root) {
  const found = readdirSync(join(root, 'packages')).sort().map((name) => `packages/${name}`);
  const examples = join(root, 'examples');
  if (!existsSync(examples)) return found;
  for (const name of readdirSync(examples).sort()) {
    const manifest = join(examples, name, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test !== undefined) found.push(`examples/${name}`);
  }
  return found;
}

/** Reads every package's report; returns the summary line and whether all is green. */
export function summarize(root) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const missing = [];
  for (const pkg of testedPackages(root)) {
    const file = join(root, pkg, 'test-results.json');
    if (!existsSync(file)) {
      missing.push(pkg);
      failed += 1;
      continue;
    }
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests ?? 0;
    // A file that failed without a failing test (an import or syntax error) counts once.
    const brokenFiles = (report.testResults ?? []).filter(
      (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
    ).length;
    failed += (report.numFailedTests ?? 0) + brokenFiles;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  }
  if (missing.length > 0) console.error(`no test report from: ${missing.join(', ')}`);
  return { line: `${passed} passed, ${failed} failed, ${skipped} skipped`, ok: failed === 0 && passed > 0 };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { line, ok } = summarize(process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..'));
  console.log(line);
  process.exit(ok ? 0 : 1);
}
