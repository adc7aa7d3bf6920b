import { defineConfig } from 'tsup';

// `npm run demo` sets IPSETS_SKIP_DTS=1: a first run needs the code, not the type declarations.
const skipDts = process.env.IPSETS_SKIP_DTS === '1';

// The library entries as ESM (`import`) and CommonJS (`require`, with .d.cts types);
// the fake-ipset executable as ESM only.
export default defineConfig({
  entry: { index: 'src/index.ts', 'state-file': 'src/state-file.ts', 'fake-ipset': 'src/bin/fake-ipset.ts' },
  format: ['esm', 'cjs'],
  dts: skipDts ? false : { entry: { index: 'src/index.ts', 'state-file': 'src/state-file.ts' } },
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
