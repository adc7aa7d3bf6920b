/** Small helpers for fake-kernel tests. */
import type { CommandResult } from '@ipsets/core';
import { FakeKernel } from '../../src/fake-kernel.js';

/** The `ipset: v7.17: ` prefix. */
export const P = 'ipset v7.17: ';
/** The Try-line after parameter problems. */
export const TRY = "Try `ipset help' for more information.\n";

/** A kernel after restoring `setup` (which must succeed). */
export function kernelWith(setup = '', options: { maxSets?: number } = {}): FakeKernel {
  const k = new FakeKernel(options);
  if (setup !== '') {
    const r = k.restore(setup);
    if (r.exitCode !== 0) throw new Error(`setup failed: ${r.stderr}`);
  }
  return k;
}

/** Restores `lines` (joined with `\n`, final newline added) into a fresh kernel. */
export function run(lines: readonly string[], options: { exist?: boolean; setup?: string } = {}): {
  k: FakeKernel;
  r: CommandResult;
} {
  const k = kernelWith(options.setup);
  const r = k.restore(`${lines.join('\n')}\n`, { exist: options.exist ?? false });
  return { k, r };
}

/** Members of a set sorted (hash order is not modelled; compare sorted). */
export function sorted(k: FakeKernel, name: string): string[] {
  return [...(k.members(name) ?? [])].sort();
}

/** `ipset save` with initval masked. */
export function saveNormalised(k: FakeKernel): string {
  return k.saveText().replace(/initval 0x[0-9a-f]{8}/g, 'initval 0x<RANDOM>');
}

/** A restore text of `n` adds to set `a` with distinct addresses (10.0.x.y, starting at .1). */
export function adds(n: number, set = 'a'): string[] {
  const out: string[] = [];
  for (let i = 1; i <= n; i++) out.push(`add ${set} 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  return out;
}
