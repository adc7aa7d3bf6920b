import { defineConfig } from 'tsup';

// `npm run demo` sets IPSETS_SKIP_DTS=1: a first run needs the code, not the type declarations.
const skipDts = process.env.IPSETS_SKIP_DTS === '1';

// ESM (`import`) and CommonJS (`require`, with .d.cts types for TypeScript CommonJS consumers).
export default defineConfig({
  entry: { index: 'src/index.ts', fake: 'src/fake.ts', vitest: 'src/vitest.ts' },
  format: ['esm', 'cjs'],
  dts: !skipDts,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  external: ['vitest'],
});
