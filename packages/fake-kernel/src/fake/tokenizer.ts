/**
 * How `ipset restore` reads its input: fgets(buf, 1024) chunks (every chunk is a
 * "line" for the counter) and build_argv()'s tokenizer (quotes, 30-word limit).
 */

/** fgets buffer size: a chunk holds at most 1023 bytes. */
const CHUNK_BYTES = 1023;

/**
 * Raw bytes: a character that an fgets chunk end cuts is split into its UTF-8 bytes,
 * each written as the lone surrogate U+DC00 + byte (U+DC80-U+DCFF, one byte wide), so
 * each chunk keeps its part as ipset does; {@link printable} turns them into what a
 * UTF-8 reader of ipset's output sees.
 */
const RAW_BYTE = 0xdc00;

function isRawByte(c: number): boolean {
  return c >= 0xdc80 && c <= 0xdcff;
}

/** UTF-8 width of the code unit `c` (4 for a high surrogate: the pair). */
function width(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : isRawByte(c) ? 1 : 3;
}

/**
 * End (exclusive) of the fgets chunk starting at `pos`: through the next `\n`, or 1023
 * bytes, or the end of the text. When the 1023rd byte is inside a character, returns
 * `-1 - i` for the index `i` of that character ({@link cutCharacter} splits it).
 */
export function chunkEnd(text: string, pos: number): number {
  let nl = text.indexOf('\n', pos);
  nl = nl < 0 ? text.length : nl + 1;
  if (nl - pos <= CHUNK_BYTES / 3) return nl;
  let bytes = 0;
  for (let i = pos; i < nl; i++) {
    const w = width(text.charCodeAt(i));
    if (bytes + w > CHUNK_BYTES) return bytes === CHUNK_BYTES ? i : -1 - i;
    bytes += w;
    if (w === 4) i++;
  }
  return nl;
}

/** `text` with the character at `i` written as its UTF-8 bytes (raw bytes, see {@link RAW_BYTE}). */
export function cutCharacter(text: string, i: number): string {
  const cp = text.codePointAt(i)!;
  const units = cp > 0xffff ? 2 : 1;
  const bytes =
    cp < 0x800
      ? [0xc0 | (cp >> 6), 0x80 | (cp & 63)]
      : cp < 0x10000
        ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
        : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return text.slice(0, i) + String.fromCharCode(...bytes.map((b) => RAW_BYTE + b)) + text.slice(i + units);
}

/** UTF-8 length of `s` (raw bytes count one). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const w = width(s.charCodeAt(i));
    n += w;
    if (w === 4) i++;
  }
  return n;
}

const RAW_BYTES = /[\u{dc80}-\u{dcff}]/u;

/**
 * Output as a UTF-8 reader of ipset's bytes sees it: the raw bytes of a cut character
 * become U+FFFD, one for the leading part of a character and one for each lone
 * continuation byte (as the WHATWG decoder, and Node's, replace them).
 */
export function printable(s: string): string {
  if (!RAW_BYTES.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isRawByte(c)) {
      out += s[i];
      continue;
    }
    out += '\ufffd';
    const byte = c - RAW_BYTE;
    if (byte < 0xc0) continue;
    // A leading byte: the continuation bytes that follow belong to its (cut) character.
    let more = byte >= 0xf0 ? 3 : byte >= 0xe0 ? 2 : 1;
    while (more > 0 && i + 1 < s.length && isRawByte(s.charCodeAt(i + 1)) && s.charCodeAt(i + 1) - RAW_BYTE < 0xc0) {
      i++;
      more--;
    }
  }
  return out;
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
  // A chunk whose last byte is a quote (the last line without a newline, or a line cut
  // at 1023 bytes): an opening one is never closed; after a closing one the word is
  // done (ipset 7.17). A quote left open by a newline drops its word silently.
  if (end > start && text.charCodeAt(end - 1) === 34) {
    if (quoted) return MISSING_QUOTE;
    if (arg.length > 0) words[count++] = arg;
  }
  return count;
}
