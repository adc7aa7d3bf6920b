import { defineConfig } from 'tsdown';
import { library, skipDts } from '../../tsdown.shared.ts';

// The library entries with types; the fake-ipset executable without.
export default defineConfig(
  library({
    entry: { index: 'src/index.ts', invariants: 'src/invariants.ts', 'state-file': 'src/state-file.ts', 'fake-ipset': 'src/bin/fake-ipset.ts' },
    dts: skipDts ? false : { entry: ['src/index.ts', 'src/invariants.ts', 'src/state-file.ts'] },
  }),
);
