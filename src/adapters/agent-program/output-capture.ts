/**
 * One output stream of an agent program, kept in a log file of bounded size: an agent that floods its
 * stdout must fill neither the disk nor the harness's memory. The first {@link KEEP_HEAD_BYTES} are
 * written to the file as they come (the stream is paused while the file falls behind: backpressure);
 * after them the stream is still read to its end — a program blocked on a full pipe would hang its run —
 * but only the last {@link KEEP_TAIL_BYTES} are kept, in a ring buffer allocated once. At the end the
 * file gets one line saying how many bytes were dropped, then the tail: at most 16 MB per stream, the
 * start (what the program said first) and the end (what it said last, usually why it stopped).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';

export const KEEP_HEAD_BYTES = 8 * 1024 * 1024;
export const KEEP_TAIL_BYTES = 8 * 1024 * 1024;

/** The line written between the head and the tail when bytes were dropped. */
export function droppedLine(dropped: number, head: number, tail: number): string {
  return `\n[cuonztech-agent-harness: ${dropped} bytes dropped here; this log keeps the first ${head} and the last ${tail} bytes of the stream]\n`;
}

export class OutputCapture {
  private headLeft: number;
  private ring: Buffer | null = null;
  private ringStart = 0;
  private ringLength = 0;
  private droppedBytes = 0;
  private draining = false;
  private readonly file: WriteStream;
  private readonly closed: Promise<void>;

  constructor(
    path: string,
    private readonly source: Readable,
    private readonly limits = { head: KEEP_HEAD_BYTES, tail: KEEP_TAIL_BYTES },
  ) {
    this.headLeft = limits.head;
    this.file = createWriteStream(path);
    this.closed = new Promise((resolve) => this.file.once('close', () => resolve()));
    // A log that cannot be written (a full disk) is not the agent's failure: the stream is still read to its end.
    this.file.on('error', () => this.drain());
    source.on('data', (chunk: Buffer) => this.take(chunk));
  }

  /** Bytes read but not kept. */
  get dropped(): number {
    return this.droppedBytes;
  }

  /** The program exited: what is still in the pipe is read without waiting for the file. */
  drain(): void {
    this.draining = true;
    this.source.resume();
  }

  /** Writes the note and the tail and closes the file; resolves once it is on disk (or failed). */
  close(): Promise<void> {
    const { head, tail } = this.limits;
    if (this.file.destroyed) return this.closed;
    if (this.droppedBytes > 0) this.file.write(droppedLine(this.droppedBytes, head, tail));
    if (this.ring !== null && this.ringLength > 0) {
      const end = this.ringStart + this.ringLength;
      this.file.write(this.ring.subarray(this.ringStart, Math.min(end, tail)));
      if (end > tail) this.file.write(this.ring.subarray(0, end - tail));
    }
    this.ring = null;
    this.file.end();
    return this.closed;
  }

  private take(chunk: Buffer): void {
    let rest = chunk;
    if (this.headLeft > 0) {
      const part = rest.subarray(0, this.headLeft);
      this.headLeft -= part.length;
      rest = rest.subarray(part.length);
      if (!this.file.write(part) && !this.draining && !this.source.isPaused()) {
        this.source.pause();
        this.file.once('drain', () => this.source.resume());
      }
    }
    if (rest.length > 0) this.keepTail(rest);
  }

  /** The bytes after the head: only the last `tail` of them are kept. */
  private keepTail(bytes: Buffer): void {
    const size = this.limits.tail;
    if (size === 0) {
      this.droppedBytes += bytes.length;
      return;
    }
    this.ring ??= Buffer.allocUnsafe(size);
    if (bytes.length >= size) {
      this.droppedBytes += this.ringLength + bytes.length - size;
      bytes.copy(this.ring, 0, bytes.length - size);
      this.ringStart = 0;
      this.ringLength = size;
      return;
    }
    const overflow = this.ringLength + bytes.length - size;
    if (overflow > 0) {
      this.droppedBytes += overflow;
      this.ringStart = (this.ringStart + overflow) % size;
      this.ringLength -= overflow;
    }
    const at = (this.ringStart + this.ringLength) % size;
    const first = Math.min(bytes.length, size - at);
    bytes.copy(this.ring, at, 0, first);
    if (first < bytes.length) bytes.copy(this.ring, 0, first);
    this.ringLength += bytes.length;
  }
}
