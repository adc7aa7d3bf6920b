#!/usr/bin/env node
/**
 * The `ipsets` executable (built to dist/bin.js; the build keeps the shebang and marks it executable).
 * It checks the Node it runs on first and loads the command only then.
 */
import { SUPPORTED_NODE, isSupportedNode } from './node-support.js';

if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(
    `ipsets: Node v${process.versions.node} is not supported: ipsets needs Node ${SUPPORTED_NODE}` +
      ' (in a clone of its repository, `npm run ipsets -- ARGS` runs it on the pinned Node)\n',
  );
  process.exit(1);
}

const { processIo } = await import('./cli-io.js');
const { runCli } = await import('./program/index.js');

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
