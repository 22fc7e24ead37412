/**
 * Server-Sent Events, parsed and written back out one event at a time so the adapter can see (and
 * sanitise) every JSON-RPC message before the SDK's own parser does. Follows the SSE line rules: lines
 * end with CRLF, LF or CR; an empty line dispatches the event; `:` starts a comment; one space after the
 * field's colon is dropped. Comments and unknown fields are not passed on; an unfinished last event is
 * dropped, as the SSE rules say. An event whose data grows past the size limit (counted in UTF-8 bytes as
 * it arrives, the unfinished line included) stops the parser, so a huge event is never held whole.
 */

/** One event as parsed. `dataLines` is undefined when the event had no `data` field at all. */
export interface SseEvent {
  id?: string;
  event?: string;
  retry?: string;
  dataLines?: string[];
}

/** Decides what the SDK sees of one message event's data: new data text, or undefined to drop the data. */
export type SseDataRewrite = (data: string) => string | undefined;

/** How a data line starts. */
const DATA_FIELD = 'data:';

/** Incremental SSE parser that returns the (rewritten) events as SSE text. */
export class SseRewriter {
  private buffer = '';
  private scanFrom = 0;
  private current: SseEvent = {};
  private eventIdSeen = false;
  /** UTF-8 bytes of the current event's data so far (its lines joined with newlines). */
  private dataBytes = 0;
  /** UTF-8 bytes of the unfinished line in `buffer`. */
  private lineBytes = 0;
  private tooLarge = false;

  /**
   * @param rewrite called for each event of type `message` (or untyped) that carries data.
   * @param maxDataBytes the largest data one event may carry, in bytes (unlimited by default).
   */
  constructor(
    private readonly rewrite: SseDataRewrite,
    private readonly maxDataBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** True once any event carried an `id` (the stream can then be resumed by the SDK). */
  get sawEventId(): boolean {
    return this.eventIdSeen;
  }

  /** True once an event passed `maxDataBytes`: that event and everything after it are dropped. */
  get overflowed(): boolean {
    return this.tooLarge;
  }

  /** Feeds decoded text; returns the SSE text of every event completed by it (possibly empty). */
  push(text: string): string {
    if (this.tooLarge) return '';
    this.buffer += text;
    let out = '';
    let start = 0;
    for (let i = this.scanFrom; i < this.buffer.length; i += 1) {
      const char = this.buffer[i];
      if (char !== '\n' && char !== '\r') continue;
      if (char === '\r' && i === this.buffer.length - 1) break; // may be the first half of CRLF
      out += this.line(this.buffer.slice(start, i));
      if (this.tooLarge) return this.stop(out);
      if (char === '\r' && this.buffer[i + 1] === '\n') i += 1;
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    this.scanFrom = this.buffer.endsWith('\r') ? this.buffer.length - 1 : this.buffer.length;
    // Only the new text is measured (a line that ended in it leaves a tail of it), so a long line costs O(n).
    this.lineBytes = start === 0 ? this.lineBytes + Buffer.byteLength(text) : Buffer.byteLength(this.buffer);
    return this.unfinishedLineTooLarge() ? this.stop(out) : out;
  }

  /**
   * The unfinished line against the limit: a `data` line's value adds to the event's data; any other
   * line (a comment, say) is held too, so it may not grow past the limit on its own either.
   */
  private unfinishedLineTooLarge(): boolean {
    const line = this.buffer;
    if (DATA_FIELD.startsWith(line)) return false; // still the field name
    const bytes = this.lineBytes - (line.endsWith('\r') ? 1 : 0); // a lone CR may be half of CRLF
    if (!line.startsWith(DATA_FIELD)) return bytes > this.maxDataBytes;
    const value = bytes - (line.startsWith(`${DATA_FIELD} `) ? DATA_FIELD.length + 1 : DATA_FIELD.length);
    return this.dataBytes + value > this.maxDataBytes;
  }

  /** Marks the stream as over the limit and lets go of what was buffered. */
  private stop(out: string): string {
    this.tooLarge = true;
    this.buffer = '';
    this.current = {};
    return out;
  }

  private line(line: string): string {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return '';
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.addData(value);
    else if (field === 'id' && !value.includes('\0')) this.current.id = value;
    else if (field === 'event') this.current.event = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.current.retry = value;
    return '';
  }

  /** One data line; past the limit the event is not kept. */
  private addData(value: string): void {
    const lines = (this.current.dataLines ??= []);
    this.dataBytes += (lines.length > 0 ? 1 : 0) + Buffer.byteLength(value);
    if (this.dataBytes > this.maxDataBytes) this.tooLarge = true;
    else lines.push(value);
  }

  private dispatch(): string {
    const event = this.current;
    this.current = {};
    this.dataBytes = 0;
    if (event.id !== undefined && event.id !== '') this.eventIdSeen = true;
    const isMessage = event.event === undefined || event.event === '' || event.event === 'message';
    if (isMessage && event.dataLines !== undefined) {
      const data = this.rewrite(event.dataLines.join('\n'));
      // An event whose data is dropped keeps its id, with empty data: without a data line the SDK's parser
      // would not dispatch it and never learn its id, so a priming event (an id, empty data, then the
      // upstream closes the stream) would leave the SDK unable to resume the stream with Last-Event-ID.
      if (data !== undefined) event.dataLines = data.split('\n');
      else if (event.id !== undefined) event.dataLines = [''];
      else delete event.dataLines;
    }
    return serialiseEvent(event);
  }
}

/** The SSE text of one event; an event with no fields at all becomes the empty string. */
function serialiseEvent(event: SseEvent): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  for (const line of event.dataLines ?? []) text += `data: ${line}\n`;
  return text === '' ? '' : `${text}\n`;
}
