/**
 * `npm run bench:otel`: what `--otel` adds to one proxied call (issue 38: target ≤ 0.1 ms). The proxy's
 * own `SessionTrace` on the real OpenTelemetry adapter, exporting in batches to a local OTLP/HTTP
 * receiver in this process, told the four steps of a forwarded write as the pipeline tells them
 * (received with the agent's `traceparent`, forwarded, the upstream's `_meta` asked, answered, delivered):
 * two spans started, attributed and ended per call. Measured side by side, interleaved in rounds, with the
 * same steps told to no observer at all (the cost without `--otel`, which is no call). Medians and means
 * in microseconds; `--quick` for a small run. Measures only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OtelTracer } from '../src/adapters/otel/otel-tracer.js';
import { SessionTrace } from '../src/app/tracing/session-trace.js';
import type { CallEvent, CallEventSink, CallStep } from '../src/ports/call-events.port.js';
import { median, nowMs } from './measure.js';

const STEPS: readonly CallStep[] = ['received', 'forwarded', 'answered', 'delivered'];
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const RESULT = { content: [{ type: 'text', text: '{"id":"BK-0001","status":"confirmed"}' }] };

/** One forwarded write's steps to `sink` (and the upstream's `_meta`, as the pipeline asks for it). */
function oneCall(n: number, sink: CallEventSink | null, trace: SessionTrace | null): void {
  const meta = { traceparent: TRACEPARENT };
  for (const step of STEPS) {
    const event: CallEvent = { step, at: n, attempt: n, tool: 'create_order', callClass: 'write', operation: n, fault: null };
    if (step === 'received') Object.assign(event, { arguments: { n, guest: 'Ann Example' }, meta, requestId: n });
    if (step === 'answered') Object.assign(event, { upstream: 'executed', replaced: false, result: RESULT });
    if (step === 'delivered') Object.assign(event, { upstream: 'executed', told: 'answer', result: RESULT });
    sink?.callEvent(event);
    if (step === 'forwarded') trace?.upstreamMeta(n);
  }
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const rounds = quick ? 3 : 10;
  const perRound = quick ? 500 : 5_000;
  let received = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const tracer = new OtelTracer({
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    serviceName: 'bench',
    serviceVersion: 'bench',
    scope: 'bench',
  });
  const trace = new SessionTrace(tracer, {
    ordinal: 1,
    scenario: { mode: 'none' },
    transport: 'pipe',
    payloads: false,
  });
  const traced: number[] = [];
  const plain: number[] = [];
  let n = 0;
  for (let round = 0; round < rounds; round++) {
    // Interleaved: a round of each, so the machine's load falls on both alike.
    for (let i = 0; i < perRound; i++) {
      const start = nowMs();
      oneCall(++n, trace, trace);
      traced.push((nowMs() - start) * 1000);
    }
    for (let i = 0; i < perRound; i++) {
      const start = nowMs();
      oneCall(++n, null, null);
      plain.push((nowMs() - start) * 1000);
    }
    // Let the batches leave, as they would between an agent's calls.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const summary = await tracer.shutdown(2_000);
  server.closeAllConnections();
  server.close();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const added = median(traced) - median(plain);
  const lines = [
    `otel: ${traced.length} calls, ${summary.exported} of ${summary.ended} spans exported (${(received / 1024).toFixed(0)} KiB), ${summary.dropped} dropped`,
    `  with --otel    median ${median(traced).toFixed(2)} µs  mean ${mean(traced).toFixed(2)} µs per call`,
    `  without        median ${median(plain).toFixed(2)} µs  mean ${mean(plain).toFixed(2)} µs per call`,
    `  added per call median ${added.toFixed(2)} µs (target ≤ 100 µs): ${added <= 100 ? 'met' : 'NOT met'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
