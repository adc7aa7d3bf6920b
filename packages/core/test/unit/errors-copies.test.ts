/**
 * The package ships an ESM and a CommonJS build; an application can load both (its own
 * `import` plus a dependency's `require`), and each has its own `IpsetsError` class.
 * `instanceof` then fails across the copies, so `isIpsetsError` used to answer false for
 * an error thrown by the other copy. It checks a `Symbol.for` brand instead.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

type Core = typeof import('../../src/index.js');

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const source = fileURLToPath(new URL('../../src/errors.ts', import.meta.url));

function loadBuilds(): { esm: Promise<Core>; cjs: Core } {
  const esmFile = `${dist}index.js`;
  const cjsFile = `${dist}index.cjs`;
  for (const file of [esmFile, cjsFile]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`pnpm build\` first (turbo's test task does)`);
    if (statSync(file).mtimeMs < statSync(source).mtimeMs) throw new Error(`${file} is older than src/errors.ts: run \`pnpm build\``);
  }
  return { esm: import(/* @vite-ignore */ pathToFileURL(esmFile).href) as Promise<Core>, cjs: createRequire(import.meta.url)(cjsFile) as Core };
}

describe('isIpsetsError across duplicated copies of @ipsets/core', () => {
  it('the ESM and the CommonJS build recognise each other’s errors, and the code filter still applies', async () => {
    const { esm: esmPromise, cjs } = loadBuilds();
    const esm = await esmPromise;
    expect(esm.IpsetsError).not.toBe(cjs.IpsetsError);

    const fromCjs = new cjs.IpsetsError('INVALID_MEMBER', 'bad member "x"');
    const fromEsm = new esm.IpsetsError('TIMEOUT', 'timed out');
    expect(fromCjs instanceof esm.IpsetsError).toBe(false);
    expect(esm.isIpsetsError(fromCjs)).toBe(true);
    expect(esm.isIpsetsError(fromCjs, 'INVALID_MEMBER')).toBe(true);
    expect(esm.isIpsetsError(fromCjs, 'TIMEOUT')).toBe(false);
    expect(cjs.isIpsetsError(fromEsm, 'TIMEOUT')).toBe(true);
  });

  it('a plain error, or an object that only copies the name and code, is not an IpsetsError', async () => {
    const esm = await loadBuilds().esm;
    expect(esm.isIpsetsError(new Error('x'))).toBe(false);
    expect(esm.isIpsetsError({ name: 'IpsetsError', code: 'TIMEOUT', message: 'x' })).toBe(false);
    expect(esm.isIpsetsError(null)).toBe(false);
    expect(esm.isIpsetsError('IpsetsError')).toBe(false);
  });
});
