/** What the kernel holds, as the parsers read it from `ipset save` and `ipset list -t`. */

/** One set of an `ipset save` dump. */
export interface SavedSet {
  /** Kernel name. */
  name: string;
  /** Kernel type, e.g. `hash:net`. */
  type: string;
  /** The rest of the create line after the type (`family inet hashsize 1024 …`). */
  options: string;
  /** {@link options} parsed (once, by the parser): option word → value, `''` for a flag. */
  createOptions: CreateOptions;
  /**
   * Members (as `ipset save` prints them, ` nomatch` kept), in dump order. Read them
   * through this interface only: from `parseSave` no string is made for a member until
   * it is read. Build one from strings with `savedSet`.
   */
  members: SavedMembers;
}

/**
 * The create options of a saved set: each option word of the create line with its
 * value (`family` → `inet`, `maxelem` → `65536`), `''` for a flag (`counters`,
 * `comment`). A record without a prototype.
 */
export type CreateOptions = Readonly<Record<string, string>>;

/** The members of a saved set, in dump order, read by index. */
export interface SavedMembers extends Iterable<string> {
  /** The number of members. */
  readonly length: number;
  /** Member `i` as `ipset save` printed it (` nomatch` kept). */
  at(i: number): string;
  /**
   * `hostValue` of member `i`: the address of a canonical IPv4 host member (unsigned
   * 32-bit), plus 2^32 with ` nomatch`; -1 for any other member.
   */
  hostValue(i: number): number;
  /**
   * {@link hostValue} of every member at once, for a loop over a million: entry `i`
   * is member `i`'s value when it is a host, negative when it is not (read it with
   * {@link at}). Read, never write.
   */
  hostValues(): Float64Array;
  /** The members as an array of strings (what `JSON.stringify` writes). */
  toJSON(): string[];
}

/** A line the save parser could not use; parsing went on past it. */
export interface ParseProblem {
  /** 1-based line number in the input. */
  line: number;
  /** The line (trimmed), cut to its first 200 characters. */
  text: string;
  reason: string;
  /** Full length of the line when `text` was cut. */
  length?: number;
}

/** Parsed `ipset save` output. */
export interface SaveSnapshot {
  sets: SavedSet[];
  /** The first problems (at most 100 from `parseSave`), in line order. */
  problems: ParseProblem[];
  /** Total number of problems when there were more than `problems` holds (absent otherwise). */
  problemCount?: number;
}

/** One set of `ipset list -t`. */
export interface SetHeader {
  name: string;
  type: string;
  /** The `Header:` line's value. */
  header: string;
  references: number;
  entries: number;
}
