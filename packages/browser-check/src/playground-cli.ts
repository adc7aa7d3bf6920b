/**
 * `npm run playground`: bundles the playground page (examples/playground) for the
 * browser, with the same Node guard as the tests, next to its index.html, prints the
 * bundle size, and with `--serve` serves the page on 127.0.0.1 until interrupted.
 */
import { join } from 'node:path';
import { REPO_ROOT, bundleForBrowser } from './bundle.js';
import { serveDirectory } from './serve.js';

const dir = join(REPO_ROOT, 'examples/playground');
const { outputs } = await bundleForBrowser({ entries: { playground: join(dir, 'playground.ts') }, outdir: dir });
for (const o of outputs) console.log(`built ${o.file} (${o.bytes} bytes)`);
if (process.argv.includes('--serve')) {
  const server = await serveDirectory(dir);
  console.log(`playground at ${server.url} (Ctrl-C to stop)`);
} else {
  console.log(`open ${join(dir, 'index.html')} in a browser, or run: npm run playground -- --serve`);
}
