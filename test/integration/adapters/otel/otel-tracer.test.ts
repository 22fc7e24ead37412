/**
 * The OpenTelemetry adapter of the Tracer port against a real OTLP/HTTP receiver on 127.0.0.1 (the
 * official exporter, JSON encoding): the tree, the remote parent from a traceparent, a malformed one
 * ignored, the error status, and an unreachable or hanging collector bounded and counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { OtelTracer } from '../../../../src/adapters/otel/otel-tracer.js';
import { SPAN_KIND, spanNamed, startOtlpReceiver, type OtlpReceiver } from '../../../support/otlp-receiver.js';

const AGENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const AGENT_SPAN = '00f067aa0ba902b7';

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function tracerTo(endpoint: string): OtelTracer {
  return new OtelTracer({ endpoint, serviceName: 'svc-under-test', serviceVersion: '9.9.9', scope: 'cuonztech-agent-harness' });
}

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('OtelTracer', () => {
  it('exports the tree: a remote parent from traceparent, a child, a link, an event, an error status', async () => {
    receiver = await startOtlpReceiver();
    const tracer = tracerTo(receiver.url);
    const session = tracer.startSpan('session', { kind: 'internal', attributes: { 'cuonztech.scenario': 'S1' } });
    const server = tracer.startSpan('tools/call create_booking', {
      kind: 'server',
      parent: session,
      remoteParent: { traceparent: `00-${AGENT_TRACE}-${AGENT_SPAN}-01`, tracestate: 'rojo=1' },
    });
    const client = tracer.startSpan('tools/call create_booking', { kind: 'client', parent: server });
    const next = client.context();
    expect(next.traceparent).toMatch(new RegExp(`^00-${AGENT_TRACE}-[0-9a-f]{16}-01$`));
    expect(next.tracestate).toBe('rojo=1');
    server.addEvent('cuonztech.duplicate', { 'cuonztech.duplicate.source': 'model' });
    server.fail('timeout', 'the agent was told the call timed out');
    client.end();
    server.end();
    server.end(); // a second end is ignored
    session.end();
    const summary = await tracer.shutdown(2_000);
    expect(summary).toEqual({ endpoint: receiver.url, ended: 3, exported: 3, dropped: 0 });

    const spans = await receiver.waitFor(3);
    const root = spanNamed(spans, 'session');
    const [srv, cli] = [spans.find((s) => s.kind === SPAN_KIND.server)!, spans.find((s) => s.kind === SPAN_KIND.client)!];
    expect(root.parentSpanId).toBe('');
    expect(root.resource['service.name']).toBe('svc-under-test');
    expect(root.resource['service.version']).toBe('9.9.9');
    expect(root.scope).toBe('cuonztech-agent-harness');
    // The agent's span is the parent; the harness's session span a link.
    expect(srv.traceId).toBe(AGENT_TRACE);
    expect(srv.parentSpanId).toBe(AGENT_SPAN);
    expect(srv.links).toEqual([{ traceId: root.traceId, spanId: root.spanId }]);
    expect(srv.status).toEqual({ code: 2, message: 'the agent was told the call timed out' });
    expect(srv.attributes['error.type']).toBe('timeout');
    expect(srv.events).toEqual([{ name: 'cuonztech.duplicate', attributes: { 'cuonztech.duplicate.source': 'model' } }]);
    expect(cli.parentSpanId).toBe(srv.spanId);
    expect(next.traceparent).toContain(cli.spanId);
  });

  it.each([
    ['not hex', '00-zzf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['a number', 42],
  ])('ignores a malformed traceparent (%s): the span stays under its local parent', async (_what, traceparent) => {
    receiver = await startOtlpReceiver();
    const tracer = tracerTo(receiver.url);
    const session = tracer.startSpan('session', { kind: 'internal' });
    const server = tracer.startSpan('call', { kind: 'server', parent: session, remoteParent: { traceparent } });
    server.end();
    session.end();
    await tracer.shutdown(2_000);
    const spans = await receiver.waitFor(2);
    const root = spanNamed(spans, 'session');
    const call = spanNamed(spans, 'call');
    expect(call.traceId).toBe(root.traceId);
    expect(call.parentSpanId).toBe(root.spanId);
    expect(call.links).toEqual([]);
  });

  it('counts the spans an unreachable collector never took, and shuts down in time', async () => {
    const tracer = tracerTo(`http://127.0.0.1:${await closedPort()}/v1/traces`);
    for (let i = 0; i < 5; i++) tracer.startSpan(`s${i}`, { kind: 'internal' }).end();
    const started = Date.now();
    const summary = await tracer.shutdown(2_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(summary.ended).toBe(5);
    expect(summary.exported).toBe(0);
    expect(summary.dropped).toBe(5);
    expect(summary.lastError).toMatch(/ECONNREFUSED|connect/i);
  });

  it('waits at most its bound for a collector that never answers', async () => {
    receiver = await startOtlpReceiver({ hold: true });
    const tracer = tracerTo(receiver.url);
    tracer.startSpan('s', { kind: 'internal' }).end();
    const started = Date.now();
    const summary = await tracer.shutdown(500);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(summary).toMatchObject({ ended: 1, exported: 0, dropped: 1 });
  });
});
