/**
 * A fast reader for the plain YAML that desired files are written in: block mappings
 * and sequences, flow collections on one line, plain and quoted one-line scalars,
 * comments. It makes the same data as the `yaml` package does for such text, in a
 * fraction of the time and memory (composing a document of 1,000,000 member nodes
 * cost 14–22 s and 1.2 GB), and it gives up — returns undefined — on anything else:
 * anchors, aliases, tags, block scalars, multi-line scalars or flow collections,
 * document markers, directives, tabs, duplicate or non-string keys, any scalar the
 * YAML 1.2 core schema would read as something other than a string or a small
 * decimal integer. The caller then reads the text with the `yaml` package, whose
 * every check and message stays as it was.
 *
 * Positions of values are kept on the side (line and column per value, in typed
 * arrays for long sequences), so problems found later get their line without parsing
 * the text again.
 *
 * Why one file: one reader (`Reader`) over one grammar subset: its lines, collections,
 * scalars and positions share the cursor and the give-up rule; split, each part would
 * have to know where the others stop.
 */

/** 1-based line and column of a value. */
export interface PlainPosition {
  readonly line: number;
  readonly column: number;
}

/** Where the values of one collection start: by index (sequences) or by key (mappings). */
interface Positions {
  /** Sequences: `line * 2^21 + column` per item. */
  readonly items?: number[];
  readonly keys?: Map<string, number>;
}

/** The data of a plain YAML text, with the positions of its values. */
export interface PlainYaml {
  readonly doc: unknown;
  /** Where the value at `keys` starts (or its deepest ancestor that has a position). */
  locate(keys: readonly (string | number)[]): PlainPosition | undefined;
}

const COLUMN_BITS = 2 ** 21;
/** Deeper than any desired file (root, sets, set, members, member set): give up and let the full parser speak. */
const MAX_DEPTH = 12;

const NOT_STRING = /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$/;
const SMALL_INT = /^(?:0|[1-9][0-9]{0,14})$/;
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Characters that start something other than a plain scalar. */
const INDICATORS = new Set(['&', '*', '!', '|', '>', '%', '@', '`', '?', ',', '[', ']', '{', '}', '#']);
/** Escapes that JSON and YAML double-quoted strings read alike. */
const JSON_ESCAPES = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/g;

/** Characters other than tab, LF and CR below space, DEL and C1 controls, line and paragraph separators, BOMs and non-characters. */
const SPECIAL_CHARACTERS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;

/**
 * YAML's white space is the space and the tab only: `trimEnd()` would also strip a
 * no-break space or a line separator, which the `yaml` package keeps in the value.
 */
const YAML_TRAILING_WHITE = /[ \t]+$/;

/**
 * False when {@link NOT_STRING} cannot match `raw`, decided without the regular
 * expression (a million member addresses go through here): every text it matches
 * starts with one of `~ N n T t F f + - .` or a digit and has at most one `.`.
 */
function mayNotBeString(raw: string): boolean {
  const c = raw.charCodeAt(0);
  const start = (c >= 48 && c <= 57) || c === 46 || c === 43 || c === 45 || c === 126 || c === 78 || c === 110 || c === 84 || c === 116 || c === 70 || c === 102;
  if (!start) return false;
  const dot = raw.indexOf('.');
  return dot === -1 || raw.indexOf('.', dot + 1) === -1;
}

class GiveUp extends Error {}
function giveUp(): never {
  throw new GiveUp();
}

/**
 * A content line: its index in the reader's line tables (indent, offset of the first
 * content character, offset after the last one before `\r\n` / `\n`, 1-based line
 * number). Numbers in typed arrays, not an object per line: a desired file has a
 * line per member.
 */
type Line = number;

/** Reads `text` as plain YAML, or returns undefined when it is more than that. */
export function readPlainYaml(text: string): PlainYaml | undefined {
  try {
    return new Reader(text).read();
  } catch (error) {
    if (error instanceof GiveUp || error instanceof RangeError) return undefined;
    throw error;
  }
}

class Reader {
  private count = 0;
  private indents: Int32Array = new Int32Array(1024);
  private starts: Int32Array = new Int32Array(1024);
  private ends: Int32Array = new Int32Array(1024);
  private numbers: Int32Array = new Int32Array(1024);
  private i = 0;
  private readonly positions = new Map<object, Positions>();

  constructor(private readonly text: string) {}

  read(): PlainYaml {
    // Control and special characters: the YAML parser refuses or reads them its own way.
    if (SPECIAL_CHARACTERS.test(this.text)) giveUp();
    this.splitLines();
    if (this.count === 0) giveUp();
    const first = this.lineAt(0)!;
    if (this.indents[first]! !== 0) giveUp();
    // A one-line flow mapping (JSON written to a .yaml file, as generators do) or a block document.
    const doc = this.text.charCodeAt(this.starts[first]!) === 123 ? this.rootFlow(first) : this.block(0, 0);
    if (this.i < this.count) giveUp();
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) giveUp();
    const positions = this.positions;
    const rootPos = this.numbers[first]! * COLUMN_BITS + 1;
    return {
      doc,
      locate: (keys) => {
        let at: number | undefined = keys.length === 0 ? rootPos : undefined;
        let node: unknown = doc;
        for (const key of keys) {
          if (node === null || typeof node !== 'object') break;
          const p = positions.get(node);
          const here = typeof key === 'number' ? p?.items?.[key] : p?.keys?.get(key);
          if (here === undefined) break;
          at = here;
          node = (node as Record<string | number, unknown>)[key];
        }
        return at === undefined ? undefined : { line: Math.floor(at / COLUMN_BITS), column: at % COLUMN_BITS };
      },
    };
  }

  private rootFlow(line: Line): unknown {
    const value = this.inlineValue(line, this.starts[line]!, 1);
    this.i = 1;
    return value;
  }

  /** The content lines (not blank, not comments), refusing what only the full parser reads. */
  private splitLines(): void {
    const text = this.text;
    const n = text.length;
    let number = 0;
    let pos = 0;
    let nextTab = text.indexOf('\t');
    let nextCr = text.indexOf('\r');
    while (pos < n) {
      number++;
      let eol = text.indexOf('\n', pos);
      if (eol === -1) eol = n;
      let end = eol;
      if (end > pos && text.charCodeAt(end - 1) === 13) end--;
      if (nextTab !== -1 && nextTab < pos) nextTab = text.indexOf('\t', pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = text.indexOf('\r', pos);
      // A tab (indentation or separation), or a carriage return that does not end a line.
      if ((nextTab !== -1 && nextTab < eol) || (nextCr !== -1 && nextCr < end)) giveUp();
      let start = pos;
      while (start < end && text.charCodeAt(start) === 32) start++;
      if (start < end && text.charCodeAt(start) !== 35 /* # */) {
        const c = text.charCodeAt(start);
        if (start === pos && (c === 37 /* % */ || text.startsWith('---', pos) || text.startsWith('...', pos))) giveUp();
        this.addLine(start - pos, start, end, number);
      }
      pos = eol + 1;
    }
  }

  private addLine(indent: number, start: number, end: number, number: number): void {
    if (this.count === this.indents.length) {
      const grow = (a: Int32Array): Int32Array => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.indents = grow(this.indents);
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
      this.numbers = grow(this.numbers);
    }
    const k = this.count++;
    this.indents[k] = indent;
    this.starts[k] = start;
    this.ends[k] = end;
    this.numbers[k] = number;
  }

  /** The content line at index `k`, or undefined past the last one. */
  private lineAt(k: number): Line | undefined {
    return k < this.count ? k : undefined;
  }

  private pos(line: Line, offset: number): number {
    return this.numbers[line]! * COLUMN_BITS + (offset - (this.starts[line]! - this.indents[line]!)) + 1;
  }

  /** A block node whose first line is the current one, at exactly `indent`. */
  private block(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) giveUp();
    const line = this.lineAt(this.i)!;
    if (this.indents[line]! !== indent) giveUp();
    return this.isItem(line) ? this.sequence(indent, depth, false) : this.mapping(indent, this.starts[line]!, depth);
  }

  private isItem(line: Line): boolean {
    return this.text.charCodeAt(this.starts[line]!) === 45 /* - */ && (this.starts[line]! + 1 === this.ends[line]! || this.text.charCodeAt(this.starts[line]! + 1) === 32);
  }

  /** A block sequence at `indent`; `atKeyIndent`: it is the value of a key on its own indent (`key:` then `- a`). */
  private sequence(indent: number, depth: number, atKeyIndent: boolean): unknown[] {
    const items: unknown[] = [];
    const at: number[] = [];
    this.positions.set(items, { items: at });
    const text = this.text;
    while (this.i < this.count) {
      const line = this.lineAt(this.i)!;
      if (this.indents[line]! < indent || (atKeyIndent && this.indents[line]! === indent && !this.isItem(line))) break;
      if (this.indents[line]! > indent || !this.isItem(line)) giveUp();
      let start = this.starts[line]! + 1;
      while (start < this.ends[line]! && text.charCodeAt(start) === 32) start++;
      if (start === this.ends[line]!) {
        // `-` alone: the item is the block below it.
        this.i++;
        const next = this.lineAt(this.i);
        if (next === undefined || this.indents[next]! <= indent) giveUp();
        at.push(this.pos(next, this.starts[next]!));
        items.push(this.block(this.indents[next]!, depth + 1));
        continue;
      }
      at.push(this.pos(line, start));
      const simple = this.simpleScalar(start, this.ends[line]!);
      if (simple !== undefined) {
        // The common item (`- 10.0.0.1`): letters, digits and `./_-` only, a letter or digit first.
        items.push(simple);
        this.i++;
        this.noContinuation(indent);
        continue;
      }
      if (this.keyEnd(line, start) !== -1) {
        // `- key: value`: a mapping whose keys line up with this first one.
        items.push(this.mapping(indent + (start - this.starts[line]!), start, depth + 1));
        continue;
      }
      items.push(this.inlineValue(line, start, depth + 1));
      this.i++;
      this.noContinuation(indent);
    }
    return items;
  }

  /**
   * The value of the text from `start` to `end` when it is made of letters, digits and
   * `./_-` only and starts with a letter or a digit (no key, comment, quote, flow or
   * indicator can be in it): what {@link plain} reads it as, without the scans the
   * general path makes for those. Undefined for any other text.
   */
  private simpleScalar(start: number, end: number): unknown {
    const text = this.text;
    const c = text.charCodeAt(start);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return undefined;
    for (let j = start + 1; j < end; j++) {
      const d = text.charCodeAt(j);
      if (!((d >= 48 && d <= 57) || (d >= 65 && d <= 90) || (d >= 97 && d <= 122) || d === 46 || d === 47 || d === 95 || d === 45)) return undefined;
    }
    const raw = text.slice(start, end);
    if (mayNotBeString(raw) && NOT_STRING.test(raw)) return SMALL_INT.test(raw) ? Number(raw) : giveUp();
    return raw;
  }

  /** Offset of the `:` ending a plain key at `start` (`key:` then a space or the line end), or -1. */
  private keyEnd(line: Line, start: number): number {
    const text = this.text;
    const c = text.charCodeAt(start);
    if (c === 34 || c === 39 || c === 91 || c === 123) return -1;
    for (let j = start; j < this.ends[line]!; j++) {
      const d = text.charCodeAt(j);
      if (d === 58 /* : */ && (j + 1 === this.ends[line]! || text.charCodeAt(j + 1) === 32)) return j;
      if (d === 32 && text.charCodeAt(j + 1) === 35) return -1;
    }
    return -1;
  }

  /** A block mapping at `indent`; its first key starts at `first` on the current line. */
  private mapping(indent: number, first: number, depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) giveUp();
    const map: Record<string, unknown> = {};
    const keys = new Map<string, number>();
    this.positions.set(map, { keys });
    const text = this.text;
    let keyStart = first;
    for (;;) {
      const line = this.lineAt(this.i)!;
      const colon = this.keyEnd(line, keyStart);
      if (colon === -1) giveUp();
      const key = text.slice(keyStart, colon);
      if (!KEY.test(key) || NOT_STRING.test(key) || key === '__proto__' || keys.has(key)) giveUp();
      let start = colon + 1;
      while (start < this.ends[line]! && text.charCodeAt(start) === 32) start++;
      if (start === this.ends[line]! || text.charCodeAt(start) === 35) {
        // `key:` alone: the value is the block below (a sequence may sit at the key's own indent).
        this.i++;
        const next = this.lineAt(this.i);
        if (next !== undefined && (this.indents[next]! > indent || (this.indents[next]! === indent && this.isItem(next)))) {
          keys.set(key, this.pos(next, this.starts[next]!));
          map[key] = this.indents[next]! > indent ? this.block(this.indents[next]!, depth + 1) : this.sequence(indent, depth + 1, true);
        } else {
          keys.set(key, this.pos(line, colon));
          map[key] = null;
        }
      } else {
        keys.set(key, this.pos(line, start));
        map[key] = this.inlineValue(line, start, depth + 1);
        this.i++;
        this.noContinuation(indent);
      }
      const next = this.lineAt(this.i);
      if (next === undefined || this.indents[next]! < indent) return map;
      if (this.indents[next]! > indent || this.isItem(next)) giveUp();
      keyStart = this.starts[next]!;
    }
  }

  /** A line below a one-line value must not be indented deeper: that would continue the scalar. */
  private noContinuation(indent: number): void {
    const next = this.lineAt(this.i);
    if (next !== undefined && this.indents[next]! > indent) giveUp();
  }

  /** A flow collection or a scalar that fills the rest of `line` from `start` (a comment may follow). */
  private inlineValue(line: Line, start: number, depth: number): unknown {
    const c = this.text.charCodeAt(start);
    let value: unknown;
    let end: number;
    if (c === 91 || c === 123) [value, end] = this.flow(line, start, depth);
    else if (c === 34 || c === 39) [value, end] = this.quoted(line, start);
    else {
      // Trailing white space is spaces only here: a tab anywhere made the reader give up.
      let end = this.commentStart(line, start);
      while (end > start && this.text.charCodeAt(end - 1) === 32) end--;
      return this.plain(this.text.slice(start, end), false);
    }
    const rest = this.text.slice(end, this.ends[line]!);
    if (!/^[ \t]*$/.test(rest) && !/^[ \t]+#/.test(rest)) giveUp();
    return value;
  }

  /** Where a ` #` comment starts on `line` after `start` (the line's end when none): searched within the line only. */
  private commentStart(line: Line, start: number): number {
    const text = this.text;
    for (let j = start + 1; j < this.ends[line]!; j++) if (text.charCodeAt(j) === 35 && text.charCodeAt(j - 1) === 32) return j - 1;
    return this.ends[line]!;
  }

  /** A plain scalar as the core schema reads it: a string, a small decimal integer, or give up. */
  private plain(raw: string, flow: boolean): unknown {
    if (raw === '' || INDICATORS.has(raw[0]!) || (raw[0] === '-' && (raw.length === 1 || raw[1] === ' '))) giveUp();
    if (raw.includes(': ') || raw.endsWith(':') || raw.includes(' #')) giveUp();
    if (flow && /[[\]{},]/.test(raw)) giveUp();
    if (mayNotBeString(raw) && NOT_STRING.test(raw)) return SMALL_INT.test(raw) ? Number(raw) : giveUp();
    return raw;
  }

  /** A one-line quoted scalar at `start`; returns it and the offset after its closing quote. */
  private quoted(line: Line, start: number): [string, number] {
    const text = this.text;
    const q = text.charCodeAt(start);
    if (q === 39) {
      let out = '';
      let from = start + 1;
      for (;;) {
        const close = text.indexOf("'", from);
        if (close === -1 || close >= this.ends[line]!) giveUp();
        out += text.slice(from, close);
        if (text.charCodeAt(close + 1) === 39) {
          out += "'";
          from = close + 2;
          continue;
        }
        return [out, close + 1];
      }
    }
    let j = start + 1;
    for (;;) {
      const close = text.indexOf('"', j);
      if (close === -1 || close >= this.ends[line]!) giveUp();
      let k = close - 1;
      while (text.charCodeAt(k) === 92) k--;
      if ((close - 1 - k) % 2 === 0) {
        const raw = text.slice(start, close + 1);
        if (!raw.includes('\\')) return [raw.slice(1, -1), close + 1];
        if (raw.replace(JSON_ESCAPES, '').includes('\\')) giveUp();
        return [JSON.parse(raw) as string, close + 1];
      }
      j = close + 1;
    }
  }

  /** A flow collection that closes on its own line; returns it and the offset after it. */
  private flow(line: Line, start: number, depth: number): [unknown, number] {
    if (depth > MAX_DEPTH) giveUp();
    const text = this.text;
    const isMap = text.charCodeAt(start) === 123;
    const close = isMap ? 125 : 93;
    const out: unknown[] | Record<string, unknown> = isMap ? {} : [];
    const at: number[] = [];
    const keys = new Map<string, number>();
    this.positions.set(out, isMap ? { keys } : { items: at });
    let j = start + 1;
    const skip = (): void => {
      while (j < this.ends[line]! && text.charCodeAt(j) === 32) j++;
      if (j >= this.ends[line]!) giveUp();
    };
    skip();
    if (text.charCodeAt(j) === close) return [out, j + 1];
    for (;;) {
      skip();
      let key: string | undefined;
      if (isMap) {
        const c = text.charCodeAt(j);
        let keyEnd: number;
        if (c === 34 || c === 39) {
          [key, keyEnd] = this.quoted(line, j);
        } else {
          keyEnd = j;
          while (keyEnd < this.ends[line]! && text.charCodeAt(keyEnd) !== 58 && text.charCodeAt(keyEnd) !== 44 && text.charCodeAt(keyEnd) !== close) keyEnd++;
          key = text.slice(j, keyEnd).replace(YAML_TRAILING_WHITE, '');
          if (!KEY.test(key) || NOT_STRING.test(key)) giveUp();
        }
        if (key === '__proto__' || keys.has(key)) giveUp();
        j = keyEnd;
        while (j < this.ends[line]! && text.charCodeAt(j) === 32) j++;
        if (text.charCodeAt(j) !== 58) giveUp();
        j++;
        if (c !== 34 && c !== 39 && text.charCodeAt(j) !== 32) giveUp();
        skip();
      }
      const c = text.charCodeAt(j);
      const valueAt = this.pos(line, j);
      let value: unknown;
      if (c === 91 || c === 123) [value, j] = this.flow(line, j, depth + 1);
      else if (c === 34 || c === 39) [value, j] = this.quoted(line, j);
      else {
        let end = j;
        while (end < this.ends[line]!) {
          const d = text.charCodeAt(end);
          if (d === 44 || d === close || d === 93 || d === 125) break;
          end++;
        }
        value = this.plain(text.slice(j, end).replace(YAML_TRAILING_WHITE, ''), true);
        j = end;
      }
      if (isMap) {
        keys.set(key!, valueAt);
        (out as Record<string, unknown>)[key!] = value;
      } else {
        at.push(valueAt);
        (out as unknown[]).push(value);
      }
      while (j < this.ends[line]! && text.charCodeAt(j) === 32) j++;
      const d = text.charCodeAt(j);
      if (d === close) return [out, j + 1];
      if (d !== 44) giveUp();
      j++;
      // A trailing comma, or an empty entry: the full parser decides.
      skip();
      if (text.charCodeAt(j) === close || text.charCodeAt(j) === 44) giveUp();
    }
  }
}
