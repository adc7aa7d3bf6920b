/**
 * Soak run of the fake-versus-real differential check, outside vitest:
 *
 *   pnpm soak -- --scripts 5000 [--seed 123] [--parallel 2]
 *   (or: node --import tsx test/integration/soak.ts --scripts 5000)
 *
 * Needs root and ipset (it creates and deletes its own network namespaces) and built
 * @ipsets/core and @ipsets/testing (`pnpm build`; turbo's `soak` task builds them).
 * Prints every difference (script, both outcomes) up to --max-report, then a summary
 * line; exits 1 when any script differed.
 */
import fc from 'fast-check';
import { FakeKernel } from '@ipsets/fake-kernel';
import { restoreScriptArb } from '@ipsets/testing/arbitraries';
import { createTestNamespace, kernelTestSupport } from '../../src/netns.js';
import { describeDifference, runFake, runRealInShell } from '../helpers/differential.js';
import { openNamespaceShell } from '../helpers/netns-shell.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i === -1 ? undefined : Number(process.argv[i + 1]);
  return value === undefined || !Number.isFinite(value) ? fallback : value;
}

const scripts = option('scripts', Number(process.env['IPSETS_DIFF_SCRIPTS']) || 1000);
const seed = option('seed', Number(process.env['FC_SEED']) || Math.floor(Math.random() * 2 ** 31));
const parallel = Math.max(1, option('parallel', 2));
const maxReport = option('max-report', 5);

const support = await kernelTestSupport();
if (!support.available) {
  console.error(`soak: cannot run: ${support.reason}`);
  process.exit(process.env['IPSETS_KERNEL_TESTS'] === 'require' ? 1 : 0);
}

console.log(`soak: ${scripts} scripts, FC_SEED=${seed}, ${parallel} namespace(s)`);
const samples = fc.sample(restoreScriptArb(), { numRuns: scripts, seed });
const started = performance.now();
let next = 0;
let passed = 0;
let failed = 0;
let lines = 0;
const byExit = new Map<string, number>();

async function worker(id: number): Promise<void> {
  const ns = await createTestNamespace(`soak${id}`);
  const shell = await openNamespaceShell(ns.name);
  try {
    while (next < samples.length) {
      const index = next++;
      const script = samples[index]!;
      lines += script.text.split('\n').length - 1;
      const real = await runRealInShell(shell, script);
      const fake = runFake(() => new FakeKernel(), script);
      const key = `${real.exitCode}${real.signal === undefined ? '' : ` ${real.signal}`}`;
      byExit.set(key, (byExit.get(key) ?? 0) + 1);
      const difference = describeDifference(script, real, fake);
      if (difference === undefined) passed += 1;
      else {
        failed += 1;
        if (failed <= maxReport) console.log(`\n--- difference in script #${index} (FC_SEED=${seed})\n${difference}\n`);
      }
      const done = passed + failed;
      if (done % 500 === 0) console.log(`soak: ${done}/${scripts} scripts, ${failed} different, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    await shell.close();
    await ns.dispose();
  }
}

await Promise.all(Array.from({ length: parallel }, (_, i) => worker(i + 1)));
const seconds = (performance.now() - started) / 1000;
const exits = [...byExit.entries()].sort().map(([k, v]) => `exit ${k}: ${v}`).join(', ');
console.log(`soak: ${scripts} scripts (${lines} lines) in ${seconds.toFixed(1)} s; real outcomes ${exits}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
