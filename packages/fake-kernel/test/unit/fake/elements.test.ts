/**
 * Element parsing and canonical forms (docs/ipset-semantics.md §4): every row of the
 * probe log's normalisation table (real ipset 7.17) replayed on the fake kernel, plus
 * the list:set ordering rules and hash:ip netmask/range expansion.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '../../../src/fake-kernel.js';
import { run, sorted } from '../../helpers/fake.js';

interface Row {
  create: string;
  line: string;
  rc: number;
  stored: string[] | number | null;
  stderr: string;
}

/** Rows like `hash:ip | add a 10.0.0.1 | rc=0 | stored: 10.0.0.1 | stderr: ` (section 3b of the log). */
function readRows(): Row[] {
  const text = readFileSync(fileURLToPath(new URL('../../fixtures/ipset-probe.log', import.meta.url)), 'utf8');
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const m = /^(hash:[a-z,]+(?: family inet6| netmask 24)?)\s+\| (add a .*?)\s+\| rc=(\d+) \| stored: (.*?) \| stderr: (.*)$/.exec(line);
    if (m === null) continue;
    const [, create, add, rc, stored, stderr] = m as unknown as [string, string, string, string, string, string];
    const count = /\((\d+) members\)/.exec(stored);
    rows.push({
      create: `create a ${create.trim()}`,
      line: add,
      rc: Number(rc),
      stored: stored === '<none>' ? null : count !== null ? Number(count[1]) : stored.split(' ').reduce<string[]>(joinNomatch, []),
      stderr: stderr === '' ? '' : `${stderr.split('|').filter((l) => l !== '').join('\n')}\n`,
    });
  }
  return rows;
}

function joinNomatch(acc: string[], word: string): string[] {
  if (word === 'nomatch' && acc.length > 0) acc[acc.length - 1] += ' nomatch';
  else acc.push(word);
  return acc;
}

/** `sort -V`-like order for addresses (numeric runs compared as numbers). */
function versionSort(xs: string[]): string[] {
  const key = (s: string): (string | number)[] => s.split(/(\d+)/).map((p, i) => (i % 2 === 1 ? Number(p) : p));
  return [...xs].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
      const x = ka[i] ?? '';
      const y = kb[i] ?? '';
      if (x === y) continue;
      if (typeof x === 'number' && typeof y === 'number') return x - y;
      return String(x) < String(y) ? -1 : 1;
    }
    return 0;
  });
}

describe('docs/ipset-semantics.md §4 normalisation table (probe log section 3b)', () => {
  const rows = readRows();
  it('reads the whole table', () => {
    expect(rows.length).toBeGreaterThan(120);
  });
  for (const row of rows) {
    it(`${row.create.slice(9)} | ${row.line}`, () => {
      const k = new FakeKernel();
      k.restore(`${row.create}\n`);
      const r = k.restore(`${row.line}\n`.replace('add a', 'add a'));
      // The probe ran `create` and the add in one file: the add was line 2.
      const stderr = r.stderr.replace('Error in line 1:', 'Error in line 2:');
      expect({ rc: r.exitCode, stderr }).toEqual({ rc: row.rc, stderr: row.stderr });
      const members = k.members('a') ?? [];
      if (row.stored === null) expect(members).toEqual([]);
      else if (typeof row.stored === 'number') expect(members).toHaveLength(row.stored);
      else expect(versionSort(members)).toEqual(versionSort(row.stored));
    });
  }
});

describe('docs/ipset-semantics.md §4 further canonical forms', () => {
  it('hash:ip netmask 24: a /16 becomes 256 entries, an address its network', () => {
    const { k } = run(['create a hash:ip netmask 24', 'add a 10.0.0.0/16', 'create b hash:ip netmask 24', 'add b 10.1.2.3']);
    expect(k.members('a')).toHaveLength(256);
    expect(k.members('a')?.[255]).toBe('10.0.255.0');
    expect(k.members('b')).toEqual(['10.1.2.0']);
  });

  it('hash:net: a range is a different element from an overlapping CIDR; del of a range deletes its blocks', () => {
    const { k } = run(['create a hash:net', 'add a 10.0.0.4/30', 'add a 10.0.0.0-10.0.0.15', 'del a 10.0.0.0-10.0.0.15']);
    expect(k.members('a')).toEqual(['10.0.0.4/30']);
  });

  it('hash:ip range partially applied when the hash is full', () => {
    const { r, k } = run(['create a hash:ip maxelem 6', 'add a 10.0.0.0/30', 'add a 10.0.1.0/30']);
    expect(r.stderr).toBe('ipset v7.17: Error in line 3: Hash is full, cannot add more elements\n');
    expect(sorted(k, 'a')).toEqual(['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.1.0', '10.0.1.1']);
  });

  it('list:set: append, before and after; del with after', () => {
    const { k } = run(['create l list:set', ...['m1', 'm2', 'm3', 'm4'].map((m) => `create ${m} hash:ip`), 'add l m1', 'add l m2', 'add l m3 before m2', 'add l m4 after m1']);
    expect(k.members('l')).toEqual(['m1', 'm4', 'm3', 'm2']);
    expect(k.restore('del l m3 after m4\n').exitCode).toBe(0);
    expect(k.members('l')).toEqual(['m1', 'm4', 'm2']);
    expect(k.restore('del l m1 before m4\n').exitCode).toBe(0);
    expect(k.members('l')).toEqual(['m4', 'm2']);
  });

  it('list:set size is not enforced and members may mix families', () => {
    const creates = Array.from({ length: 10 }, (_, i) => `create m${i} hash:ip${i % 2 === 0 ? '' : ' family inet6'}`);
    const { r, k } = run(['create l list:set size 4', ...creates, ...creates.map((_, i) => `add l m${i}`)]);
    expect(r.exitCode).toBe(0);
    expect(k.members('l')).toHaveLength(10);
  });

  it('timeout, counters, comment and nomatch print in ipset order', () => {
    const { k } = run(['create a hash:net timeout 100 counters comment', 'add a 10.0.0.0/8 nomatch comment "c" packets 1 bytes 2', 'add a 11.0.0.0/8 timeout 5']);
    expect(k.members('a')).toEqual(['10.0.0.0/8 timeout 100 nomatch packets 1 bytes 2 comment "c"', '11.0.0.0/8 timeout 5 packets 0 bytes 0']);
  });
});
