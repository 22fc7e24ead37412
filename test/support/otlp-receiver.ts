/**
 * A test OTLP/HTTP receiver: `POST /v1/traces` with the OTLP JSON encoding (what
 * `@opentelemetry/exporter-trace-otlp-http` sends), decoded by the protocol's JSON mapping
 * (opentelemetry-proto `trace/v1/trace.proto`, `common/v1/common.proto`: hex ids, `AnyValue` as
 * `stringValue`/`intValue`/`boolValue`/`doubleValue`/`arrayValue`) into flat spans a test can check.
 * `hold: true` never answers (a collector that hangs), `status` answers every export with that code.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Value = string | number | boolean | Value[] | null;

export interface ReceivedEvent {
  name: string;
  attributes: Record<string, Value>;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, Value>;
  events: ReceivedEvent[];
  links: Array<{ traceId: string; spanId: string }>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, Value>;
  scope: string;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

function valueOf(value: AnyValue | undefined): Value {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of list ?? []) out[kv.key] = valueOf(kv.value);
  return out;
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: KeyValue[];
        events?: Array<{ name: string; attributes?: KeyValue[] }>;
        links?: Array<{ traceId: string; spanId: string }>;
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

export function decodeExport(body: ExportRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind ?? 0,
          attributes: attributesOf(s.attributes),
          events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
          resource,
          scope: ss.scope?.name ?? '',
        });
  }
  return spans;
}

export interface OtlpReceiver {
  /** The traces URL. */
  url: string;
  /** The base URL (what `OTEL_EXPORTER_OTLP_ENDPOINT` takes). */
  base: string;
  spans: ReceivedSpan[];
  /** Every export request's headers. */
  headers: IncomingMessage['headers'][];
  /** Resolves once at least `count` spans have arrived (or rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(options: { hold?: boolean; status?: number } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (options.hold === true) return;
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      headers.push(req.headers);
      if (options.status !== undefined && options.status !== 200) {
        res.writeHead(options.status, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      spans.push(...decodeExport(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/v1/traces`,
    base,
    spans,
    headers,
    waitFor(count, ms = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${spans.length} of ${count} spans arrived`)), ms);
        const check = () => {
          if (spans.length >= count) {
            clearTimeout(timer);
            resolve(spans);
          } else waiters.push(check);
        };
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The span named `name` (exactly one), or a failure naming the spans there are. */
export function spanNamed(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`${found.length} spans named ${name}; spans: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}
