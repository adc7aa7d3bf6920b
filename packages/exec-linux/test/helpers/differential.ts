/**
 * Runs one restore script on the real kernel (inside a namespace) and on the fake
 * kernel, and compares what matters: exit code, the first stderr line, and the final
 * `ipset save` normalised (initval, hashsize, member order within hash sets).
 */
import type { CommandResult } from '@ipsets/core';
import type { RestoreScript } from '@ipsets/testing/arbitraries';
import type { TestNamespace } from '../../src/netns.js';
import type { NamespaceShell } from './netns-shell.js';
import { normalisedText } from './save.js';

/** What one side produced. */
export interface SideOutcome {
  exitCode: number;
  signal?: string;
  firstError: string;
  save: string;
}

/** The fake kernel surface the comparison needs (FakeKernel of @ipsets/testing fits). */
export interface FakeKernelLike {
  restore(text: string, options?: { exist?: boolean }): CommandResult;
  save(): CommandResult;
}

function outcome(result: CommandResult, saved: CommandResult): SideOutcome {
  return {
    exitCode: result.exitCode,
    ...(result.signal === undefined ? {} : { signal: result.signal }),
    firstError: result.stderr.split('\n')[0] ?? '',
    save: normalisedText(saved.stdout),
  };
}

/** Empties the namespace's sets (flush first: list:sets hold references). */
export async function clearNamespace(ns: TestNamespace): Promise<void> {
  const cleared = await ns.run(['ipset', 'restore'], 'flush\ndestroy\n');
  if (cleared.exitCode !== 0) throw new Error(`clearing ${ns.name} failed: ${cleared.stderr}`);
}

/** Runs `script` on a cleared namespace (after its setup run, which must succeed). */
export async function runReal(ns: TestNamespace, script: RestoreScript): Promise<SideOutcome> {
  await clearNamespace(ns);
  if (script.setup !== undefined) {
    const setup = await ns.run(['ipset', 'restore'], script.setup);
    if (setup.exitCode !== 0) throw new Error(`the setup run failed in ${ns.name}: ${setup.stderr}`);
  }
  const result = await ns.run(['ipset', ...(script.exist ? ['-exist'] : []), 'restore'], script.text);
  const saved = await ns.run(['ipset', 'save']);
  return outcome(result, saved);
}

/** Runs `script` through a namespace shell (faster than {@link runReal}; same result). */
export async function runRealInShell(shell: NamespaceShell, script: RestoreScript): Promise<SideOutcome> {
  const { restore, save } = await shell.runScript(script.text, script.exist, script.setup);
  return outcome(restore, save);
}

/** Runs `script` on a fresh fake kernel (after its setup run, which must succeed). */
export function runFake(makeKernel: () => FakeKernelLike, script: RestoreScript): SideOutcome {
  const kernel = makeKernel();
  if (script.setup !== undefined) {
    const setup = kernel.restore(script.setup);
    if (setup.exitCode !== 0) throw new Error(`the setup run failed on the fake kernel: ${setup.stderr}`);
  }
  const result = kernel.restore(script.text, { exist: script.exist });
  return outcome(result, kernel.save());
}

/** A difference, described for a failure message (undefined when equal). */
export function describeDifference(script: RestoreScript, real: SideOutcome, fake: SideOutcome): string | undefined {
  const diffs: string[] = [];
  if (real.exitCode !== fake.exitCode || real.signal !== fake.signal) {
    diffs.push(`exit: real ${real.exitCode}${real.signal ? ` (${real.signal})` : ''}, fake ${fake.exitCode}${fake.signal ? ` (${fake.signal})` : ''}`);
  }
  if (real.firstError !== fake.firstError) diffs.push(`first error line:\n  real: ${real.firstError}\n  fake: ${fake.firstError}`);
  if (real.save !== fake.save) diffs.push(`save (normalised):\n--- real\n${real.save}\n--- fake\n${fake.save}`);
  if (diffs.length === 0) return undefined;
  const lines = script.text.split('\n');
  // The last line has no newline when the text does not end in one.
  const numbered = (script.text.endsWith('\n') ? lines.slice(0, -1) : [...lines.slice(0, -1), `${lines.at(-1)!}   (no final newline)`]).map(
    (l, i) => `${String(i + 1).padStart(4)}| ${l}`,
  );
  const shown = numbered.length > 60 ? [...numbered.slice(0, 30), `   …(${numbered.length - 50} lines)…`, ...numbered.slice(-20)] : numbered;
  const setup = script.setup === undefined ? [] : ['after a setup run (`ipset restore`, its sets are not in the script\'s set cache) of:', ...script.setup.split('\n').slice(0, -1).map((l) => `    | ${l}`)];
  return [...setup, `fake and real kernel differ for \`ipset ${script.exist ? '-exist ' : ''}restore\` of:`, ...shown, ...diffs].join('\n');
}
