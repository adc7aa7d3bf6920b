/**
 * How `ipset restore` reads its input: fgets(buf, 1024) chunks (every chunk is a
 * "line" for the counter) and build_argv()'s tokenizer (quotes, 30-word limit).
 */

/** fgets buffer size: a chunk holds at most 1023 bytes. */
const CHUNK_BYTES = 1023;

/**
 * End (exclusive) of the fgets chunk starting at `pos`: through the next `\n`, or 1023
 * bytes, or the end of the text.
 */
export function chunkEnd(text: string, pos: number): number {
  let nl = text.indexOf('\n', pos);
  nl = nl < 0 ? text.length : nl + 1;
  if (nl - pos <= CHUNK_BYTES / 3) return nl;
  let bytes = 0;
  for (let i = pos; i < nl; i++) {
    const c = text.charCodeAt(i);
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : 3;
    if (bytes + w > CHUNK_BYTES) return i;
    bytes += w;
    if (w === 4) i++;
  }
  return nl;
}

/** C isspace(). */
export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** build_argv() result: more than 30 words (`Line is too long to parse.`). */
export const TOO_LONG = -1;
/** build_argv() result: the chunk ended inside a quote (`Missing close quote!`). */
export const MISSING_QUOTE = -2;

function isSep(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * build_argv(): splits text[start, end) into `words`; returns the word count, or
 * {@link TOO_LONG} (`Line is too long to parse.`) or {@link MISSING_QUOTE}.
 * `nextQuote` is the index of the first `"` at or after `start` (-1 for none), so the
 * quote-free fast path costs no extra scan.
 */
export function tokenize(text: string, start: number, end: number, words: string[], nextQuote: number): number {
  if (nextQuote < 0 || nextQuote >= end) {
    let count = 0;
    let i = start;
    while (i < end) {
      if (count === 30) return TOO_LONG;
      if (isSep(text.charCodeAt(i))) {
        i++;
        continue;
      }
      let j = i + 1;
      while (j < end && !isSep(text.charCodeAt(j))) j++;
      words[count++] = text.slice(i, j);
      i = j + 1;
    }
    return count;
  }
  let count = 0;
  let quoted = false;
  let arg = '';
  for (let i = start; i < end; i++) {
    if (count === 30) return TOO_LONG;
    const ch = text[i] as string;
    const c = ch.charCodeAt(0);
    if (c === 34) {
      quoted = !quoted;
      continue;
    }
    if (isSep(c)) {
      if (quoted) {
        arg += ch;
        continue;
      }
    } else {
      arg += ch;
      if (i + 1 < end) continue;
    }
    if (i + 1 >= end && quoted) return MISSING_QUOTE;
    if (arg.length === 0) continue;
    words[count++] = arg;
    arg = '';
  }
  return count;
}
