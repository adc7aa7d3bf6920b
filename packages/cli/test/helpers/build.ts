/**
 * vitest globalSetup: the end-to-end tests run the BUILT `ipsets` binary, which
 * imports the built workspace packages. Each package whose dist is missing or older
 * than its sources is built once here (`npx tsup`), in dependency order. In CI the
 * turbo test task already built everything, so this only checks timestamps.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const sources = Math.max(newest(join(dir, 'src')), statSync(join(dir, 'package.json')).mtimeMs, statSync(join(dir, 'tsup.config.ts')).mtimeMs);
  return sources > statSync(built).mtimeMs;
}

/** Builds what is missing or stale; returns nothing (vitest globalSetup). */
export default function setup(): void {
  let rebuilt = false;
  for (const pkg of ORDER) {
    // A dependency rebuilt means its dependents' bundles may inline stale types; rebuild them too.
    if (!rebuilt && !stale(pkg)) continue;
    rebuilt = true;
    execFileSync('npx', ['tsup', '--silent'], { cwd: join(packagesDir, pkg), stdio: ['ignore', 'ignore', 'inherit'] });
  }
}
