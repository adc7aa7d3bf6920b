import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { writeChunks } from '../../../src/output/write-chunks.js';

/** A stream whose buffer is "full" after every write until the test emits `drain`. */
class FullStream extends EventEmitter {
  readonly written: string[] = [];
  write(text: string): boolean {
    this.written.push(text);
    return false;
  }
}

const pieces = (n: number, size: number) => Array.from({ length: n }, (_, i) => String(i % 10).repeat(size));

describe('writeChunks', () => {
  it('gathers small pieces into writes of about the chunk size, in order', async () => {
    const writes: string[] = [];
    await writeChunks({ write: (t) => writes.push(t) }, pieces(100, 10), 64);
    expect(writes.join('')).toBe(pieces(100, 10).join(''));
    expect(writes.length).toBe(Math.ceil(1000 / 64));
    expect(Math.max(...writes.map((w) => w.length))).toBe(64);
  });

  it('waits for drain after a write that found the buffer full', async () => {
    const stream = new FullStream();
    const done = writeChunks(stream, pieces(5, 100), 100);
    await new Promise((r) => setTimeout(r, 10));
    // One write, then nothing until the stream drains.
    expect(stream.written.length).toBe(1);
    stream.emit('drain');
    await new Promise((r) => setTimeout(r, 10));
    expect(stream.written.length).toBe(2);
    for (let i = 0; i < 4; i++) {
      stream.emit('drain');
      await new Promise((r) => setTimeout(r, 1));
    }
    await done;
    expect(stream.written.join('')).toBe(pieces(5, 100).join(''));
    expect(stream.listenerCount('drain') + stream.listenerCount('error') + stream.listenerCount('close')).toBe(0);
  });

  it('fails with the stream error, and when the stream closes instead of draining', async () => {
    const broken = new FullStream();
    const failed = writeChunks(broken, pieces(3, 100), 100);
    broken.emit('error', new Error('EPIPE: broken pipe'));
    await expect(failed).rejects.toThrow('EPIPE');
    const closed = new FullStream();
    const cut = writeChunks(closed, pieces(3, 100), 100);
    closed.emit('close');
    await expect(cut).rejects.toThrow(/closed before the output was written/);
  });

  it('does not wait on a stream that cannot say when it drained', async () => {
    const writes: string[] = [];
    await writeChunks({ write: (t) => (writes.push(t), false) }, pieces(3, 100), 100);
    expect(writes).toHaveLength(3);
  });
});

describe('writeChunks with long pieces', () => {
  it('slices a piece longer than the chunk size, never inside a surrogate pair', async () => {
    const writes: string[] = [];
    const piece = `${'a'.repeat(9)}😀${'b'.repeat(30)}😀😀`;
    await writeChunks({ write: (t) => writes.push(t) }, ['x', piece], 10);
    expect(writes.join('')).toBe(`x${piece}`);
    expect(Math.max(...writes.map((w) => w.length))).toBeLessThanOrEqual(10);
    // Every write is valid UTF-16 on its own: it encodes to UTF-8 and back unchanged.
    for (const w of writes) expect(Buffer.from(w, 'utf8').toString('utf8')).toBe(w);
  });
});
