/**
 * The user's trace viewer (`--otel`, `docs/traces.md`): spans the harness opens and closes, exported by an
 * adapter (OpenTelemetry's OTLP/HTTP exporter). Nothing here knows OpenTelemetry: the use cases name the
 * spans, their attributes and events by the conventions; the adapter turns them into OTLP.
 *
 * Without `--otel` there is no tracer at all (the use cases check for one), so nothing is loaded and no
 * call pays for it. A tracer must never slow or fail a call: starting, changing and ending a span are
 * synchronous and cheap; export happens later, batched, in the adapter.
 */

export type SpanKind = 'internal' | 'server' | 'client';

export type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Record<string, AttributeValue>;

/** W3C Trace Context as carried in an MCP request's `params._meta` (or HTTP headers). */
export interface TraceContextCarrier {
  traceparent?: unknown;
  tracestate?: unknown;
}

export interface SpanOptions {
  kind: SpanKind;
  /** A span of this tracer this one belongs under. */
  parent?: TraceSpan;
  /**
   * The caller's own trace context (an agent's `_meta.traceparent`): when valid, it is the parent and
   * `parent` becomes a link instead; when malformed or absent, it is ignored.
   */
  remoteParent?: TraceContextCarrier;
  attributes?: Attributes;
  /** When the span began, in ms since the epoch (a span told after the fact, a gateway's model request); absent: now. */
  startTime?: number;
}

export interface TraceSpan {
  setAttributes(attributes: Attributes): void;
  addEvent(name: string, attributes?: Attributes): void;
  /** Marks the span failed: status ERROR with `description`, and the conventions' `error.type`. */
  fail(errorType: string, description?: string): void;
  /** This span's W3C Trace Context, for the next hop (the upstream's `_meta`). */
  context(): { traceparent: string; tracestate?: string };
  /** Ends the span, at `endTime` (ms since the epoch) when given, else now (later calls on it are ignored). */
  end(endTime?: number): void;
}

/** What became of the spans, for the proxy's last lines (never the headers). */
export interface TraceSummary {
  /** Where the spans went (the traces URL). */
  endpoint: string;
  ended: number;
  exported: number;
  /** Ended but not exported: the queue was full, the collector refused or was unreachable, or time ran out. */
  dropped: number;
  /** The last export error, one line, when an export failed. */
  lastError?: string;
}

export interface Tracer {
  startSpan(name: string, options: SpanOptions): TraceSpan;
  /** Exports what is still queued, waiting at most `maxMs`, and stops the tracer. */
  shutdown(maxMs: number): Promise<TraceSummary>;
}
