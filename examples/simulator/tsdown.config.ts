import { defineConfig } from 'tsdown';
import { library } from '../../tsdown.shared.ts';

export default defineConfig(library({ entry: { index: 'src/index.ts', cli: 'src/cli.ts' }, format: ['esm'], dts: false }));
