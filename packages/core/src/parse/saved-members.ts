/**
 * The member lists of saved sets ({@link SavedMembers}): {@link MemberSpans}, what
 * `parseSave` reads — a number per member, strings made only when read — and
 * {@link MemberList}, the same interface over an array of strings, for sets built by
 * hand ({@link savedSet}); and the create options of a set's create line, parsed once
 * ({@link parseCreateOptions}).
 */
import { hostValue } from '../model/members.js';
import { NOMATCH, NOMATCH_FLAG, formatIPv4, hostValueIn } from '../model/ipv4-host.js';
import type { CreateOptions, SavedMembers, SavedSet } from '../types.js';

const VALUED_OPTIONS: ReadonlySet<string> = new Set(['family', 'hashsize', 'maxelem', 'netmask', 'timeout', 'bucketsize', 'initval', 'size', 'markmask']);

/**
 * The create options of a save's create-line tail (`family inet hashsize 1024 maxelem
 * 65536 counters …`): each option word with the word after it for options that take a
 * value (`family`, `hashsize`, `maxelem`, `netmask`, `timeout`, `bucketsize`,
 * `initval`, `size`, `markmask`), `''` for a flag (`counters`, `comment`, …). A
 * record without a prototype: any word is a plain key.
 */
export function parseCreateOptions(options: string): CreateOptions {
  const out = Object.create(null) as Record<string, string>;
  const tokens = options.split(/\s+/);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === '') continue;
    if (VALUED_OPTIONS.has(t) && i + 1 < tokens.length && tokens[i + 1] !== '') out[t] = tokens[++i]!;
    else out[t] = '';
  }
  return out;
}

/**
 * A saved set built from its parts (tests, tools, a save read some other way): the
 * create options parsed from `options` as {@link parseSave} parses them, the members
 * a {@link MemberList}.
 */
export function savedSet(name: string, type: string, options: string, members: readonly string[]): SavedSet {
  return { name, type, options, createOptions: parseCreateOptions(options), members: new MemberList(members) };
}

/** {@link SavedMembers} over an array of member strings (each read with `hostValue`). */
export class MemberList implements SavedMembers {
  private readonly list: readonly string[];

  constructor(members: readonly string[]) {
    this.list = members;
  }

  get length(): number {
    return this.list.length;
  }

  at(i: number): string {
    return this.list[i]!;
  }

  hostValue(i: number): number {
    return hostValue(this.list[i]!);
  }

  hostValues(): Float64Array {
    const values = new Float64Array(this.list.length);
    for (let i = 0; i < values.length; i++) values[i] = hostValue(this.list[i]!);
    return values;
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.list[Symbol.iterator]();
  }

  toJSON(): string[] {
    return [...this.list];
  }
}

const EMPTY_SPANS = new Int32Array(0);

/**
 * The members of one save's sets while each set's members follow each other (as
 * ipset prints them): one array for all, grown by doubling, instead of a few
 * typed arrays per set (allocating those measured costlier than the parse).
 */
export class MemberStore {
  values = new Float64Array(1024);
  count = 0;

  /** Makes room for `more` values past `count`. */
  reserve(more: number): void {
    if (this.count + more <= this.values.length) return;
    const grown = new Float64Array(Math.max(2 * this.values.length, this.count + more));
    grown.set(this.values.subarray(0, this.count));
    this.values = grown;
  }
}

/**
 * The members of one saved set, as read from the save text, without a string per
 * member: `values[i]` says what member `i` is.
 *
 * - `0 <= v < 2^32`: a canonical IPv4 host `a.b.c.d` with address `v` (exactly the
 *   strings `hostValue` accepts without ` nomatch`, so the text is `formatIPv4(v)`);
 * - `v >= 2^32` (`NOMATCH_FLAG` added, as `hostValue` reads it): the same host with ` nomatch`;
 * - `v < 0`: anything else, `texts[others[3j]].slice(others[3j + 1], others[3j + 2])`
 *   with `j = -v - 1` (`texts` are the pieces of the save its members were read from:
 *   the whole text, or the pieces a streamed read got), or `strings.get(i)` for a member
 *   that is not one slice of a piece (an element whose options carry `nomatch` elsewhere
 *   on the line).
 *
 * The address is read while the line is scanned: the planner compares numbers and
 * never reads the text again; a string is made only for a member that is read.
 */
export class MemberSpans implements SavedMembers {
  /** The piece of the save being read (the parser's pushes are offsets into it; see {@link enter}). */
  text = '';
  /** The pieces that hold this set's other members (see the class), the current one last. */
  private texts: string[] = [];
  /** Length of the set's name (a plain add line's member starts after `add <name> `). */
  readonly nameLength: number;
  /** Where the members are while they follow each other in the save (see {@link MemberStore}). */
  private readonly store: MemberStore;
  /** The set's own array, once another set's members came between two of its own. */
  private own: Float64Array | undefined;
  /** Index of member 0 in the store. */
  private from = 0;
  count = 0;
  /** Piece index, start and end of each member that is not a host, in threes. */
  others = EMPTY_SPANS;
  otherCount = 0;
  strings: Map<number, string> | undefined;

  constructor(nameLength: number, store: MemberStore) {
    this.nameLength = nameLength;
    this.store = store;
  }

  /** Makes `text` the piece the next pushes are offsets into. */
  enter(text: string): void {
    this.text = text;
  }

  /** The array that holds member `i` at `offset + i`, for the parser's own loops (the store grows while parsing lasts). */
  get values(): Float64Array {
    return this.own ?? this.store.values;
  }

  /** See {@link values}. */
  get offset(): number {
    return this.own === undefined ? this.from : 0;
  }

  /** Makes room for `more` members past `count` in {@link values}. */
  reserve(more: number): void {
    const own = this.own;
    if (own === undefined) {
      const store = this.store;
      if (this.count === 0) this.from = store.count;
      if (this.from + this.count === store.count) {
        store.reserve(more);
        return;
      }
      // Another set's members came after this one's: move to an array of its own (once per set).
      const moved = new Float64Array(Math.max(16, 2 * (this.count + more)));
      moved.set(store.values.subarray(this.from, this.from + this.count));
      this.own = moved;
      return;
    }
    if (this.count + more <= own.length) return;
    const grown = new Float64Array(Math.max(2 * own.length, this.count + more));
    grown.set(own);
    this.own = grown;
  }

  /** Sets the member count after members were written straight into {@link values}. */
  setCount(count: number): void {
    this.count = count;
    if (this.own === undefined) this.store.count = this.from + count;
  }

  private append(value: number): void {
    this.reserve(1);
    this.values[this.offset + this.count] = value;
    this.setCount(this.count + 1);
  }

  /** Adds a member that is not a host, `text.slice(start, end)`. */
  pushOther(start: number, end: number): void {
    if (3 * this.otherCount === this.others.length) {
      const others = new Int32Array(Math.max(24, this.others.length * 2));
      others.set(this.others);
      this.others = others;
    }
    const texts = this.texts;
    if (texts[texts.length - 1] !== this.text) texts.push(this.text);
    this.others[3 * this.otherCount] = texts.length - 1;
    this.others[3 * this.otherCount + 1] = start;
    this.others[3 * this.otherCount + 2] = end;
    this.append(-++this.otherCount);
  }

  /** Adds the member `text.slice(start, end)`, reading whether it is a host. */
  pushSpan(start: number, end: number): void {
    const value = hostValueIn(this.text, start, end);
    if (value < 0) this.pushOther(start, end);
    else this.append(value);
  }

  /** Adds a member that is not one slice of the text. */
  pushString(member: string): void {
    (this.strings ??= new Map()).set(this.count, member);
    this.pushOther(0, 0);
  }

  /** The number of members. */
  get length(): number {
    return this.count;
  }

  /** Member `i` as a string (as `ipset save` printed it, ` nomatch` kept). */
  at(i: number): string {
    return this.member(i);
  }


  /**
   * `hostValue` of member `i` (see model/members.ts), read while parsing: the address
   * of a canonical IPv4 host, plus `NOMATCH_FLAG` with ` nomatch`; -1 for any other member.
   */
  hostValue(i: number): number {
    const v = this.values[this.offset + i]!;
    return v < 0 ? -1 : v;
  }

  /**
   * {@link hostValue} of every member at once, for a loop over a million: entry `i` is
   * member `i`'s value when it is a host, negative when it is not (then read it with
   * {@link at}). A view of the parser's array, made once per call: read, never write.
   */
  hostValues(): Float64Array {
    return this.values.subarray(this.offset, this.offset + this.count);
  }

  /** Member `i` as a string. */
  member(i: number): string {
    const v = this.values[this.offset + i]!;
    if (v >= NOMATCH_FLAG) return formatIPv4(v - NOMATCH_FLAG) + NOMATCH;
    if (v >= 0) return formatIPv4(v);
    const string = this.strings?.get(i);
    if (string !== undefined) return string;
    const j = -v - 1;
    return this.texts[this.others[3 * j]!]!.slice(this.others[3 * j + 1]!, this.others[3 * j + 2]!);
  }

  /** Every member in order, as {@link at} reads it. */
  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.count; i++) yield this.member(i);
  }

  /** The members as a plain array (what `JSON.stringify` writes for them). */
  toJSON(): string[] {
    return Array.from(this);
  }
}
