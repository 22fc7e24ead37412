import type { ReportDocument, ReportSink } from '../../ports/report-sink.port.js';

const decoder = new TextDecoder();

/** The text of a report document (its parts concatenated). */
export function documentText(document: ReportDocument): string {
  if (typeof document === 'string') return document;
  return document.map((part) => (typeof part === 'string' ? part : decoder.decode(part))).join('');
}

/** Passes every report on to the run's file sink and keeps the last one for the run file and the summary. */
export class CapturingSink implements ReportSink {
  private lastDocument: ReportDocument | null = null;
  count = 0;

  constructor(private readonly inner: ReportSink) {}

  async publish(document: ReportDocument): Promise<void> {
    await this.inner.publish(document);
    // The byte parts are borrowed (see ReportSink.publish): keep a copy, not the writer's live bytes.
    this.lastDocument =
      typeof document === 'string' ? document : document.map((part) => (typeof part === 'string' ? part : part.slice()));
    this.count++;
  }

  /** The last report published, as text; null before the first. */
  get last(): string | null {
    return this.lastDocument === null ? null : documentText(this.lastDocument);
  }
}
