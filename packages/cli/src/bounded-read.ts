/**
 * Reading an input file (a desired state, a captured save) so that no file can cost
 * unbounded memory or hang the command: only regular files (a directory, `/dev/zero`
 * or a FIFO is refused before a byte is read), at most {@link MAX_INPUT_BYTES} bytes
 * (checked before reading and again while reading, for a file that grows), strict
 * UTF-8 (the byte offset of the first bad byte is reported), a leading byte-order mark
 * dropped.
 *
 * {@link readInputText} is the one way in: every command and the agent read desired
 * files and captured saves through it, so a bad file is refused with the same message
 * whoever reads it. It never throws for a bad file: it returns the text or a
 * {@link InputProblem} whose `reason` says what was wrong (the agent shows it on `/readyz`).
 * Symlinks are followed (a Kubernetes ConfigMap volume is a chain of them); what they
 * lead to must be a regular file.
 */
import { isUtf8 } from 'node:buffer';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { IpsetsError } from '@ipsets/core';
import { cutText, formatBytes, quoteCut } from './format.js';

/** Largest input file read: 256 MiB (a 1,000,000-member desired file is about 20 MiB). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** Options of {@link readInputFile} and {@link readInputStream}. */
export interface ReadInputOptions {
  /** What the file is, for messages: `desired-state file`, `save file`. */
  readonly what: string;
  /** Largest size accepted, in bytes (default {@link MAX_INPUT_BYTES}). */
  readonly limit?: number;
}

/**
 * Why an input file was refused: `missing` (no such file), `unreadable` (any other
 * error opening or reading it), `not-regular` (a directory, FIFO, device or socket),
 * `too-large` (over the limit), `not-utf8`.
 */
export type InputProblemReason = 'missing' | 'unreadable' | 'not-regular' | 'too-large' | 'not-utf8';

/** A refused input: the reason, and the `INVALID_INPUT` error every reader reports (its `details.reason` is `reason`). */
export interface InputProblem {
  readonly reason: InputProblemReason;
  readonly error: IpsetsError;
}

/** What {@link readInputText} returns: the text, or why there is none. */
export type InputText = { readonly ok: true; readonly text: string } | ({ readonly ok: false } & InputProblem);

function inputError(reason: InputProblemReason, message: string, source: string, cause?: unknown, problems: readonly unknown[] = []): IpsetsError {
  return new IpsetsError('INVALID_INPUT', message, { ...(cause === undefined ? {} : { cause }), details: { source, problems, reason } });
}

function tooLarge(name: string, what: string, size: string, limit: number, source: string): IpsetsError {
  return inputError('too-large', `${what} ${name} is ${size}; expected at most ${formatBytes(limit)} (a 1,000,000-member desired state is about 20 MiB)`, source);
}

function notRegular(name: string, what: string, path: string, kind: string): IpsetsError {
  return inputError('not-regular', `${what} ${name} is ${kind}; expected a regular file (use - to read standard input)`, path);
}

function cannotRead(name: string, what: string, path: string, error: unknown): IpsetsError {
  const code = (error as NodeJS.ErrnoException).code;
  return inputError(code === 'ENOENT' ? 'missing' : 'unreadable', `cannot read ${what} ${name}: ${cutText((error as Error).message, 300)}`, path, error);
}

/** The reason of an error from this module (`unreadable` for anything else). */
export function inputProblemOf(error: unknown): InputProblem {
  if (error instanceof IpsetsError && error.code === 'INVALID_INPUT') {
    const reason = (error.details as { reason?: InputProblemReason } | undefined)?.reason;
    if (reason !== undefined) return { reason, error };
  }
  const wrapped = error instanceof IpsetsError ? error : new IpsetsError('INVALID_INPUT', cutText(String((error as Error)?.message ?? error), 300), { cause: error });
  return { reason: 'unreadable', error: wrapped };
}

/** Options of {@link readInputText}. */
export interface ReadInputTextOptions extends ReadInputOptions {
  /** Where `-` reads from (default process.stdin). */
  readonly stdin?: AsyncIterable<string | Buffer>;
}

/**
 * Reads an input file (`-`: standard input) as strict UTF-8 text, within the limits of
 * {@link readInputFile}. Never throws for a bad file: a refused one comes back as an
 * {@link InputProblem}.
 */
export async function readInputText(path: string, options: ReadInputTextOptions): Promise<InputText> {
  const source = path === '-' ? 'stdin' : path;
  try {
    const bytes = path === '-' ? await readInputStream(options.stdin ?? process.stdin, options) : await readInputFile(path, options);
    return { ok: true, text: decodeUtf8(bytes, source, options.what) };
  } catch (error) {
    return { ok: false, ...inputProblemOf(error) };
  }
}

/** The text of {@link readInputText}, or its problem's error thrown. */
export async function readInputTextOrThrow(path: string, options: ReadInputTextOptions): Promise<string> {
  const read = await readInputText(path, options);
  if (!read.ok) throw read.error;
  return read.text;
}

function kindOf(stat: { isDirectory(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Reads a regular file of at most `limit` bytes.
 *
 * @throws IpsetsError `INVALID_INPUT` when the file cannot be opened, is not a regular
 *   file, or is larger than the limit.
 */
export async function readInputFile(path: string, options: ReadInputOptions): Promise<Buffer> {
  const limit = options.limit ?? MAX_INPUT_BYTES;
  const name = quoteCut(path);
  let handle;
  try {
    // Look before opening: opening a FIFO for reading blocks until a writer comes.
    const before = await stat(path);
    if (!before.isFile()) throw notRegular(name, options.what, path, kindOf(before));
    // Non-blocking, in case a FIFO took the file's place since.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (error instanceof IpsetsError) throw error;
    throw cannotRead(name, options.what, path, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(name, options.what, path, kindOf(info));
    if (info.size > limit) throw tooLarge(name, options.what, formatBytes(info.size), limit, path);
    // Read to the end rather than to stat.size: the file may have grown (or be a /proc file
    // that reports 0), but never past the limit.
    const chunks: Buffer[] = [];
    let total = 0;
    const chunkSize = Math.max(64 * 1024, Math.min(info.size + 1, limit + 1));
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(chunkSize, limit + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limit) throw tooLarge(name, options.what, `larger than ${formatBytes(limit)}`, limit, path);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof IpsetsError) throw error;
    throw cannotRead(name, options.what, path, error);
  } finally {
    await handle.close();
  }
}

/**
 * Reads a stream (standard input) to its end, refusing it as soon as it passes `limit` bytes.
 *
 * @throws IpsetsError `INVALID_INPUT` when the stream is larger than the limit or fails.
 */
export async function readInputStream(stream: AsyncIterable<string | Buffer>, options: ReadInputOptions & { name?: string }): Promise<Buffer> {
  const limit = options.limit ?? MAX_INPUT_BYTES;
  const name = options.name ?? 'stdin';
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      total += buffer.length;
      if (total > limit) throw tooLarge(name, options.what, `larger than ${formatBytes(limit)}`, limit, name);
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof IpsetsError) throw error;
    throw inputError('unreadable', `cannot read ${options.what} from ${name}: ${cutText((error as Error).message, 300)}`, name, error);
  }
  return Buffer.concat(chunks, total);
}

/** Offset of the first byte that breaks UTF-8 (the buffer is known not to be valid). */
function firstBadUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    let need: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= n) return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return n;
}

/**
 * Decodes strict UTF-8, dropping a leading byte-order mark.
 *
 * @throws IpsetsError `INVALID_INPUT` naming the line and byte offset of the first
 *   invalid byte (or a UTF-16 byte-order mark).
 */
export function decodeUtf8(bytes: Buffer, source: string, what: string): string {
  if (!isUtf8(bytes)) {
    const name = quoteCut(source);
    if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
      throw inputError('not-utf8', `${what} ${name} is UTF-16 (it starts with a UTF-16 byte-order mark); expected UTF-8`, source);
    }
    const at = firstBadUtf8(bytes);
    let line = 1;
    for (let i = bytes.indexOf(10); i !== -1 && i < at; i = bytes.indexOf(10, i + 1)) line++;
    const byte = bytes[at] === undefined ? 'a truncated character at the end' : `byte 0x${bytes[at]!.toString(16).padStart(2, '0')}`;
    throw inputError('not-utf8', `${what} ${name} is not valid UTF-8: ${byte} at offset ${at} (line ${line}); expected UTF-8 text`, source, undefined, [
      { path: '(root)', line, message: 'not valid UTF-8' },
    ]);
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
