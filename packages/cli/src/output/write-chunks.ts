/**
 * Writes a long output (a plan of millions of lines) to a stream in pieces of about
 * {@link CHUNK_CHARS} characters, waiting for `drain` whenever the stream says its
 * buffer is full: the output is never held whole, neither here nor in the stream.
 */
import type { OutStream } from '../cli-io.js';

/** Characters gathered before a write: few writes, none of them large. */
export const CHUNK_CHARS = 64 * 1024;

/**
 * Writes `pieces` to `stream` in order, in writes of about `chunkChars` characters.
 * When a write returns `false` and the stream can say when it drained
 * (`once('drain')`, as a Node stream can), the next write waits for it.
 *
 * @throws the stream's `error` while waiting for it to drain (a closed pipe).
 */
export async function writeChunks(stream: OutStream, pieces: Iterable<string>, chunkChars = CHUNK_CHARS): Promise<void> {
  let buffer = '';
  for (const piece of pieces) {
    buffer += piece;
    if (buffer.length < chunkChars) continue;
    const text = buffer;
    buffer = '';
    // A long piece (rendered restore text) goes out in slices of the chunk size.
    let start = 0;
    while (text.length - start >= chunkChars) {
      const end = sliceEnd(text, start + chunkChars);
      await writeOne(stream, text.slice(start, end));
      start = end;
    }
    buffer = text.slice(start);
  }
  if (buffer.length > 0) await writeOne(stream, buffer);
}

/** `end`, or one less so that a slice never ends in half a surrogate pair (each write is encoded on its own). */
function sliceEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

async function writeOne(stream: OutStream, text: string): Promise<void> {
  if (stream.write(text) !== false || typeof stream.once !== 'function') return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: unknown) => {
      stream.off?.('drain', onDrain);
      stream.off?.('error', onError);
      stream.off?.('close', onClose);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onDrain = () => done();
    const onError = (error: unknown) => done(error);
    // A stream closed under us (the reader went away) never drains: stop waiting.
    const onClose = () => done(new Error('the output stream closed before the output was written'));
    stream.once!('drain', onDrain);
    stream.once!('error', onError);
    stream.once!('close', onClose);
  });
}
