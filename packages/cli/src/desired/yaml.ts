/**
 * The YAML form of a desired file, refused where YAML can say what JSON cannot
 * (tags, duplicate keys, non-string keys, aliases that expand exponentially, deep
 * nesting), every problem with its line.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { CST, Document, LineCounter } from 'yaml';
import { cutText, formatCount, quoteCut as quote } from '../format.js';
import { LOCATED_PROBLEMS, ROOT_EXPECTED, SHOWN_PROBLEMS, desiredFileError, formatPath, messageOf, pathKeys } from './problems.js';
import type { FileProblem, Locator } from './problems.js';
import { MAX_JSON_DEPTH, lineColumns } from '../json-scan.js';
import { readPlainYaml } from '../yaml-plain.js';
import type { PlainYaml } from '../yaml-plain.js';

let yamlPackage: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded on first use: desired files are plain text the fast
 * reader reads, and loading the package costs every command start ≈ 150 ms of CPU.
 */
function yaml(): typeof Yaml {
  return (yamlPackage ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}

function yamlLocator(doc: Document.Parsed, lineCounter: LineCounter): Locator {
  const { isNode } = yaml();
  return (problems) =>
    problems.map((problem, i) => {
      if (problem.path === '(root)' || problem.line !== undefined || i >= LOCATED_PROBLEMS) return problem;
      const keys = pathKeys(problem.path);
      // Walk up until a node with a position exists (a missing key points at its parent).
      for (let n = keys.length; n > 0; n--) {
        const node: unknown = doc.getIn(keys.slice(0, n), true);
        if (isNode(node) && node.range) {
          const pos = lineCounter.linePos(node.range[0]);
          return { ...problem, line: pos.line, column: pos.col };
        }
      }
      return problem;
    });
}


/** `!!binary` for `tag:yaml.org,2002:binary`, other tags as written. */
function shortTag(tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
}

interface YamlPath {
  readonly key: string | number;
  readonly parent: YamlPath | undefined;
}

function yamlPath(path: YamlPath | undefined): string {
  const keys: (string | number)[] = [];
  for (let p = path; p !== undefined; p = p.parent) keys.push(p.key);
  return formatPath(keys.reverse());
}

/**
 * What JSON cannot say but YAML can, refused before the document becomes data:
 * duplicate keys (with their path; the parser would keep the last), tags (`!!binary`
 * yields bytes, `!foo` anything), non-string keys, nesting deeper than a desired file
 * needs. An explicit stack, not recursion: no document can overflow it.
 */
function yamlStructureProblems(doc: Document.Parsed, lineCounter: LineCounter): FileProblem[] {
  const { isAlias, isMap, isNode, isScalar, isSeq } = yaml();
  const problems: FileProblem[] = [];
  const at = (node: unknown) => {
    if (!isNode(node) || !node.range) return {};
    const pos = lineCounter.linePos(node.range[0]);
    return { line: pos.line, column: pos.col };
  };
  const add = (node: unknown, path: YamlPath | undefined, message: string) => {
    if (problems.length < LOCATED_PROBLEMS) problems.push({ path: yamlPath(path), ...at(node), message });
  };
  const stack: { node: unknown; path: YamlPath | undefined; depth: number }[] = [{ node: doc.contents, path: undefined, depth: 0 }];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (!isNode(node) || isAlias(node)) continue;
    if (node.tag !== undefined) {
      add(node, path, `the YAML tag ${quote(shortTag(node.tag))} is not accepted; expected plain strings, lists and mappings`);
      continue;
    }
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth >= MAX_JSON_DEPTH) {
      add(node, path, `the document nests more than ${MAX_JSON_DEPTH} levels deep; expected ${ROOT_EXPECTED}`);
      continue;
    }
    if (isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push({ node: node.items[i], path: { key: i, parent: path }, depth: depth + 1 });
      continue;
    }
    const seen = new Map<string, unknown>();
    const children: { node: unknown; path: YamlPath }[] = [];
    for (const pair of node.items) {
      const keyNode = pair.key;
      if (!isScalar(keyNode) || keyNode.tag !== undefined || (typeof keyNode.value !== 'string' && typeof keyNode.value !== 'number')) {
        add(keyNode ?? node, path, `a mapping key is ${isScalar(keyNode) ? (keyNode.tag === undefined ? `${typeof keyNode.value} ${quote(keyNode.value)}` : `tagged ${quote(shortTag(keyNode.tag))}`) : 'not a plain value'}; expected plain string keys`);
        continue;
      }
      const key = String(keyNode.value);
      const first = seen.get(key);
      if (first !== undefined) {
        const pos = at(first);
        add(keyNode, { key, parent: path }, `duplicate key ${quote(key)}${pos.line === undefined ? '' : ` (first at line ${pos.line}:${pos.column})`}; expected each key once (the last one would silently win)`);
        continue;
      }
      seen.set(key, keyNode);
      children.push({ node: pair.value, path: { key, parent: path } });
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push({ ...children[i]!, depth: depth + 1 });
  }
  return problems;
}

/** Thrown out of the token stream when a document nests too deeply to be composed safely. */
class TooDeep extends Error {
  constructor(readonly offset: number) {
    super('too deep');
  }
}

/**
 * Offset of the first collection nested deeper than {@link MAX_JSON_DEPTH} in a CST
 * token, or -1. The YAML composer recurses once per level, and on a nearly exhausted
 * stack V8 may abort the whole process (it reports a failed RegExp compile as out of
 * memory) instead of throwing: so depth is checked on the parser's tokens, which are
 * built without recursion, before the composer sees them.
 */
function cstTooDeep(token: CST.Token): number {
  const stack: { token: CST.Token | null | undefined; depth: number }[] = [{ token, depth: 0 }];
  while (stack.length > 0) {
    const { token: t, depth } = stack.pop()!;
    if (t === undefined || t === null) continue;
    if (t.type === 'document') {
      stack.push({ token: t.value, depth });
      continue;
    }
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    if (depth >= MAX_JSON_DEPTH) return t.offset;
    for (const item of t.items as { key?: CST.Token | null; value?: CST.Token }[]) {
      stack.push({ token: item.key, depth: depth + 1 }, { token: item.value, depth: depth + 1 });
    }
  }
  return -1;
}

function* depthChecked(tokens: Iterable<CST.Token>): Generator<CST.Token> {
  for (const token of tokens) {
    const deep = cstTooDeep(token);
    if (deep !== -1) throw new TooDeep(deep);
    yield token;
  }
}

/**
 * `yaml`'s parseDocument, with the parser's tokens checked for depth before they are
 * composed, and duplicate keys left to the structure walk (which reports their path).
 */
function composeYaml(text: string, lineCounter: LineCounter): Document.Parsed {
  const { Composer, Parser, YAMLParseError } = yaml();
  const parser = new Parser(lineCounter.addNewLine);
  const composer = new Composer({ uniqueKeys: false });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(depthChecked(parser.parse(text)), true, text.length)) {
    if (doc === undefined) doc = next;
    else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'more than one document'));
      break;
    }
  }
  return doc!;
}

/**
 * Most scalars (keys and values) a document read by the `yaml` package may hold. It
 * costs about 1.8 KB and 48 µs per value (500,000 members: 960 MiB, 24 s), more than the
 * agent's memory allows; plain YAML and JSON, which the fast readers take, have no such
 * limit.
 */
export const MAX_YAML_PACKAGE_VALUES = 200_000;

/**
 * What the `yaml` package must not be given, found on the lexer's tokens alone (nothing
 * is built): a flow collection (`[`, `{`) nested deeper than {@link MAX_JSON_DEPTH}, or
 * more than {@link MAX_YAML_PACKAGE_VALUES} scalars. The parser builds a whole
 * document's tokens before any check can see them, and for `sets: [[[…]]]` they cost
 * about 1 KB per level (a 2 MB file took 2.3 GB); block nesting needs indentation that
 * grows with depth, so only flow nesting is that cheap to write.
 */
function overLimits(text: string): { offset: number; kind: 'depth' | 'values' } | undefined {
  const { Lexer } = yaml();
  let depth = 0;
  let values = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    const c = token.charCodeAt(0);
    if (token.length === 1) {
      if (c === 91 /* [ */ || c === 123 /* { */) {
        if (++depth > MAX_JSON_DEPTH) return { offset, kind: 'depth' };
      } else if (c === 93 /* ] */ || c === 125 /* } */) {
        if (depth > 0) depth--;
      } else if (c === 0x02 || c === 0x18 || c === 0x1f || c === 0xfeff) {
        // The lexer's control tokens (document, flow end, scalar, BOM) stand for no text.
        if (c === 0x1f && ++values > MAX_YAML_PACKAGE_VALUES) return { offset, kind: 'values' };
        continue;
      }
    } else if ((c === 34 /* " */ || c === 39) /* ' */ && ++values > MAX_YAML_PACKAGE_VALUES) {
      return { offset, kind: 'values' };
    }
    offset += token.length;
  }
  return undefined;
}

/** Lines of problems in a text the plain reader read: from the positions it kept, not a second parse. */
function plainLocator(plain: PlainYaml): Locator {
  return (problems) =>
    problems.map((problem, i) => {
      if (problem.path === '(root)' || problem.line !== undefined || i >= LOCATED_PROBLEMS) return problem;
      const pos = plain.locate(pathKeys(problem.path));
      return pos === undefined ? problem : { ...problem, line: pos.line, column: pos.column };
    });
}

/**
 * Parses a YAML text to data, or the problems that refuse it (each one line). Plain
 * text (what desired files are) is read by the fast reader; anything else by the
 * `yaml` package with every check below.
 */
export function parseYaml(text: string, source: string): { doc: unknown; locate: Locator } {
  const plain = readPlainYaml(text);
  if (plain !== undefined) return { doc: plain.doc, locate: plainLocator(plain) };
  const over = overLimits(text);
  if (over !== undefined) {
    const pos = lineColumns(text, [over.offset]).get(over.offset)!;
    const message =
      over.kind === 'depth'
        ? `the document nests more than ${MAX_JSON_DEPTH} levels deep; expected ${ROOT_EXPECTED}`
        : `the document holds more than ${formatCount(MAX_YAML_PACKAGE_VALUES)} values written in a way only the full YAML parser reads (anchors, tags, block scalars, multi-line flow lists…); expected at most ${formatCount(MAX_YAML_PACKAGE_VALUES)} such values, or plain YAML (one member per line) or JSON, which have no such limit`;
    throw desiredFileError(source, [{ path: '(root)', line: pos.line, column: pos.column, message }]);
  }
  const lineCounter = new (yaml().LineCounter)();
  let parsed: Document.Parsed;
  try {
    parsed = composeYaml(text, lineCounter);
  } catch (error) {
    if (error instanceof TooDeep) {
      const pos = lineCounter.linePos(error.offset);
      throw desiredFileError(source, [
        { path: '(root)', line: pos.line, column: pos.col, message: `the document nests more than ${MAX_JSON_DEPTH} levels deep; expected ${ROOT_EXPECTED}` },
      ]);
    }
    // The parser guards its own recursion; this is the last line of defence.
    throw desiredFileError(source, [{ path: '(root)', message: `not valid YAML: ${error instanceof RangeError ? 'the document nests too deeply' : messageOf(error)}; expected ${ROOT_EXPECTED}` }]);
  }
  // Unresolved tags are reported with their path by the structure walk below.
  const syntax = [...parsed.errors, ...parsed.warnings.filter((w) => w.code !== 'TAG_RESOLVE_FAILED')];
  if (syntax.length > 0) {
    throw desiredFileError(
      source,
      syntax.slice(0, SHOWN_PROBLEMS).map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        const message =
          e.code === 'MULTIPLE_DOCS'
            ? 'the file holds more than one YAML document (---); expected one document'
            : e.code === 'RESOURCE_EXHAUSTION'
              ? `the document nests too deeply; expected ${ROOT_EXPECTED}`
              : `not valid YAML: ${cutText(e.message.split('\n')[0] ?? '', 200)}; expected a valid YAML document`;
        return { path: '(root)', line: pos.line, column: pos.col, message };
      }),
    );
  }
  if (parsed.contents === null) return { doc: undefined, locate: (p) => p };
  const structure = yamlStructureProblems(parsed, lineCounter);
  if (structure.length > 0) throw desiredFileError(source, structure);
  let doc: unknown;
  try {
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const bomb = error instanceof ReferenceError && /alias/i.test(error.message);
    throw desiredFileError(source, [
      {
        path: '(root)',
        message: bomb
          ? 'YAML aliases expand too much (more than 100 copies of an anchor: an alias bomb); expected a document without exponential alias expansion'
          : `the YAML document cannot be read: ${messageOf(error)}; expected ${ROOT_EXPECTED}`,
      },
    ]);
  }
  return { doc, locate: yamlLocator(parsed, lineCounter) };
}

