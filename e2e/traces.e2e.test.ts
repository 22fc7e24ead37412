/**
 * `proxy --otel` with real processes (docs/traces.md): the compiled proxy in front of the raw counting
 * upstream (its ledger counts what really executed; `FIXTURE_ECHO_RAW=1` makes it answer the params it
 * received, `_meta` included), the MCP SDK's client as the agent sending `_meta.traceparent`, and a test
 * OTLP/HTTP receiver decoding the official exporter's JSON. The span tree: the agent's span parents the
 * proxy's server spans, each with its client span; F1's ghost write is marked executed and failed with
 * a time-out; the re-send carries its source; the upstream gets the client span's traceparent; the
 * verdict is an evaluation event on the session span. Without `--otel`, `_meta` reaches the upstream as
 * the agent sent it and no OpenTelemetry module is even resolved.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, readLines, requireBuild, textOf } from '../test/support/proxy-harness.js';
import { SPAN_KIND, spanNamed, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../test/support/otlp-receiver.js';
import { noOtelHook } from '../test/support/no-otel-hook.js';

const BOOKING_TOOLS = JSON.stringify(
  ['create_booking', 'search_bookings'].map((name) => ({
    name,
    inputSchema: { type: 'object', properties: { guest: { type: 'string' }, date: { type: 'string' } } },
  })),
);
const AGENT_TRACE = '5bf92f3577b34da6a3ce929d0e0e4736';
const AGENT_SPAN = '10f067aa0ba902b7';
const TRACEPARENT = `00-${AGENT_TRACE}-${AGENT_SPAN}-01`;

interface Proxy {
  client: Client;
  dir: string;
  ledger(): Array<Record<string, unknown>>;
  stderr(): string;
  call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult>;
  /** stdin EOF; resolves when the proxy has exited. */
  stop(): Promise<void>;
}

let receiver: OtlpReceiver | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.stop().catch(() => undefined);
  if (proxy !== undefined) rmSync(proxy.dir, { recursive: true, force: true });
  proxy = undefined;
  await receiver?.close();
  receiver = undefined;
});

async function startProxy(extra: string[], nodeFlags: string[] = [], env: Record<string, string> = {}): Promise<Proxy> {
  requireBuild();
  const dir = mkdtempSync(join(tmpdir(), 'harness-traces-'));
  const ledgerFile = join(dir, 'ledger.jsonl');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...nodeFlags,
      BIN,
      'proxy',
      '--upstream-command',
      process.execPath,
      '--upstream-arg',
      join(FIXTURES, 'counting-server.mjs'),
      '--report-file',
      join(dir, 'report.json'),
      ...extra,
    ],
    env: {
      ...(process.env as Record<string, string>),
      FIXTURE_LEDGER: ledgerFile,
      FIXTURE_TOOLS: BOOKING_TOOLS,
      FIXTURE_ECHO_RAW: '1',
      ...env,
    },
    cwd: dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'traced-agent', version: '1.0.0' });
  const exited = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  await client.connect(transport, { timeout: 30_000 });
  return {
    client,
    dir,
    ledger: () => readLines(ledgerFile),
    stderr: () => stderr,
    call: async (name, args, meta) =>
      (await client.callTool({ name, arguments: args, ...(meta !== undefined ? { _meta: meta } : {}) }, undefined, {
        timeout: 30_000,
      })) as CallToolResult,
    stop: async () => {
      await client.close();
      // The child's 'close': it has exited and its stderr is complete.
      await exited;
    },
  };
}

const servers = (spans: ReceivedSpan[], tool: string) =>
  spans
    .filter((s) => s.kind === SPAN_KIND.server && s.name === `tools/call ${tool}`)
    .sort((a, b) => Number(a.attributes['cuonztech.attempt']) - Number(b.attributes['cuonztech.attempt']));
const clientOf = (spans: ReceivedSpan[], server: ReceivedSpan) =>
  spans.find((s) => s.kind === SPAN_KIND.client && s.parentSpanId === server.spanId);

describe('R-18.1: proxy --otel (real processes, a real OTLP/HTTP receiver)', () => {
  it('puts the F1 ghost write, the re-send and the verdict into the agent’s own trace, and passes the context on', async () => {
    receiver = await startOtlpReceiver();
    proxy = await startProxy(['--scenario', 'F1', '--otel', '--otel-endpoint', receiver.base]);
    const args = { guest: 'Trace Me', date: '2026-04-01' };
    const first = await proxy.call('create_booking', args, { traceparent: TRACEPARENT, tracestate: 'agent=1' });
    expect(first.isError).toBe(true); // F1: executed, answered with a time-out
    const second = await proxy.call('create_booking', args, { traceparent: TRACEPARENT });
    await proxy.call('search_bookings', { guest: 'Trace Me' });
    await proxy.stop();

    // Counted in the upstream process: the ghost write and its re-send both executed.
    expect(proxy.ledger().filter((line) => line['tool'] === 'create_booking')).toHaveLength(2);

    const spans = await receiver.waitFor(7);
    const session = spanNamed(spans, 'cuonztech.session');
    expect(session.parentSpanId).toBe('');
    expect(session.resource['service.name']).toBe('cuonztech-agent-harness');
    expect(session.attributes['cuonztech.verdict']).toBe('FAIL');
    const evaluation = session.events.find(
      (e) => e.name === 'gen_ai.evaluation.result' && e.attributes['gen_ai.evaluation.name'] === 'duplicate_execution',
    );
    expect(evaluation?.attributes['gen_ai.evaluation.score.label']).toBe('FAIL');
    expect(String(evaluation?.attributes['gen_ai.evaluation.explanation'])).not.toBe('');

    const [ghost, resend] = servers(spans, 'create_booking');
    for (const span of [ghost!, resend!]) {
      // The agent's span is the parent (its trace shows the fault); the session span a link.
      expect(span.traceId).toBe(AGENT_TRACE);
      expect(span.parentSpanId).toBe(AGENT_SPAN);
      expect(span.links).toEqual([{ traceId: session.traceId, spanId: session.spanId }]);
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'create_booking',
        'cuonztech.operation.id': 1,
        'cuonztech.executed': 'true',
        'network.transport': 'pipe',
      });
      expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    }
    expect(ghost!.attributes).toMatchObject({
      'cuonztech.fault': 'F1',
      'cuonztech.attempt': 1,
      'cuonztech.answer.replaced': true,
    });
    expect(ghost!.attributes['cuonztech.agent.told']).toBe('timeout');
    expect(ghost!.status.code).toBe(2);
    expect(ghost!.attributes['error.type']).toBe('timeout');
    expect(resend!.status.code).toBe(0);
    expect(resend!.attributes['cuonztech.fault']).toBeUndefined();
    expect(resend!.events).toEqual([{ name: 'cuonztech.repeat', attributes: { 'cuonztech.repeat.source': 'unknown' } }]);

    // Each server span has its client span; the upstream got the client span's traceparent in _meta.
    const ghostClient = clientOf(spans, ghost!)!;
    const resendClient = clientOf(spans, resend!)!;
    expect(ghostClient.attributes['cuonztech.executed']).toBe('true');
    expect(ghostClient.status.code).toBe(0); // the upstream answered; the proxy replaced the answer
    const received = JSON.parse(textOf(second)) as { _meta?: Record<string, unknown> };
    expect(received._meta?.['traceparent']).toBe(`00-${AGENT_TRACE}-${resendClient.spanId}-01`);

    // Without a traceparent, a call nests under the session span.
    const [search] = servers(spans, 'search_bookings');
    expect(search!.traceId).toBe(session.traceId);
    expect(search!.parentSpanId).toBe(session.spanId);
    expect(proxy.stderr()).toMatch(/traces: \d+ spans exported to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
  });

  it('ignores a malformed traceparent: the call is served and nests under the session span', async () => {
    receiver = await startOtlpReceiver();
    proxy = await startProxy(['--otel'], [], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base, OTEL_SERVICE_NAME: 'my-agent-tests' });
    const answer = await proxy.call('search_bookings', { guest: 'X' }, { traceparent: 'not-a-traceparent' });
    expect(answer.isError).not.toBe(true);
    await proxy.stop();
    const spans = await receiver.waitFor(3);
    const session = spanNamed(spans, 'cuonztech.session');
    expect(session.resource['service.name']).toBe('my-agent-tests');
    const [search] = servers(spans, 'search_bookings');
    expect(search!.parentSpanId).toBe(session.spanId);
  });

  it('an unreachable collector slows nothing and the end says how many spans were dropped', async () => {
    proxy = await startProxy(['--otel', '--otel-endpoint', 'http://127.0.0.1:9/']);
    const answer = await proxy.call('create_booking', { guest: 'Nobody', date: '2026-04-02' });
    expect(answer.isError).not.toBe(true);
    await proxy.stop();
    expect(proxy.ledger()).toHaveLength(1);
    expect(proxy.stderr()).toMatch(/traces: 0 of 3 spans exported to http:\/\/127\.0\.0\.1:9\/v1\/traces; 3 dropped/);
  });
});

describe('R-18.2: proxy without --otel', () => {
  it('loads no OpenTelemetry module and forwards _meta exactly as the agent sent it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-no-otel-'));
    try {
      proxy = await startProxy(['--scenario', 'F1'], noOtelHook(dir));
      const meta = { traceparent: TRACEPARENT, tracestate: 'agent=1', 'example.com/x': { n: 1 } };
      await proxy.call('create_booking', { guest: 'A', date: '2026-04-03' }, meta);
      const echoed = JSON.parse(textOf(await proxy.call('search_bookings', { guest: 'A' }, meta))) as Record<string, unknown>;
      expect(echoed['_meta']).toEqual(meta);
      await proxy.stop();
      expect(proxy.stderr()).not.toMatch(/OpenTelemetry resolved|traces:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('(the hook works: with --otel the same proxy resolves OpenTelemetry and says so)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-no-otel-'));
    try {
      const run = spawnSync(
        process.execPath,
        [
          ...noOtelHook(dir),
          BIN,
          'proxy',
          '--upstream-command',
          process.execPath,
          '--upstream-arg',
          join(FIXTURES, 'counting-server.mjs'),
          '--otel',
        ],
        {
          cwd: dir,
          input: '',
          encoding: 'utf8',
          timeout: 30_000,
          env: { ...process.env, FIXTURE_LEDGER: join(dir, 'ledger.jsonl') },
        },
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        '--otel: the OpenTelemetry exporter could not be loaded: OpenTelemetry resolved: @opentelemetry/',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
