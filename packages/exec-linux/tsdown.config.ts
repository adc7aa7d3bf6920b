import { defineConfig } from 'tsdown';
import { library } from '../../tsdown.shared.ts';

export default defineConfig(library({ entry: { index: 'src/index.ts', defaults: 'src/defaults.ts', testing: 'src/testing.ts' } }));
