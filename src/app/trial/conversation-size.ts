/**
 * The bound on one run's conversation with the model. Every model request re-sends the whole
 * conversation, and the run file keeps it: without a bound, a hostile endpoint (60 tool calls per reply)
 * or an upstream with huge results (9 MB each) grows it past what the process can encode (about 512 MB:
 * `JSON.stringify` throws "Invalid string length") and takes the whole trial down. The limit is the one
 * the model adapter already sets on an answer, 32 MB, counted as the UTF-8 bytes of the JSON text of
 * every message's content and tool-call arguments and of the tools offered. A run whose conversation
 * would outgrow it ends there, NOT_TESTED (see `model-conversation.ts`); the other runs go on.
 */
import { PREVIEW_CHARS } from '../../domain/text/kept-text.js';

/** The largest conversation (messages and tools, as JSON text, UTF-8 bytes) a run may send. */
export const MAX_CONVERSATION_BYTES = 32 * 1024 * 1024;

/** How much of a text that does not fit is kept in the transcript, so the run file says what it was. */
export { PREVIEW_CHARS };

/** UTF-8 bytes of a JSON string holding `text` (its escapes included), without building the bytes. */
export function jsonBytes(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) bytes += 2;
    else if (c < 0x20) bytes += 6;
    else if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 6; // a lone surrogate is escaped
    } else if (c >= 0xd800 && c <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The text cut to {@link PREVIEW_CHARS}, saying how much was left out. */
export function preview(text: string): string {
  if (text.length <= PREVIEW_CHARS) return text;
  return `${text.slice(0, PREVIEW_CHARS)}… (${text.length - PREVIEW_CHARS} more characters not kept: the conversation outgrew its limit)`;
}

/** The running size of one conversation. */
export class ConversationSize {
  private total = 0;

  constructor(readonly limit: number = MAX_CONVERSATION_BYTES) {}

  /**
   * Adds texts and answers null; when they would take the conversation over the limit, adds nothing and
   * answers the size it would have had.
   */
  add(...texts: ReadonlyArray<string | null | undefined>): number | null {
    let added = 0;
    for (const text of texts) if (text !== null && text !== undefined) added += jsonBytes(text);
    if (this.total + added > this.limit) return this.total + added;
    this.total += added;
    return null;
  }
}
