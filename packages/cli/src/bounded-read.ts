/**
 * Reading an input file (a desired state, a captured save) so that no file can cost
 * unbounded memory or hang the command: only regular files (a directory, `/dev/zero`
 * or a FIFO is refused before a byte is read), at most {@link MAX_INPUT_BYTES} bytes
 * (checked before reading and again while reading, for a file that grows), strict
 * UTF-8 (the byte offset of the first bad byte is reported), a leading byte-order mark
 * dropped.
 */
import { isUtf8 } from 'node:buffer';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { IpsetsError } from '@ipsets/core';
import { formatBytes, quoteCut } from './format.js';

/** Largest input file read: 256 MiB (a 1,000,000-member desired file is about 20 MiB). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** Options of {@link readInputFile} and {@link readInputStream}. */
export interface ReadInputOptions {
  /** What the file is, for messages: `desired-state file`, `save file`. */
  readonly what: string;
  /** Largest size accepted, in bytes (default {@link MAX_INPUT_BYTES}). */
  readonly limit?: number;
}

function tooLarge(name: string, what: string, size: string, limit: number): IpsetsError {
  return new IpsetsError(
    'INVALID_INPUT',
    `${what} ${name} is ${size}; expected at most ${formatBytes(limit)} (a 1,000,000-member desired state is about 20 MiB)`,
    { details: { source: name, problems: [] } },
  );
}

function notRegular(name: string, what: string, path: string, kind: string): IpsetsError {
  return new IpsetsError('INVALID_INPUT', `${what} ${name} is ${kind}; expected a regular file (use - to read standard input)`, {
    details: { source: path, problems: [] },
  });
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
    throw new IpsetsError('INVALID_INPUT', `cannot read ${options.what} ${name}: ${(error as Error).message}`, {
      cause: error,
      details: { source: path, problems: [] },
    });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(name, options.what, path, kindOf(info));
    if (info.size > limit) throw tooLarge(name, options.what, formatBytes(info.size), limit);
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
      if (total > limit) throw tooLarge(name, options.what, `larger than ${formatBytes(limit)}`, limit);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof IpsetsError) throw error;
    throw new IpsetsError('INVALID_INPUT', `cannot read ${options.what} ${name}: ${(error as Error).message}`, {
      cause: error,
      details: { source: path, problems: [] },
    });
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
      if (total > limit) throw tooLarge(name, options.what, `larger than ${formatBytes(limit)}`, limit);
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof IpsetsError) throw error;
    throw new IpsetsError('INVALID_INPUT', `cannot read ${options.what} from ${name}: ${(error as Error).message}`, { cause: error });
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
      throw new IpsetsError('INVALID_INPUT', `${what} ${name} is UTF-16 (it starts with a UTF-16 byte-order mark); expected UTF-8`, {
        details: { source, problems: [] },
      });
    }
    const at = firstBadUtf8(bytes);
    let line = 1;
    for (let i = bytes.indexOf(10); i !== -1 && i < at; i = bytes.indexOf(10, i + 1)) line++;
    const byte = bytes[at] === undefined ? 'a truncated character at the end' : `byte 0x${bytes[at]!.toString(16).padStart(2, '0')}`;
    throw new IpsetsError('INVALID_INPUT', `${what} ${name} is not valid UTF-8: ${byte} at offset ${at} (line ${line}); expected UTF-8 text`, {
      details: { source, problems: [{ path: '(root)', line, message: 'not valid UTF-8' }] },
    });
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
