/**
 * Parsing a 1,000,000-member `ipset save` (100 hash:net sets × 10,000 members,
 * a tenth of them CIDRs, some nomatch). Compare with the time `ipset save` takes
 * for the same state (docs/ipset-semantics.md §8: ~0.08-0.11 s per 100k members).
 *
 *   node --expose-gc --import tsx bench/save-parser.ts
 */
import { parseSave } from '../src/parse/save-parser.js';

const SETS = 100;
const PER_SET = (Number(process.env.BENCH_MEMBERS) || 1_000_000) / SETS;
const parts: string[] = [];
for (let s = 0; s < SETS; s++) {
  const name = `azure-npm-${(1e19 + s * 7919).toString(36).slice(0, 20)}`;
  parts.push(`create ${name} hash:net family inet hashsize 16384 maxelem 65536 bucketsize 12 initval 0x${(s * 2654435761 >>> 0).toString(16)}\n`);
  for (let i = 0; i < PER_SET; i++) {
    const v = s * PER_SET + i;
    const ip = `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`;
    parts.push(i % 10 === 0 ? `add ${name} ${ip.replace(/\.\d+$/, '.0')}/24${i % 20 === 0 ? ' nomatch' : ''}\n` : `add ${name} ${ip}\n`);
  }
}
const text = parts.join('');

const gc = (globalThis as { gc?: () => void }).gc;
const times: number[] = [];
let members = 0;
for (let r = 0; r < 7; r++) {
  gc?.();
  const t0 = performance.now();
  const snapshot = parseSave(text);
  times.push(performance.now() - t0);
  members = snapshot.sets.reduce((n, s) => n + s.members.length, 0);
  if (snapshot.problems.length > 0) throw new Error('unexpected problems');
}
times.sort((a, b) => a - b);
console.log(
  `parseSave: ${members} members, ${(text.length / 1e6).toFixed(1)} MB: median ${times[3]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms`,
);
