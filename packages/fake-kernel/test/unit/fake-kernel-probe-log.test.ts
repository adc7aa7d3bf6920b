/**
 * Replays every restore case of the probe log (the raw evidence behind
 * docs/ipset-semantics.md, measured on a real ipset 7.17 kernel) on the fake kernel:
 * same exit code, same stderr byte for byte, same state (initval masked, members
 * sorted within a set), same stdout (memory sizes masked).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '../../src/fake-kernel.js';
import { inputText, readProbeCases } from '../helpers/probe-log.js';

const cases = readProbeCases(fileURLToPath(new URL('../fixtures/ipset-probe.log', import.meta.url)));

function mask(s: string): string {
  return s.replace(/initval 0x[0-9a-f]{8}/g, 'initval 0x<RANDOM>').replace(/Size in memory: \d+/g, 'Size in memory: <N>');
}

function sortWithinSets(lines: readonly string[]): string[] {
  const out: string[] = [];
  let block: string[] = [];
  const flush = (): void => {
    out.push(...block.sort());
    block = [];
  };
  for (const l of lines) {
    if (l.startsWith('create ')) {
      flush();
      out.push(l);
    } else block.push(l);
  }
  flush();
  return out;
}

describe('probe log replay (real ipset 7.17 evidence)', () => {
  it('has the expected number of restore cases', () => {
    expect(cases.length).toBeGreaterThan(170);
  });

  for (const c of cases) {
    it(c.title, () => {
      const k = new FakeKernel();
      if (c.pre.length > 0) expect(k.restore(`${c.pre.join('\n')}\n`).exitCode).toBe(0);
      const r = k.restore(inputText(c), { exist: c.exist });
      const segfault = c.stderr.some((l) => l.includes('Segmentation fault'));
      expect(r.exitCode).toBe(c.rc);
      expect(r.stderr).toBe(segfault ? '' : c.stderr.map((l) => `${l}\n`).join(''));
      if (segfault) expect(r.signal).toBe('SIGSEGV');
      if (c.stdout.length > 0) expect(mask(r.stdout)).toBe(mask(c.stdout.map((l) => `${l}\n`).join('')));
      if (c.save !== undefined) {
        const got = sortWithinSets(mask(k.saveText()).split('\n').filter((l) => l !== ''));
        expect(got).toEqual(sortWithinSets(c.save));
      }
    });
  }
});
