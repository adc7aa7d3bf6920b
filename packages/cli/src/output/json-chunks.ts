/**
 * Pretty-printed JSON as a sequence of chunks, so that a document larger than the
 * longest string V8 can hold (about 512 MiB) can still be written: `ipsets plan
 * --json` of a plan with millions of lines. The bytes are those of
 * `JSON.stringify(value, null, indent)`; only the way they are produced differs.
 *
 * Containers with more than a few dozen values inside are walked value by value;
 * smaller ones go to `JSON.stringify` whole (re-indented), which is what keeps this
 * fast: a plan line is one small object.
 */

/** Values below this count inside a container are stringified whole. */
const SMALL_NODES = 64;

/**
 * An array whose elements are made on demand: written element by element and never
 * held as a whole (`JSON.stringify` does not know it; only {@link jsonChunks} does).
 */
export class LazyJsonArray<T> {
  /**
   * @param items Called once, when the array is written.
   * @param smallItems Each element is small enough to be stringified whole (a plan
   *   line): skips the size check, which is a third of the work for a million lines.
   */
  constructor(
    readonly items: () => Iterable<T>,
    readonly smallItems = false,
  ) {}
}

/**
 * Yields the text of `JSON.stringify(value, null, indent)` in pieces, without ever
 * holding the whole text. {@link LazyJsonArray} values are written as arrays.
 * Supports what `JSON.stringify` does for plain data: `toJSON`, and `undefined`,
 * functions and symbols left out of objects (`null` in arrays).
 */
export function* jsonChunks(value: unknown, indent = 2): Generator<string, void, undefined> {
  if (!Number.isInteger(indent) || indent < 1 || indent > 10) throw new RangeError(`indent must be 1-10 spaces, got ${indent}`);
  const gap = ' '.repeat(indent);
  const top = prepare(value, '');
  if (top === undefined) return;
  yield* walk(top, '', gap);
}

/** `toJSON` applied, and `undefined` for what JSON leaves out. */
function prepare(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  return value;
}

function* walk(value: unknown, pad: string, gap: string): Generator<string, void, undefined> {
  if (value instanceof LazyJsonArray) {
    yield* walkArray(value.items(), pad, gap, value.smallItems);
    return;
  }
  if (value === null || typeof value !== 'object' || isSmall(value)) {
    yield stringifyAt(value, pad, gap);
    return;
  }
  if (Array.isArray(value)) {
    yield* walkArray(value, pad, gap);
    return;
  }
  const inner = pad + gap;
  let first = true;
  for (const key of Object.keys(value)) {
    const item = prepare((value as Record<string, unknown>)[key], key);
    if (item === undefined) continue;
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `;
    first = false;
    yield* walk(item, inner, gap);
  }
  yield first ? '{}' : `\n${pad}}`;
}

function* walkArray(items: Iterable<unknown>, pad: string, gap: string, smallItems = false): Generator<string, void, undefined> {
  const inner = pad + gap;
  let first = true;
  let index = 0;
  for (const raw of items) {
    const open = `${first ? '[' : ','}\n${inner}`;
    first = false;
    const item = prepare(raw, String(index++));
    if (item === undefined) yield `${open}null`;
    else if (item === null || typeof item !== 'object') yield open + JSON.stringify(item);
    else if (smallItems) yield open + stringifyAt(item, inner, gap);
    else {
      yield open;
      yield* walk(item, inner, gap);
    }
  }
  yield first ? '[]' : `\n${pad}]`;
}

/**
 * `JSON.stringify(value, null, gap)` as it reads at indentation `pad`: stringified
 * inside as many arrays as `pad` has levels, and cut out of them. Cheaper than
 * re-indenting every line of it.
 */
function stringifyAt(value: unknown, pad: string, gap: string): string {
  if (pad === '') return JSON.stringify(value, null, gap);
  const depth = pad.length / gap.length;
  let wrapped: unknown = value;
  for (let d = 0; d < depth; d++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, gap);
  // Each level k (1-based) opens with "[\n" + k gaps and closes with "\n" + (k - 1) gaps + "]".
  const head = 2 * depth + (gap.length * depth * (depth + 1)) / 2;
  const tail = 2 * depth + (gap.length * depth * (depth - 1)) / 2;
  return text.slice(head, text.length - tail);
}

/** True when `value` holds fewer than {@link SMALL_NODES} values in all (and no lazy array). */
function isSmall(value: object): boolean {
  let budget = SMALL_NODES;
  const visit = (v: unknown): boolean => {
    if (--budget < 0) return false;
    if (v === null || typeof v !== 'object') return true;
    if (v instanceof LazyJsonArray) return false;
    if (Array.isArray(v)) {
      for (const item of v) if (!visit(item)) return false;
      return true;
    }
    for (const key in v) if (Object.hasOwn(v, key) && !visit((v as Record<string, unknown>)[key])) return false;
    return true;
  };
  return visit(value);
}
