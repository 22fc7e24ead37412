/**
 * A Tracer that keeps its spans in memory, for the tests of the tracing use cases (`SessionTrace`,
 * `RunTrace`, `ProbeTrace`); the OTLP export itself is test/integration/adapters/otel/otel-tracer.test.ts.
 */
import type { Attributes, SpanOptions, TraceSpan, TraceSummary, Tracer } from '../../src/ports/tracer.port.js';

export class RecordedSpan implements TraceSpan {
  readonly attributes: Attributes;
  readonly events: Array<{ name: string; attributes: Attributes }> = [];
  error: { type: string; description?: string } | null = null;
  ended = 0;
  endTime: number | undefined;

  constructor(
    readonly id: number,
    readonly name: string,
    readonly options: SpanOptions,
  ) {
    this.attributes = { ...options.attributes };
  }

  setAttributes(attributes: Attributes): void {
    Object.assign(this.attributes, attributes);
  }

  addEvent(name: string, attributes: Attributes = {}): void {
    this.events.push({ name, attributes });
  }

  fail(type: string, description?: string): void {
    this.error = { type, ...(description !== undefined ? { description } : {}) };
  }

  context(): { traceparent: string } {
    return { traceparent: `00-${'a'.repeat(32)}-${String(this.id).padStart(16, '0')}-01` };
  }

  end(endTime?: number): void {
    this.ended++;
    this.endTime = endTime;
  }
}

export class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, options: SpanOptions): TraceSpan {
    const span = new RecordedSpan(this.spans.length + 1, name, options);
    this.spans.push(span);
    return span;
  }

  async shutdown(): Promise<TraceSummary> {
    return { endpoint: 'memory', ended: 0, exported: 0, dropped: 0 };
  }

  named(name: string, kind: SpanOptions['kind']): RecordedSpan[] {
    return this.spans.filter((s) => s.name === name && s.options.kind === kind);
  }
}
