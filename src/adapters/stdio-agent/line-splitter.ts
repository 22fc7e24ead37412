/**
 * Newline framing for a byte stream, in linear time: each chunk is scanned once from its own start, and
 * the unfinished tail is kept as a list of chunks that is joined only when its line ends (the SDK's
 * `ReadBuffer` re-concatenates and re-scans the whole buffer on every chunk, which is O(n²)).
 */

const NEWLINE = 0x0a;

/** What one chunk produced: the lines it completed, and whether a line went over the limit. */
export interface SplitResult {
  /** Complete lines, without `\n` and without a trailing `\r`. */
  lines: string[];
  /** True when a line exceeded the limit; nothing after it was read and the splitter should be dropped. */
  tooLarge: boolean;
}

/** Splits a stream of chunks into lines and refuses any line longer than `maxLineBytes`. */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** @param maxLineBytes the largest line accepted, in bytes, not counting the `\n`. */
  constructor(private readonly maxLineBytes: number) {}

  /** Bytes held for a line that has not ended yet. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Feeds one chunk. Never buffers more than `maxLineBytes`. */
  push(chunk: Buffer): SplitResult {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const stop = end === -1 ? chunk.length : end;
      if (this.pendingBytes + (stop - start) > this.maxLineBytes) {
        this.pending = [];
        this.pendingBytes = 0;
        return { lines, tooLarge: true };
      }
      if (end === -1) break;
      lines.push(this.takeLine(chunk.subarray(start, end)));
      start = end + 1;
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
    return { lines, tooLarge: false };
  }

  private takeLine(last: Buffer): string {
    const bytes = this.pending.length === 0 ? last : Buffer.concat([...this.pending, last]);
    this.pending = [];
    this.pendingBytes = 0;
    const text = bytes.toString('utf8');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }
}
