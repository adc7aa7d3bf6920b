/**
 * This package's version, read from its package.json. This file sits directly in
 * `src/` because `dist/` (where the bundler puts its chunks) and `src/` are both one
 * folder below package.json.
 */
import { readFileSync } from 'node:fs';

/** This package's version (from its package.json). */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
