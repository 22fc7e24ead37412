/**
 * Newline-delimited framing of a byte stream with a per-message size limit, used on both sides of the
 * proxy (agent stdin, upstream stdout). Unlike the SDK's `ReadBuffer` it scans each new chunk once and
 * joins an unfinished line only when it ends, so a message close to the limit costs O(n), not O(n²).
 * A UTF-8 byte order mark opening the stream (some Windows tools write one) is dropped, as RFC 8259 §8.1
 * allows; `JSON.parse` would otherwise refuse the first message (for an agent: its `initialize`).
 */

/** What one chunk produced: the complete lines, and whether a message went over the limit. */
export interface FramedChunk {
  /** Complete lines (without `\n` and a trailing `\r`), in order. */
  lines: string[];
  /** True when a message exceeded the limit; the framer then drops everything and stays overflowed. */
  overflowed: boolean;
}

const NEWLINE = 0x0a;
const BYTE_ORDER_MARK = '\uFEFF';

/** Splits a stream of chunks into lines; a line longer than `maxMessageBytes` is an overflow. */
export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflow = false;
  /** True until the first line has been taken: only it may open with a byte order mark. */
  private firstLine = true;

  /** @param maxMessageBytes the largest accepted message, in bytes, without its newline. */
  constructor(private readonly maxMessageBytes: number) {}

  /** Bytes held for a line that has not ended yet. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Feeds one chunk. After an overflow every later chunk is ignored. */
  push(chunk: Buffer): FramedChunk {
    const lines: string[] = [];
    let start = 0;
    while (!this.overflow) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.pendingBytes + (end - start) > this.maxMessageBytes) {
        this.overflow = true;
        this.pending = [];
        this.pendingBytes = 0;
        break;
      }
      if (newline === -1) {
        this.keep(chunk.subarray(start));
        break;
      }
      lines.push(this.takeLine(chunk.subarray(start, newline)));
      start = newline + 1;
    }
    return { lines, overflowed: this.overflow };
  }

  /**
   * The stream ended: the last line if it had no newline (undefined when nothing is held or after an
   * overflow). The framer is then empty.
   */
  end(): string | undefined {
    if (this.overflow || this.pendingBytes === 0) return undefined;
    return this.takeLine(Buffer.alloc(0));
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private takeLine(tail: Buffer): string {
    const whole = this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail]);
    this.pending = [];
    this.pendingBytes = 0;
    let text = whole.toString('utf8');
    if (this.firstLine) {
      this.firstLine = false;
      if (text.startsWith(BYTE_ORDER_MARK)) text = text.slice(1);
    }
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }
}
