import type { UserConfig } from 'tsdown';

/** `npm run demo` sets IPSETS_SKIP_DTS=1: a first run needs the code, not the type declarations. */
export const skipDts = process.env['IPSETS_SKIP_DTS'] === '1';

/**
 * The build every published package shares: ESM (`import`) and CommonJS (`require`,
 * with .d.cts types for TypeScript CommonJS consumers), source maps, ES2022. Each
 * package's tsdown.config.ts names its entries and what differs.
 */
export function library(options: UserConfig): UserConfig {
  return {
    format: ['esm', 'cjs'],
    dts: !skipDts,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    platform: 'node',
    // "type": "module" packages: ESM as .js and CommonJS as .cjs (types .d.ts / .d.cts), as the exports maps say.
    fixedExtension: false,
    // The JSDoc is in the .d.ts files, where editors read it; the JavaScript carries none.
    outputOptions: { comments: { jsdoc: false } },
    ...options,
  };
}
