import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostValue } from '../../../src/model/members.js';
import { parseListHeaders, parseListNames } from '../../../src/parse/list-parser.js';
import { SaveReader, parseSave } from '../../../src/parse/save-parser.js';
import type { SavedSet, SetHeader } from '../../../src/types.js';

/** A saved set as plain data: what the generators make and what a parsed set reads as. */
interface PlainSet {
  name: string;
  type: string;
  options: string;
  members: string[];
}

/** The parsed sets as plain data (their members read as strings). */
const plainSets = (sets: readonly SavedSet[]): PlainSet[] => sets.map((s) => ({ name: s.name, type: s.type, options: s.options, members: [...s.members] }));

const numRuns = Number(process.env.FC_NUM_RUNS) || 300;
const params = { numRuns };

const nameChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.:/'.split(''));
const setName = fc
  .string({ unit: nameChar, minLength: 1, maxLength: 31 })
  .filter((s) => !s.startsWith('-'));
const octet = fc.nat(255);
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
const netMember = fc
  .tuple(ipv4, fc.option(fc.integer({ min: 1, max: 31 })), fc.boolean())
  .map(([ip, len, nomatch]) => `${ip}${len === null ? '' : `/${len}`}${nomatch ? ' nomatch' : ''}`);
const portMember = fc
  .tuple(ipv4, fc.constantFrom('tcp', 'udp', 'sctp', 'icmp'), fc.integer({ min: 0, max: 65535 }))
  .map(([ip, proto, port]) => `${ip},${proto}:${port}`);
const optionWord = fc.constantFrom('family', 'inet', 'hashsize', '1024', 'maxelem', '65536', 'bucketsize', '12', 'initval', '0x1a2b3c4d', 'size', '8');
const options = fc.array(optionWord, { maxLength: 10 }).map((w) => w.join(' '));

const savedSets = fc
  .uniqueArray(setName, { maxLength: 8 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc.oneof(
          fc.record({ name: fc.constant(name), type: fc.constant('hash:net'), options, members: fc.array(netMember, { maxLength: 20 }) }),
          fc.record({ name: fc.constant(name), type: fc.constant('hash:ip,port'), options, members: fc.array(portMember, { maxLength: 20 }) }),
          fc.record({ name: fc.constant(name), type: fc.constant('list:set'), options, members: fc.array(setName, { maxLength: 5 }) }),
        ),
      ),
    ),
  )
  .map((sets) => sets as PlainSet[]);

/** Writes sets the way `ipset save` does (docs/ipset-semantics.md §5.1). */
function formatSave(sets: readonly PlainSet[], eol: string, finalNewline: boolean): string {
  const lines: string[] = [];
  for (const set of sets) {
    lines.push(`create ${set.name} ${set.type}${set.options === '' ? '' : ` ${set.options}`}`);
    for (const member of set.members) lines.push(`add ${set.name} ${member}`);
  }
  return lines.join(eol) + (finalNewline && lines.length > 0 ? eol : '');
}

describe('save parser properties', () => {
  it('formatting sets as save text and parsing it back round-trips', () => {
    fc.assert(
      fc.property(savedSets, fc.constantFrom('\n', '\r\n'), fc.boolean(), (sets, eol, finalNewline) => {
        const parsed = parseSave(formatSave(sets, eol, finalNewline));
        expect(parsed.problems).toEqual([]);
        expect(plainSets(parsed.sets)).toEqual(sets);
      }),
      params,
    );
  });

  it('adds of different sets interleaved still land in their sets', () => {
    fc.assert(
      fc.property(savedSets, fc.infiniteStream(fc.nat()), (sets, picks) => {
        const creates = sets.map((s) => `create ${s.name} ${s.type}${s.options === '' ? '' : ` ${s.options}`}`);
        const queues = sets.map((s) => s.members.map((m) => `add ${s.name} ${m}`));
        const adds: string[] = [];
        const it = picks[Symbol.iterator]();
        while (queues.some((q) => q.length > 0)) {
          const open = queues.filter((q) => q.length > 0);
          adds.push(open[it.next().value % open.length]!.shift()!);
        }
        const parsed = parseSave([...creates, ...adds].join('\n'));
        expect(parsed.problems).toEqual([]);
        expect(plainSets(parsed.sets)).toEqual(sets);
      }),
      params,
    );
  });

  it('set names with blanks round-trip, however they prefix, extend or look like each other (ipset prints them unquoted)', () => {
    // Names made of pieces that trip a word-based reader: an owned-looking name and the
    // same name with " 1" after it, a type word, an address, runs of spaces.
    const piece = fc.constantFrom('azure-npm-zzz', 'o', ' ', '  ', '1', 'hash:ip', 'list:set', '10.0.0.1', 'x');
    const blankName = fc
      .array(piece, { minLength: 1, maxLength: 5 })
      .map((p) => p.join('').slice(0, 31))
      .filter((n) => n.trim() !== '' && !n.endsWith(' '));
    const sets = fc.uniqueArray(blankName, { minLength: 1, maxLength: 6 }).chain((names) =>
      fc.tuple(
        ...names.map((name, i) =>
          fc.oneof(
            fc.record({ name: fc.constant(name), type: fc.constant('hash:net'), options, members: fc.array(netMember, { maxLength: 8 }) }),
            // A list's members are sets created before it (a member name with blanks is known by then),
            // without blanks: `add 1 1 1` is set `1 1` with member `1` or set `1` with member `1 1`,
            // which no reader can tell apart (the parser takes the longest set name).
            fc.record({
              name: fc.constant(name),
              type: fc.constant('list:set'),
              options,
              members: fc.uniqueArray(fc.constantFrom('', ...names.slice(0, i)), { maxLength: 3 }).map((m) => m.filter((n) => n !== '' && !/\s/.test(n))),
            }),
          ),
        ),
      ),
    );
    fc.assert(
      fc.property(sets, fc.infiniteStream(fc.nat()), (saved, picks) => {
        const creates = saved.map((s) => `create ${s.name} ${s.type}${s.options === '' ? '' : ` ${s.options}`}`);
        const queues = saved.map((s) => s.members.map((m) => `add ${s.name} ${m}`));
        const adds: string[] = [];
        const it = picks[Symbol.iterator]();
        while (queues.some((q) => q.length > 0)) {
          const open = queues.filter((q) => q.length > 0);
          adds.push(open[it.next().value % open.length]!.shift()!);
        }
        // As ipset prints them (each set's adds after its create), and interleaved after all creates.
        for (const text of [formatSave(saved as PlainSet[], '\n', true), [...creates, ...adds].join('\n')]) {
          const parsed = parseSave(text);
          expect(parsed.problems).toEqual([]);
          expect(plainSets(parsed.sets)).toEqual(saved);
        }
      }),
      params,
    );
  });

  it('never throws, and every non-blank line is either used or a problem', () => {
    const lineArb = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.tuple(fc.constantFrom('add ', 'create ', 'add a ', 'create a '), fc.string({ maxLength: 10 })).map(([a, b]) => a + b),
    );
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 30 }), (lines) => {
        const text = lines.join('\n');
        const { sets, problems } = parseSave(text);
        const used = sets.length + sets.reduce((n, s) => n + s.members.length, 0);
        const counted = text
          .split('\n')
          .map((l) => l.replace(/^[ \t\r]+|[ \t\r]+$/g, ''))
          .filter((l) => l !== '' && !l.startsWith('#')).length;
        expect(used + problems.length).toBe(counted);
      }),
      params,
    );
  });

  it('a save pushed in pieces, cut anywhere, reads as the whole text does (the agent parses ipset\'s stdout as it arrives)', () => {
    const hostile = fc
      .array(
        fc.oneof(
          fc.string({ maxLength: 20 }),
          fc.tuple(fc.constantFrom('add ', 'create ', 'add a ', 'create a ', 'add a 10.0.0.1 nomatch', '# '), fc.string({ maxLength: 10 })).map(([a, b]) => a + b),
        ),
        { maxLength: 30 },
      )
      .map((lines) => lines.join('\n'));
    // Long sets: past the line-by-line start, their adds are read as whole runs.
    const long = fc
      .tuple(setName, fc.array(fc.oneof(ipv4, netMember), { minLength: 30, maxLength: 400 }), fc.boolean())
      .map(([name, members, crlf]) => formatSave([{ name, type: 'hash:net', options: 'family inet', members }, { name: `${name}x`, type: 'hash:net', options: '', members: members.slice(0, 40) }], crlf ? '\r\n' : '\n', true));
    const text = fc.oneof(
      fc.tuple(savedSets, fc.constantFrom('\n', '\r\n'), fc.boolean()).map(([sets, eol, last]) => formatSave(sets, eol, last)),
      hostile,
      long,
    );
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (whole, cuts) => {
        const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
        const reader = new SaveReader();
        let from = 0;
        for (const to of [...at, whole.length]) {
          reader.push(whole.slice(from, to));
          from = to;
        }
        const streamed = reader.end();
        const parsed = parseSave(whole);
        expect(plainSets(streamed.sets)).toEqual(plainSets(parsed.sets));
        expect(streamed.sets.map((set) => [...set.members.hostValues()])).toEqual(parsed.sets.map((set) => [...set.members.hostValues()]));
        expect(streamed.sets.map((set) => set.createOptions)).toEqual(parsed.sets.map((set) => set.createOptions));
        expect(streamed.problems).toEqual(parsed.problems);
        expect(streamed.problemCount).toBe(parsed.problemCount);
      }),
      params,
    );
  });

  it('list -n and list -t outputs round-trip', () => {
    const header = fc.record({
      name: setName,
      type: fc.constantFrom('hash:net', 'hash:ip,port', 'list:set'),
      header: options,
      references: fc.nat(1000),
      entries: fc.nat(100000),
    });
    fc.assert(
      fc.property(fc.array(header, { maxLength: 6 }), (headers: SetHeader[]) => {
        const terse = headers
          .map(
            (h) =>
              `Name: ${h.name}\nType: ${h.type}\nRevision: 7\nHeader: ${h.header}\nSize in memory: 696\nReferences: ${h.references}\nNumber of entries: ${h.entries}\n`,
          )
          .join('\n');
        expect(parseListHeaders(terse)).toEqual(headers);
        expect(parseListNames(headers.map((h) => `${h.name}\n`).join(''))).toEqual(headers.map((h) => h.name));
      }),
      params,
    );
  });
});

describe('save parser properties: long runs of adds', () => {
  // Past a few dozen adds of one set the parser matches whole runs of lines at once; a
  // set name is then part of a pattern, so names with pattern characters must still be
  // read literally, and a line that breaks a run must be read as it is read anywhere.
  const patternName = fc
    .string({ unit: fc.constantFrom(...'ab.+*?()[]{}|^$\\/-:'.split('')), minLength: 1, maxLength: 31 })
    .filter((s) => !s.startsWith('-'));
  const memberPool = fc.constantFrom('10.0.0.1', '255.255.255.255', '0.0.0.0', '10.0.0.0/24', '010.0.0.1', '10.0.0.1,tcp:80', 'fe80::1', '1.2.3.4.5', '10.0.0.256', 'x');
  const breaker = fc.constantFrom('', '# comment', 'add NAME  10.9.9.9', 'add NAME 10.9.9.8 timeout 5', 'add NAME 10.9.9.7\r', 'add NAME 10.9.9.6 nomatch', 'bogus line', 'add NAME');
  const longSet = fc.record({
    name: patternName,
    members: fc.array(memberPool, { maxLength: 700, size: 'max' }),
    breaks: fc.array(fc.tuple(fc.nat(700), breaker), { maxLength: 3 }),
  });

  it('long runs, pattern characters in names and lines breaking a run parse like short runs', () => {
    fc.assert(
      fc.property(fc.uniqueArray(longSet, { maxLength: 3, selector: (s) => s.name }), fc.boolean(), (sets, finalNewline) => {
        const lines: string[] = [];
        const expected: PlainSet[] = [];
        let problems = 0;
        for (const s of sets) {
          lines.push(`create ${s.name} hash:net family inet`);
          const members: string[] = [];
          const breaks = new Map(s.breaks.map(([at, line]) => [at, line.replace('NAME', () => s.name)]));
          s.members.forEach((m, i) => {
            const b = breaks.get(i);
            if (b !== undefined) {
              lines.push(b);
              if (b === 'bogus line' || b === `add ${s.name}`) problems++;
              else if (b !== '' && !b.startsWith('#')) members.push(b.includes('nomatch') ? '10.9.9.6 nomatch' : b.split(/\s+/)[2]!);
            }
            lines.push(`add ${s.name} ${m}`);
            members.push(m);
          });
          expected.push({ name: s.name, type: 'hash:net', options: 'family inet', members });
        }
        const parsed = parseSave(lines.join('\n') + (finalNewline ? '\n' : ''));
        expect(parsed.problems.length).toBe(problems);
        expect(plainSets(parsed.sets)).toEqual(expected);
      }),
      { numRuns: Math.max(20, Math.floor(numRuns / 5)) },
    );
  });

  it('the address the parser reads for the planner is hostValue of the member it stands for', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(memberPool, ipv4, ipv4.map((ip) => `${ip} nomatch`), netMember), { maxLength: 400, size: 'max' }), (members) => {
        const text = `create a hash:net family inet\n${members.map((m) => `add a ${m}`).join('\n')}\n`;
        const set = parseSave(text).sets[0]!;
        const spans = set.members;
        expect(spans.length).toBe(members.length);
        const values = spans.hostValues();
        expect(values).toHaveLength(members.length);
        const read = members.map((m, i) => [m, spans.at(i), spans.hostValue(i), Math.max(-1, values[i]!)]);
        const expected = members.map((m) => [m, m, hostValue(m), hostValue(m)]);
        expect(read).toEqual(expected);
      }),
      params,
    );
  });
});
