import { defineConfig } from 'tsup';

// `npm run demo` sets IPSETS_SKIP_DTS=1: a first run needs the code, not the type declarations.
const skipDts = process.env.IPSETS_SKIP_DTS === '1';

// ESM (`import`) and CommonJS (`require`, with .d.cts types for TypeScript CommonJS consumers).
export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts'],
  format: ['esm', 'cjs'],
  dts: !skipDts,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
