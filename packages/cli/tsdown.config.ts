import { defineConfig } from 'tsdown';
import { library, skipDts } from '../../tsdown.shared.ts';

const dts = skipDts ? false : { entry: ['src/index.ts'] };

export default defineConfig([
  // The library and the `ipsets` executable as ESM (bin.ts uses top-level await).
  library({ entry: { index: 'src/index.ts', bin: 'src/bin.ts' }, format: ['esm'], dts }),
  // The library for `require()` (with .d.cts types); `shims` gives it import.meta.url.
  // Dynamic imports become require() calls: an import() here would load the ESM copy of
  // @ipsets/core next to the CommonJS one, and isIpsetsError() fails across copies.
  library({
    entry: { index: 'src/index.ts' },
    format: ['cjs'],
    dts,
    clean: false,
    shims: true,
    outputOptions: { comments: { jsdoc: false }, dynamicImportInCjs: false },
  }),
]);
