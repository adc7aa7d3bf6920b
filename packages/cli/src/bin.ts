#!/usr/bin/env node
/**
 * The `ipsets` executable (built to dist/bin.js with a `#!/usr/bin/env node` banner).
 */
import { processIo } from './cli-io.js';
import { runCli } from './program.js';

const code = await runCli(process.argv.slice(2), processIo());
// exitCode instead of exit(): lets stdout drain when it is a pipe.
process.exitCode = code;
