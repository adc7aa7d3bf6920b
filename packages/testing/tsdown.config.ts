import { defineConfig } from 'tsdown';
import { library } from '../../tsdown.shared.ts';

// vitest is an optional peer: `@ipsets/testing/vitest` imports the user's copy.
export default defineConfig(
  library({ entry: { index: 'src/index.ts', arbitraries: 'src/arbitraries.ts', vitest: 'src/vitest.ts' }, deps: { neverBundle: ['vitest'] } }),
);
