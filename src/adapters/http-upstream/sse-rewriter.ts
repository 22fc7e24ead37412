/**
 * Server-Sent Events, parsed and written back out one event at a time so the adapter can see (and
 * sanitise) every JSON-RPC message before the SDK's own parser does. Follows the SSE line rules: lines
 * end with CRLF, LF or CR; an empty line dispatches the event; `:` starts a comment; one space after the
 * field's colon is dropped. Comments and unknown fields are not passed on; an unfinished last event is
 * dropped, as the SSE rules say.
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

/** Incremental SSE parser that returns the (rewritten) events as SSE text. */
export class SseRewriter {
  private buffer = '';
  private scanFrom = 0;
  private current: SseEvent = {};
  private eventIdSeen = false;

  /** @param rewrite called for each event of type `message` (or untyped) that carries data. */
  constructor(private readonly rewrite: SseDataRewrite) {}

  /** True once any event carried an `id` (the stream can then be resumed by the SDK). */
  get sawEventId(): boolean {
    return this.eventIdSeen;
  }

  /** Feeds decoded text; returns the SSE text of every event completed by it (possibly empty). */
  push(text: string): string {
    this.buffer += text;
    let out = '';
    let start = 0;
    for (let i = this.scanFrom; i < this.buffer.length; i += 1) {
      const char = this.buffer[i];
      if (char !== '\n' && char !== '\r') continue;
      if (char === '\r' && i === this.buffer.length - 1) break; // may be the first half of CRLF
      out += this.line(this.buffer.slice(start, i));
      if (char === '\r' && this.buffer[i + 1] === '\n') i += 1;
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    this.scanFrom = this.buffer.endsWith('\r') ? this.buffer.length - 1 : this.buffer.length;
    return out;
  }

  private line(line: string): string {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return '';
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (this.current.dataLines ??= []).push(value);
    else if (field === 'id' && !value.includes('\0')) this.current.id = value;
    else if (field === 'event') this.current.event = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.current.retry = value;
    return '';
  }

  private dispatch(): string {
    const event = this.current;
    this.current = {};
    if (event.id !== undefined && event.id !== '') this.eventIdSeen = true;
    const isMessage = event.event === undefined || event.event === '' || event.event === 'message';
    if (isMessage && event.dataLines !== undefined) {
      const data = this.rewrite(event.dataLines.join('\n'));
      if (data === undefined) delete event.dataLines;
      else event.dataLines = data.split('\n');
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
