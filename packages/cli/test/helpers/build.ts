/**
 * vitest globalSetup: the end-to-end tests run the BUILT `ipsets` binary, which
 * imports the built workspace packages. Each package whose dist is missing or older
 * than its sources is built once here (`npx tsdown`), in dependency order. In CI the
 * turbo test task already built everything, so this only checks timestamps.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set when the binary could not be built (the end-to-end tests fail with it). */
    ipsetsBuildError: string;
  }
}

const packagesDir = fileURLToPath(new URL('../../../', import.meta.url));
const ORDER = ['core', 'testing', 'exec-linux', 'cli'];

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(pkg: string): boolean {
  const dir = join(packagesDir, pkg);
  const built = join(dir, 'dist', 'index.js');
  if (!existsSync(built)) return true;
  const sources = Math.max(newest(join(dir, 'src')), statSync(join(dir, 'package.json')).mtimeMs, statSync(join(dir, 'tsdown.config.ts')).mtimeMs);
  return sources > statSync(built).mtimeMs;
}

/**
 * Builds what is missing or stale (vitest globalSetup). A failed build does not stop
 * the run: unit tests do not need it, and the end-to-end tests fail on their own
 * (see `run-ipsets.ts`), with the build's error, which is printed here.
 */
export default function setup(project: TestProject): void {
  project.provide('ipsetsBuildError', '');
  // For debugging against a dist built by hand.
  if (process.env['IPSETS_E2E_SKIP_BUILD'] === '1') return;
  let rebuilt = false;
  for (const pkg of ORDER) {
    // A dependency rebuilt means its dependents' bundles may inline stale types; rebuild them too.
    if (!rebuilt && !stale(pkg)) continue;
    rebuilt = true;
    try {
      execFileSync('npx', ['tsdown', '--logLevel', 'error'], { cwd: join(packagesDir, pkg), stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const e = error as { stderr?: Buffer; stdout?: Buffer };
      const output = `${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`.trim();
      console.error(`[ipsets e2e] building @ipsets/${pkg} failed; end-to-end tests will fail:\n${output}`);
      project.provide('ipsetsBuildError', `building @ipsets/${pkg} failed: ${output.split('\n').slice(0, 5).join(' | ')}`);
      return;
    }
  }
}
