/** What the kernel holds, as the parsers read it from `ipset save` and `ipset list -t`. */

/** One set of an `ipset save` dump. */
export interface SavedSet {
  /** Kernel name. */
  name: string;
  /** Kernel type, e.g. `hash:net`. */
  type: string;
  /** The rest of the create line after the type (`family inet hashsize 1024 …`). */
  options: string;
  /** Members, canonical (as `ipset save` prints them, ` nomatch` kept), in dump order. */
  members: string[];
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
