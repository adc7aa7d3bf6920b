/**
 * Structure checks of a JSON text, each one linear scan without building anything:
 * duplicate keys (which `JSON.parse` resolves silently, the last one winning —
 * `{"sets":[…],"sets":[]}` would empty the node) and nesting depth together, before
 * `JSON.parse` builds anything; and where a value at a given path starts (for line
 * numbers in problem reports, without parsing the text a second time with a slower
 * parser), which assumes valid JSON. String contents are skipped with `indexOf`, so a
 * file that is mostly member strings costs little more than reading it.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COMMA = 44;
const COLON = 58;
const SPACE = 32;
const TAB = 9;
const NL = 10;
const CR = 13;

/** Deepest nesting a desired file may use (a valid one needs 5: root, sets, set, members, member set). */
export const MAX_JSON_DEPTH = 64;

/** A structural problem found by {@link scanJsonStructure}. */
export interface JsonStructureProblem {
  /** Path of the offending value or key, as `sets[3].members` (`(root)` for the document). */
  readonly path: string;
  /** Offset of the problem in the text. */
  readonly offset: number;
  /** Offset of the first occurrence, for a duplicate key. */
  readonly firstOffset?: number;
  readonly kind: 'duplicate-key' | 'too-deep';
  /** The duplicated key (decoded), for `duplicate-key`. */
  readonly key?: string;
}

/** Offset of the closing quote of the string whose opening quote is at `start`, or -1 when it has none. */
function closingQuote(text: string, start: number): number {
  let j = text.indexOf('"', start + 1);
  while (j >= 0) {
    // A quote preceded by an odd number of backslashes is escaped.
    let k = j - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j;
    j = text.indexOf('"', j + 1);
  }
  return -1;
}

function decodeKey(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    // A bad escape: the text is not JSON, and JSON.parse says so; the raw spelling will do until then.
    return raw;
  }
}

interface Frame {
  readonly object: boolean;
  /** Objects: keys seen, with the offset of their first occurrence. */
  readonly keys: Map<string, number> | undefined;
  key: string;
  index: number;
}

function pathOf(stack: readonly Frame[], upTo: number): string {
  let out = '';
  // stack[0] is the root value's frame; each frame names the child being read.
  for (let d = 0; d < upTo; d++) {
    const f = stack[d]!;
    if (f.object) out += out === '' ? f.key : `.${f.key}`;
    else out += `[${f.index}]`;
  }
  return out === '' ? '(root)' : out;
}

/**
 * Scans a JSON text for duplicate keys and nesting deeper than `maxDepth`, in one pass.
 * Returns at most `limit` duplicate keys (the first ones, in text order); the scan stops
 * at the first nesting problem (everything under it is too deep as well), which is then
 * the last problem returned, at the first `[` or `{` (outside strings) that is nested
 * deeper than `maxDepth`.
 *
 * Safe on any text, valid JSON or not (it ends, and it builds nothing per level but a
 * frame of at most `maxDepth`): a desired file is scanned once, before `JSON.parse`, for
 * both. Its duplicate keys mean something only for a text `JSON.parse` accepts.
 */
export function scanJsonStructure(text: string, maxDepth = MAX_JSON_DEPTH, limit = 100): JsonStructureProblem[] {
  const problems: JsonStructureProblem[] = [];
  const stack: Frame[] = [];
  let top: Frame | undefined;
  // True right after `{` or `,` inside an object: the next string is a key.
  let expectKey = false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      // An unterminated string: nothing after it is JSON (JSON.parse reports it).
      if (end < 0) break;
      if (expectKey && top !== undefined) {
        const key = decodeKey(text, i, end);
        const first = top.keys!.get(key);
        top.key = key;
        if (first === undefined) top.keys!.set(key, i);
        else if (problems.length < limit) {
          problems.push({ kind: 'duplicate-key', key, offset: i, firstOffset: first, path: pathOf(stack, stack.length) });
        }
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) {
      if (stack.length >= maxDepth) {
        problems.push({ kind: 'too-deep', offset: i, path: pathOf(stack, stack.length) });
        return problems;
      }
      top = { object: c === LBRACE, keys: c === LBRACE ? new Map() : undefined, key: '', index: 0 };
      stack.push(top);
      expectKey = c === LBRACE;
    } else if (c === RBRACE || c === RBRACKET) {
      stack.pop();
      top = stack[stack.length - 1];
      expectKey = false;
    } else if (c === COMMA) {
      if (top !== undefined) {
        if (top.object) expectKey = true;
        else top.index++;
      }
    }
    i++;
  }
  return problems;
}

interface TrieNode {
  readonly children: Map<string | number, TrieNode>;
  /** Set when some wanted path ends here. */
  id?: string;
}

/**
 * Finds where the values at `paths` start in a valid JSON text (one scan). A path is a
 * list of keys and indices from the root; the result maps each path's string form
 * (`sets[3].members[0]`, as {@link scanJsonStructure} prints paths) to an offset.
 * Paths that do not exist are absent from the result.
 */
export function locateJsonPaths(text: string, paths: readonly (readonly (string | number)[])[]): Map<string, number> {
  const root: TrieNode = { children: new Map() };
  for (const path of paths) {
    let node = root;
    let id = '';
    for (const key of path) {
      id += typeof key === 'number' ? `[${key}]` : id === '' ? key : `.${key}`;
      let next = node.children.get(key);
      if (next === undefined) node.children.set(key, (next = { children: new Map() }));
      node = next;
    }
    node.id = id;
  }
  const found = new Map<string, number>();
  interface LocFrame {
    readonly object: boolean;
    /** The trie node of this container (undefined: nothing wanted below). */
    readonly node: TrieNode | undefined;
    key: string;
    index: number;
  }
  const stack: LocFrame[] = [];
  let top: LocFrame | undefined;
  let expectKey = false;
  const n = text.length;
  let i = 0;
  // The trie node of the value starting at i, recorded when it is wanted.
  const valueStart = (at: number): TrieNode | undefined => {
    if (top === undefined) return root;
    if (top.node === undefined) return undefined;
    const child = top.node.children.get(top.object ? top.key : top.index);
    if (child?.id !== undefined && !found.has(child.id)) found.set(child.id, at);
    return child;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === NL || c === CR || c === TAB || c === COLON) {
      i++;
      continue;
    }
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (expectKey && top !== undefined) {
        top.key = top.node === undefined ? '' : decodeKey(text, i, end);
        expectKey = false;
      } else valueStart(i);
      i = end + 1;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) {
      const node = valueStart(i);
      top = { object: c === LBRACE, node, key: '', index: 0 };
      stack.push(top);
      expectKey = c === LBRACE;
      i++;
      continue;
    }
    if (c === RBRACE || c === RBRACKET) {
      stack.pop();
      top = stack[stack.length - 1];
      expectKey = false;
      i++;
      continue;
    }
    if (c === COMMA) {
      if (top !== undefined) {
        if (top.object) expectKey = true;
        else top.index++;
      }
      i++;
      continue;
    }
    // A number, true, false or null: runs to the next delimiter.
    valueStart(i);
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d === COMMA || d === RBRACE || d === RBRACKET || d === SPACE || d === NL || d === CR || d === TAB) break;
      i++;
    }
  }
  return found;
}

/** 1-based line and column of each offset (one pass over the text up to the largest). */
export function lineColumns(text: string, offsets: readonly number[]): Map<number, { line: number; column: number }> {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  const out = new Map<number, { line: number; column: number }>();
  let line = 1;
  let lineStart = 0;
  for (const offset of sorted) {
    for (let nl = text.indexOf('\n', lineStart); nl !== -1 && nl < offset; nl = text.indexOf('\n', lineStart)) {
      line++;
      lineStart = nl + 1;
    }
    out.set(offset, { line, column: offset - lineStart + 1 });
  }
  return out;
}
