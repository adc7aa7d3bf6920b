#!/usr/bin/env node
/**
 * The `ipsets` executable (built to dist/bin.js; the build keeps the shebang and marks it executable).
 */
import { processIo } from './cli-io.js';
import { runCli } from './program/index.js';

// `ipsets plan big.yaml | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const code = await runCli(process.argv.slice(2), processIo());
// exitCode instead of exit(): lets stdout drain when it is a pipe.
process.exitCode = code;
