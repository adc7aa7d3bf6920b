import { defineConfig } from 'tsup';

// `npm run demo` sets IPSETS_SKIP_DTS=1: a first run needs the code, not the type declarations.
const skipDts = process.env.IPSETS_SKIP_DTS === '1';

export default defineConfig([
  // The library and the `ipsets` executable as ESM (bin.ts uses top-level await).
  {
    entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
    format: ['esm'],
    dts: skipDts ? false : { entry: { index: 'src/index.ts' } },
    sourcemap: true,
    clean: true,
    target: 'es2022',
  },
  // The library for `require()` (with .d.cts types); `shims` gives it import.meta.url.
  // Dynamic imports become require() calls: an import() here would load the ESM copy of
  // @ipsets/core next to the CommonJS one, and isIpsetsError() fails across copies.
  {
    entry: { index: 'src/index.ts' },
    format: ['cjs'],
    dts: skipDts ? false : { entry: { index: 'src/index.ts' } },
    sourcemap: true,
    clean: false,
    shims: true,
    target: 'es2022',
    esbuildOptions(options) {
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
  },
]);
