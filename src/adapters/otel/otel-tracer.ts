/**
 * The {@link Tracer} port over the official OpenTelemetry JS SDK: a tracer provider of its own (nothing
 * registered globally, so an agent running in the same process keeps its own), a batch span processor
 * with a bounded queue, and the OTLP/HTTP exporter (JSON). Loaded only with `--otel` (a dynamic import in
 * the wiring), so a run without it never reads these packages.
 *
 * Bounded by design: spans wait in a queue of at most {@link MAX_QUEUE} (a full queue drops the newest, the
 * SDK's rule) and leave in batches in the background, so an unreachable or slow collector never slows a
 * call; `shutdown` waits at most its `maxMs` for the last batch. Spans ended and spans the collector took
 * are counted, so the final notice says how many were dropped. The headers
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TRACES_HEADERS`) are read by the exporter itself and
 * never pass through this file, so nothing here can print them.
 */
import {
  ROOT_CONTEXT,
  SpanKind as OtelSpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  trace,
  type Attributes as OtelAttributes,
  type Context,
  type Link,
  type Span,
  type Tracer as ApiTracer,
} from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { errorMessage } from '../../domain/error-message.js';
import type {
  Attributes,
  SpanKind,
  SpanOptions,
  TraceContextCarrier,
  TraceSpan,
  TraceSummary,
  Tracer,
} from '../../ports/tracer.port.js';

/** Spans waiting for export at most; beyond, new spans are dropped (and counted). */
export const MAX_QUEUE = 2048;
const BATCH = 512;
/** How long an ended span waits in the queue before its batch leaves. */
const DELAY_MS = 500;
/** One export's time limit (the collector's answer). */
const EXPORT_TIMEOUT_MS = 2_000;

export interface OtelTracerOptions {
  /** The traces URL (`…/v1/traces`). */
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
  /** The instrumentation scope's name (the package). */
  scope: string;
}

const KINDS: Record<SpanKind, OtelSpanKind> = {
  internal: OtelSpanKind.INTERNAL,
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
};

const propagator = new W3CTraceContextPropagator();

/** Counts what the collector took and keeps the last failure, one line. */
class CountingExporter implements SpanExporter {
  exported = 0;
  lastError: string | undefined;

  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.exported += spans.length;
      else this.lastError = oneLine(result.error === undefined ? 'export failed' : errorMessage(result.error));
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

class OtelSpan implements TraceSpan {
  private ended = false;

  constructor(
    readonly span: Span,
    private readonly onEnd: () => void,
  ) {}

  setAttributes(attributes: Attributes): void {
    this.span.setAttributes(attributes as OtelAttributes);
  }

  addEvent(name: string, attributes?: Attributes): void {
    this.span.addEvent(name, attributes as OtelAttributes | undefined);
  }

  fail(errorType: string, description?: string): void {
    this.span.setAttribute(ATTR_ERROR_TYPE, errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(description !== undefined ? { message: description } : {}) });
  }

  context(): { traceparent: string; tracestate?: string } {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, defaultTextMapSetter);
    return {
      traceparent: carrier.traceparent!,
      ...(carrier.tracestate !== undefined ? { tracestate: carrier.tracestate } : {}),
    };
  }

  end(endTime?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end(endTime);
    this.onEnd();
  }
}

/** The caller's context from a W3C carrier, or null when it is absent or malformed (then ignored). */
export function remoteContext(carrier: TraceContextCarrier | undefined): Context | null {
  if (carrier === undefined || typeof carrier.traceparent !== 'string') return null;
  const fields: Record<string, string> = { traceparent: carrier.traceparent };
  if (typeof carrier.tracestate === 'string') fields.tracestate = carrier.tracestate;
  const context = propagator.extract(ROOT_CONTEXT, fields, defaultTextMapGetter);
  const span = trace.getSpanContext(context);
  return span !== undefined && isSpanContextValid(span) ? context : null;
}

export class OtelTracer implements Tracer {
  private readonly provider: TracerProvider;
  private readonly tracer: ApiTracer;
  private readonly exporter: CountingExporter;
  private ended = 0;
  private stopped: Promise<TraceSummary> | null = null;

  constructor(private readonly options: OtelTracerOptions) {
    // The exporter reads the headers (and a time-out, compression) from the environment itself.
    this.exporter = new CountingExporter(new OTLPTraceExporter({ url: options.endpoint, timeoutMillis: EXPORT_TIMEOUT_MS }));
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({
        [ATTR_SERVICE_NAME]: options.serviceName,
        [ATTR_SERVICE_VERSION]: options.serviceVersion,
      }),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: this.exporter,
          maxQueueSize: MAX_QUEUE,
          maxExportBatchSize: BATCH,
          scheduledDelayMillis: DELAY_MS,
          exportTimeoutMillis: EXPORT_TIMEOUT_MS,
        }),
      ],
    });
    this.tracer = this.provider.getTracer(options.scope, options.serviceVersion);
  }

  startSpan(name: string, options: SpanOptions): TraceSpan {
    const remote = remoteContext(options.remoteParent);
    const local = options.parent instanceof OtelSpan ? trace.setSpan(ROOT_CONTEXT, options.parent.span) : null;
    // The caller's own context is the parent; the harness's span it would otherwise nest under is a link.
    const links: Link[] =
      remote !== null && options.parent instanceof OtelSpan ? [{ context: options.parent.span.spanContext() }] : [];
    const span = this.tracer.startSpan(
      name,
      {
        kind: KINDS[options.kind],
        ...(options.attributes !== undefined ? { attributes: options.attributes as OtelAttributes } : {}),
        ...(links.length > 0 ? { links } : {}),
        ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
        // Without a parent: a new trace, whatever the process's ambient context.
        root: remote === null && local === null,
      },
      remote ?? local ?? ROOT_CONTEXT,
    );
    return new OtelSpan(span, () => this.ended++);
  }

  shutdown(maxMs: number): Promise<TraceSummary> {
    this.stopped ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), maxMs);
        timer.unref();
      });
      const result = await Promise.race([
        this.provider.shutdown().then(
          () => 'done' as const,
          (error: unknown) => {
            this.exporter.lastError ??= oneLine(errorMessage(error));
            return 'done' as const;
          },
        ),
        timedOut,
      ]);
      clearTimeout(timer);
      const lastError = this.exporter.lastError ?? (result === 'timeout' ? `the last batch took over ${maxMs} ms` : undefined);
      return {
        endpoint: this.options.endpoint,
        ended: this.ended,
        exported: this.exporter.exported,
        dropped: Math.max(0, this.ended - this.exporter.exported),
        ...(lastError !== undefined ? { lastError } : {}),
      };
    })();
    return this.stopped;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
