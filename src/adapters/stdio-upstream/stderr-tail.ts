/**
 * Keeps the start and the end of the upstream's stderr for crash messages, without ever holding more
 * than a few KB.
 */
import { stderrReasonLines } from '../../domain/text/stderr-reason.js';

/** The default size limit of the tail, in characters (about 4 KB). */
export const STDERR_TAIL_MAX_CHARS = 4096;
/** The default line limit of the tail. */
export const STDERR_TAIL_MAX_LINES = 20;

/** A rolling tail of a text stream, and its first few KB. */
export class StderrTail {
  private text = '';
  private head = '';

  constructor(
    private readonly maxChars = STDERR_TAIL_MAX_CHARS,
    private readonly maxLines = STDERR_TAIL_MAX_LINES,
  ) {}

  /** Appends one chunk of output. */
  append(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (this.head.length < this.maxChars) this.head += text.slice(0, this.maxChars - this.head.length);
    this.text += text;
    if (this.text.length > 2 * this.maxChars) this.text = this.text.slice(-this.maxChars);
  }

  /** The tail: at most `maxChars` characters and `maxLines` lines, without trailing blank space. */
  tail(): string {
    const lines = this.text.slice(-this.maxChars).trimEnd().split(/\r?\n/);
    return lines.slice(-this.maxLines).join('\n');
  }

  /**
   * The line that tells why the upstream failed: the first that reads like an error (Node's
   * `Error: Cannot find module …` comes after its source excerpt and before the stack and the version
   * banner), else the last non-empty line that is not Node's version banner; '' when it wrote nothing.
   */
  reasonLine(): string {
    return stderrReasonLines(`${this.head}\n${this.tail()}`)[0] ?? '';
  }

  /** The last non-empty line, or '' when the upstream wrote nothing. */
  lastLine(): string {
    const lines = this.tail().split('\n');
    return lines[lines.length - 1]?.trim() ?? '';
  }
}
