/**
 * Keeps the end of the upstream's stderr for crash messages, without ever holding more than a few KB.
 */

/** The default size limit of the tail, in characters (about 4 KB). */
export const STDERR_TAIL_MAX_CHARS = 4096;
/** The default line limit of the tail. */
export const STDERR_TAIL_MAX_LINES = 20;

/** A rolling tail of a text stream. */
export class StderrTail {
  private text = '';

  constructor(
    private readonly maxChars = STDERR_TAIL_MAX_CHARS,
    private readonly maxLines = STDERR_TAIL_MAX_LINES,
  ) {}

  /** Appends one chunk of output. */
  append(chunk: Buffer | string): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (this.text.length > 2 * this.maxChars) this.text = this.text.slice(-this.maxChars);
  }

  /** The tail: at most `maxChars` characters and `maxLines` lines, without trailing blank space. */
  tail(): string {
    const lines = this.text.slice(-this.maxChars).trimEnd().split(/\r?\n/);
    return lines.slice(-this.maxLines).join('\n');
  }

  /** The last non-empty line, or '' when the upstream wrote nothing. */
  lastLine(): string {
    const lines = this.tail().split('\n');
    return lines[lines.length - 1]?.trim() ?? '';
  }
}
