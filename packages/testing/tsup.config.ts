import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', vitest: 'src/vitest.ts', 'fake-ipset': 'src/bin/fake-ipset.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts', vitest: 'src/vitest.ts' } },
  sourcemap: true,
  clean: true,
  target: 'es2022',
  external: ['vitest'],
});
