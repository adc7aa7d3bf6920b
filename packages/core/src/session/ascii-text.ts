/**
 * Restore text built as bytes: the renderer copies every checked character into one
 * growing `Uint8Array` and turns it into a string once at the end. At a million lines
 * this replaced joins of a million scattered member strings (a rope to flatten, and
 * every member read twice: once to check it, once to copy it).
 *
 * Only ASCII is ever written: everything that reaches the text was checked first (set
 * names are printable ASCII, members canonical, specs and numbers the library's own), so
 * a byte is a character.
 */

/** The part of the web platform's `TextDecoder` used here (core's `lib` is ES2022, which does not declare it). */
interface AsciiDecoder {
  decode(bytes: Uint8Array): string;
}

/** Characters per `String.fromCharCode` call of the fallback (well under engines' argument limits). */
const FALLBACK_CHUNK = 8192;

/** Texts up to this long are made with `String.fromCharCode`: cheaper than a decoder call for a few lines. */
const SMALL_TEXT = 1024;

/**
 * The platform's UTF-8 decoder (ASCII is UTF-8), or `undefined` in an engine without
 * one: core also runs in embedders that have only the ECMAScript globals.
 */
function platformDecoder(): AsciiDecoder | undefined {
  const ctor = (globalThis as { TextDecoder?: new () => AsciiDecoder }).TextDecoder;
  return typeof ctor === 'function' ? new ctor() : undefined;
}

/** `bytes` (ASCII, longer than {@link SMALL_TEXT}) as a string, through `decoder` when there is one. */
function decodeLargeAscii(bytes: Uint8Array, decoder: AsciiDecoder | undefined): string {
  if (decoder !== undefined) return decoder.decode(bytes);
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += FALLBACK_CHUNK) {
    parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + FALLBACK_CHUNK) as unknown as number[]));
  }
  return parts.join('');
}

/**
 * Largest chunk of text kept as bytes before it is decoded (a chunk is reused, so the
 * bytes are written into memory that is already mapped and in cache).
 */
export const CHUNK_BYTES = 1 << 20;

/**
 * Text written as ASCII bytes into a reused chunk; a full chunk is decoded into a
 * string part, and the parts are joined once at the end.
 */
export class AsciiChunks {
  /** Write position in {@link room}'s buffer; the writer advances it. */
  pos = 0;
  private buf: Uint8Array;
  private readonly parts: string[] = [];
  /** The platform's decoder, made for the first text longer than {@link SMALL_TEXT} (`null` until then). */
  private decoder: AsciiDecoder | undefined | null = null;

  /** @param expected the expected length of the whole text, to size a small text's buffer. */
  constructor(expected: number) {
    this.buf = new Uint8Array(Math.min(CHUNK_BYTES, Math.max(64, expected)));
  }

  /** The buffer, with room for `bytes` more bytes from {@link pos} (which may move back to 0). */
  room(bytes: number): Uint8Array {
    if (this.pos + bytes <= this.buf.length) return this.buf;
    if (this.pos > 0) {
      this.parts.push(this.decode(this.buf.subarray(0, this.pos)));
      this.pos = 0;
    }
    if (bytes > this.buf.length) this.buf = new Uint8Array(Math.max(bytes, Math.min(CHUNK_BYTES, 2 * this.buf.length)));
    return this.buf;
  }

  /** Everything written, as one string. */
  text(): string {
    const last = this.pos === 0 ? '' : this.decode(this.buf.subarray(0, this.pos));
    if (this.parts.length === 0) return last;
    if (last !== '') this.parts.push(last);
    return this.parts.join('');
  }

  /** `bytes` (ASCII) as a string. */
  private decode(bytes: Uint8Array): string {
    if (bytes.length <= SMALL_TEXT) return String.fromCharCode.apply(null, bytes as unknown as number[]);
    if (this.decoder === null) this.decoder = platformDecoder();
    return decodeLargeAscii(bytes, this.decoder);
  }
}

/** The bytes of ASCII `text`. */
export function asciiBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  writeAscii(bytes, 0, text);
  return bytes;
}

/** Writes ASCII `text` into `buf` at `at` (the caller made room); returns the index after it. */
export function writeAscii(buf: Uint8Array, at: number, text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) buf[at + i] = text.charCodeAt(i);
  return at + n;
}
