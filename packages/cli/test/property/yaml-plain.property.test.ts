/**
 * The plain YAML reader is a second parser in front of the `yaml` package: if it ever
 * read a text differently, the desired state applied to the kernel would not be the one
 * the user wrote. The invariant, over texts built from the pieces desired files are made
 * of and the pieces that trip YAML readers up (plain scalars YAML types as numbers,
 * booleans or null, indicators, quotes and escapes, comments, flow and block styles,
 * odd indentation, CRLF): the reader either gives up, or makes exactly the data the
 * `yaml` package makes — and it never reads a text the package refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readPlainYaml } from '../../src/yaml-plain.js';

const SCALARS = [
  '10.0.0.1', '10.0.0.0/8', '10.0.0.0/8 nomatch', 'fe80::1', '2001:db8::/32', '[fe80::1],udp:53', '10.0.0.1,tcp:80',
  '10.0.0.1,80', 'app:web', 'team', 'shop', 'azure-npm-', 'x-', 'a b', 'a  b', 'a #b', 'a# b', 'a:b', 'a: b', 'a:', ':a',
  '- a', '-a', '-', '--', '---', '...', '?', '? a', 'a?', '!a', '&a', '*a', '|', '>', '%a', '@a', '`a`', ',a', 'a,', '[a]',
  '{a}', 'a]', 'a}', '#a', "'a'", '"a"', "it's", 'a"b', 'true', 'True', 'TRUE', 'false', 'yes', 'no', 'on', 'off', 'null',
  'Null', '~', '', '0', '1', '-1', '+1', '010', '0o17', '0x1F', '1.5', '.5', '5.', '1e3', '1E-3', '.inf', '-.inf', '.nan',
  '1:30', '1_000', '123456789012345', '1234567890123456', 'é', '\\', '\\n', 'a\\"b', '\u00a0a', 'a\u00a0', '\u2028', 'a\tb',
  '\u0085', '\ufeffa', '=', '<<', '0.0.0.0', '+', '.', '1.2.3', 'NaN', 'Infinity',
];
const ODD_KEYS = ['sets', 'owner', 'scheme', 'type', 'name', 'members', 'family', 'maxelem', 'hashsize', 'x', 'a.b', 'a-b', '_k', 'sets ', 'Sets', '1', 'true', 'null', 'a b', 'a:b', '"q"', "'q'", '__proto__', '<<', '?x', '-k'];

/** What desired files are mostly made of: the reader must take these, so most texts test the reader, not its giving up. */
const COMMON = ['10.0.0.1', '10.0.0.0/8', '10.0.0.0/8 nomatch', 'fe80::1', '10.0.0.1,tcp:80', 'app:web', 'shop', 'namespace', 'azure-npm-', '1024'];
const COMMON_KEYS = ['sets', 'owner', 'type', 'name', 'members', 'family', 'maxelem'];
const key = fc.oneof({ arbitrary: fc.constantFrom(...COMMON_KEYS), weight: 3 }, { arbitrary: fc.constantFrom(...ODD_KEYS), weight: 1 });
const entries = <T>(value: fc.Arbitrary<T>, minLength = 0) =>
  // Mostly distinct keys (a duplicate makes the reader give up), now and then a duplicate.
  fc.oneof(
    { arbitrary: fc.uniqueArray(fc.tuple(key, value), { minLength, maxLength: 4, selector: (e) => e[0] }), weight: 4 },
    { arbitrary: fc.array(fc.tuple(key, value), { minLength, maxLength: 4 }), weight: 1 },
  );
const scalar = fc.oneof({ arbitrary: fc.constantFrom(...COMMON), weight: 3 }, { arbitrary: fc.constantFrom(...SCALARS), weight: 1 });
/** A scalar as it may be written: plain, single-quoted or double-quoted (with an escape now and then). */
const written = fc.tuple(scalar, fc.constantFrom('plain', 'plain', 'single', 'double', 'double-escaped')).map(([s, style]) => {
  if (style === 'single') return `'${s.replace(/'/g, "''")}'`;
  if (style === 'double') return JSON.stringify(s);
  if (style === 'double-escaped') return `"${[...s].map((c) => (c === 'a' ? '\\u0061' : c === '"' ? '\\"' : c === '\\' ? '\\\\' : c)).join('')}"`;
  return s;
});
const comment = fc.constantFrom('', '', '', ' # c', '  #c', '#c', ' #', '\t#c', ' \t# c');
const space = fc.constantFrom(' ', ' ', '  ', '');

type Node = { kind: 'scalar'; text: string } | { kind: 'seq'; items: Node[] } | { kind: 'map'; entries: [string, Node][] };

const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    written.map((text) => ({ kind: 'scalar', text }) as Node),
    fc.array(tie('node'), { maxLength: 4 }).map((items) => ({ kind: 'seq', items }) as Node),
    entries(tie('node')).map((entries) => ({ kind: 'map', entries }) as Node),
  ),
})).node;

/** One-line flow form of a node. */
function flow(n: Node, sp: string): string {
  if (n.kind === 'scalar') return n.text;
  if (n.kind === 'seq') return `[${n.items.map((i) => flow(i, sp)).join(`,${sp}`)}]`;
  return `{${sp}${n.entries.map(([k, v]) => `${k}:${sp === '' ? ' ' : sp}${flow(v, sp)}`).join(`,${sp}`)}${sp}}`;
}

/** Block form of a node at `indent`, with choices of style drawn from `pick`. */
function block(n: Node, indent: number, pick: () => number, out: string[], comments: string[]): void {
  const pad = ' '.repeat(indent);
  const c = () => comments[pick() % comments.length]!;
  if (n.kind === 'seq') {
    for (const item of n.items) {
      if (item.kind === 'scalar' || pick() % 3 === 0) out.push(`${pad}- ${flow(item, ' ')}${c()}`);
      else {
        out.push(`${pad}-${c()}`);
        block(item, indent + 2 + (pick() % 2), pick, out, comments);
      }
    }
  } else if (n.kind === 'map') {
    for (const [k, v] of n.entries) {
      if (v.kind === 'scalar' || pick() % 3 === 0) out.push(`${pad}${k}: ${flow(v, pick() % 2 === 0 ? ' ' : '')}${c()}`);
      else {
        out.push(`${pad}${k}:${c()}`);
        // A block sequence under a key may sit at the key's own indentation.
        block(v, v.kind === 'seq' && pick() % 2 === 0 ? indent : indent + 2, pick, out, comments);
      }
    }
  } else out.push(`${pad}${n.text}${c()}`);
}

const text = fc
  .tuple(
    entries(node, 1),
    fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    fc.array(comment, { minLength: 1, maxLength: 3 }),
    space,
    fc.constantFrom('\n', '\n', '\r\n'),
    fc.boolean(),
  )
  .map(([entries, seeds, comments, sp, eol, asFlow]) => {
    let i = 0;
    const pick = () => seeds[i++ % seeds.length]! + i;
    const root: Node = { kind: 'map', entries };
    if (asFlow) return flow(root, sp) + eol;
    const out: string[] = [];
    block(root, 0, pick, out, comments);
    return out.join(eol) + eol;
  });

function yamlPackage(source: string): { ok: true; doc: unknown } | { ok: false } {
  try {
    return { ok: true, doc: parse(source, { uniqueKeys: true }) };
  } catch {
    return { ok: false };
  }
}

describe('readPlainYaml against the yaml package', () => {
  it('either gives up or makes exactly the data the yaml package makes; never reads what the package refuses', () => {
    fc.assert(
      fc.property(text, (source) => {
        const plain = readPlainYaml(source);
        if (plain === undefined) return;
        const reference = yamlPackage(source);
        expect(reference.ok, 'the yaml package refuses this text').toBe(true);
        expect(plain.doc).toStrictEqual((reference as { doc: unknown }).doc);
      }),
      { numRuns: Number(process.env.YAML_PLAIN_RUNS ?? 3_000) },
    );
  });

  it('reads a fair share of the generated texts (else the property above would test nothing)', () => {
    const sample = fc.sample(text, { numRuns: 1_000 });
    const read = sample.filter((source) => readPlainYaml(source) !== undefined).length;
    expect(read).toBeGreaterThan(150);
  });
});
