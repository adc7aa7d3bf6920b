import { defineConfig } from 'tsup';

// `npm run demo` sets IPSETS_SKIP_DTS=1: a first run needs the code, not the type declarations.
const skipDts = process.env.IPSETS_SKIP_DTS === '1';

export default defineConfig({
  entry: { index: 'src/index.ts', fake: 'src/fake.ts', vitest: 'src/vitest.ts', 'fake-ipset': 'src/bin/fake-ipset.ts' },
  format: ['esm'],
  dts: skipDts ? false : { entry: { index: 'src/index.ts', fake: 'src/fake.ts', vitest: 'src/vitest.ts' } },
  sourcemap: true,
  clean: true,
  target: 'es2022',
  external: ['vitest'],
});
