/**
 * `--otel` through the ports: the proxy's sessions and calls as spans (`SessionTrace`, an observer of the
 * one call pipeline) on a recording Tracer, the agent and the upstream in memory. The OTLP export itself
 * is `test/integration/adapters/otel/otel-tracer.test.ts`; the whole path with real processes `e2e/traces.e2e.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { ProxyService, type ProxyConfig } from '../../../src/app/proxy/proxy-service.js';
import { RecordingTracer } from '../../support/recording-tracer.js';
import type { Tracer } from '../../../src/ports/tracer.port.js';
import type { UpstreamCallOutcome } from '../../../src/ports/upstream-side.port.js';
import { HeldUpstream, InMemoryAgentSide, SILENT_LOGGER, okResult } from '../../support/in-memory-sides.js';
import { TestClock, fixedRandom } from '../../support/session-driver.js';

const TOOLS = [
  { name: 'create_order', inputSchema: { type: 'object', properties: { idempotency_key: { type: 'string' } } } },
  { name: 'get_order', inputSchema: { type: 'object' } },
];
const signal = new AbortController().signal;
const AGENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** An upstream that also answers requests other than tool calls, keeping the params it got. */
class ForwardingUpstream extends HeldUpstream {
  readonly forwarded: Array<{ method: string; params: Record<string, unknown> }> = [];

  async forwardRequest(method: string, params: Record<string, unknown>): Promise<UpstreamCallOutcome> {
    this.forwarded.push({ method, params });
    return method === 'resources/read'
      ? { kind: 'protocol-error', code: -32002, message: 'Resource not found' }
      : { kind: 'result', result: { messages: [] } };
  }
}

async function setup(
  options: {
    tracer?: Tracer;
    payloads?: boolean;
    scenario?: ProxyConfig['scenario'];
    listen?: boolean;
    upstream?: HeldUpstream;
  } = {},
) {
  const upstream = options.upstream ?? new HeldUpstream(TOOLS);
  const agentSide = new InMemoryAgentSide();
  const service = new ProxyService(
    {
      upstream,
      agentSide,
      reportTarget: null,
      clock: new TestClock(),
      random: fixedRandom(0.5),
      logger: SILENT_LOGGER,
      notice: () => undefined,
      ...(options.tracer !== undefined ? { tracer: options.tracer, tracePayloads: options.payloads === true } : {}),
    },
    {
      scenario: options.scenario ?? { mode: 'scenario', id: 'F1' },
      keyFields: ['idempotency_key'],
      classification: {},
      auditTools: false,
      callTimeoutMs: 60_000,
      drainMs: 20,
      harnessVersion: 'test',
      serverName: 'harness',
      stopWhenSessionEnds: options.listen !== true,
    },
  );
  await service.start();
  return { service, upstream, agentSide };
}

describe('SessionTrace: the proxy in the user’s traces', () => {
  it('F1: the ghost write marked on its server and client spans, the re-send’s source, the upstream given the client span’s context, the verdict as an evaluation event', async () => {
    const tracer = new RecordingTracer();
    const { service, upstream, agentSide } = await setup({ tracer, listen: true });
    const agent = agentSide.connect('mcp-session-7');
    const meta = { traceparent: AGENT, progressToken: 3 };
    const first = agent.callTool({ name: 'create_order', arguments: { item: 'x' }, meta }, { signal, requestId: 11 });
    (await upstream.received(1))[0]!.answer(okResult('created'));
    expect(await first).toMatchObject({ isError: true });
    const again = agent.callTool({ name: 'create_order', arguments: { item: 'x' }, meta }, { signal, requestId: 12 });
    (await upstream.received(2))[1]!.answer(okResult('created again'));
    await again;
    agentSide.disconnect('mcp-session-7');
    await service.stop('test over');

    const [session] = tracer.named('cuonztech.session', 'internal');
    expect(session!.attributes).toMatchObject({
      'cuonztech.scenario': 'F1',
      'cuonztech.session.ordinal': 1,
      'mcp.session.id': 'mcp-session-7',
    });
    expect(session!.attributes['cuonztech.verdict']).toBe('FAIL');
    expect(session!.events).toContainEqual({
      name: 'gen_ai.evaluation.result',
      attributes: expect.objectContaining({
        'gen_ai.evaluation.name': 'duplicate_execution',
        'gen_ai.evaluation.score.label': 'FAIL',
      }),
    });
    expect(session!.events).toContainEqual({
      name: 'gen_ai.evaluation.result',
      attributes: expect.objectContaining({
        'gen_ai.evaluation.name': 'duplicate_source',
        'gen_ai.evaluation.score.label': 'unknown',
      }),
    });
    expect(session!.ended).toBe(1);

    const [ghost, resend] = tracer.named('tools/call create_order', 'server');
    for (const server of [ghost!, resend!]) {
      expect(server.options.parent).toBe(session);
      expect(server.options.remoteParent).toBe(meta);
      expect(server.ended).toBe(1);
      expect(server.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'create_order',
        'mcp.session.id': 'mcp-session-7',
        'network.transport': 'tcp',
        'cuonztech.operation.id': 1,
        'cuonztech.executed': 'true',
        'cuonztech.call.class': 'write',
      });
      expect(server.attributes['gen_ai.tool.call.arguments']).toBeUndefined(); // no payloads without consent
    }
    expect(ghost!.attributes).toMatchObject({ 'jsonrpc.request.id': '11', 'cuonztech.attempt': 1, 'cuonztech.fault': 'F1' });
    expect(ghost!.attributes['cuonztech.agent.told']).toBe('timeout');
    expect(ghost!.error).toEqual({ type: 'timeout', description: 'the agent was told the call timed out' });
    expect(resend!.attributes).toMatchObject({
      'jsonrpc.request.id': '12',
      'cuonztech.attempt': 2,
      'cuonztech.agent.told': 'answer',
    });
    expect(resend!.error).toBeNull();
    expect(resend!.events).toEqual([{ name: 'cuonztech.repeat', attributes: { 'cuonztech.repeat.source': 'unknown' } }]);

    const clients = tracer.named('tools/call create_order', 'client');
    expect(clients.map((c) => c.options.parent)).toEqual([ghost, resend]);
    expect(clients[0]!.attributes).toMatchObject({ 'cuonztech.executed': 'true', 'cuonztech.answer.replaced': true });
    expect(clients[0]!.error).toBeNull(); // the upstream answered; the proxy replaced it
    // The upstream gets the client span's context, the agent's other _meta fields untouched.
    expect(upstream.held.map((h) => h.request.meta)).toEqual(clients.map((c) => ({ progressToken: 3, ...c.context() })));
    expect(meta).toEqual({ traceparent: AGENT, progressToken: 3 }); // the agent's object is not changed
  });

  it('an injected fault has no client span and says the upstream never executed it; payloads only with consent', async () => {
    const tracer = new RecordingTracer();
    const { service, upstream, agentSide } = await setup({ tracer, payloads: true, scenario: { mode: 'scenario', id: 'F5' } });
    const agent = agentSide.connect('s');
    expect(await agent.callTool({ name: 'create_order', arguments: { item: 'y' } }, { signal })).toMatchObject({ isError: true });
    agentSide.disconnect('s');
    await service.stop('test over');
    expect(upstream.held).toHaveLength(0);
    const [server] = tracer.named('tools/call create_order', 'server');
    expect(server!.attributes).toMatchObject({
      'cuonztech.fault': 'F5',
      'cuonztech.injected': true,
      'cuonztech.executed': 'false',
      'network.transport': 'pipe',
      'gen_ai.tool.call.arguments': '{"item":"y"}',
    });
    expect(server!.attributes['mcp.session.id']).toBeUndefined(); // stdio has no MCP session id
    expect(server!.error?.type).toBe('tool_error');
    expect(tracer.named('tools/call create_order', 'client')).toEqual([]);
  });

  it('without a tracer the upstream gets the agent’s request as it came (_meta included, the same object)', async () => {
    const { service, upstream, agentSide } = await setup({ scenario: { mode: 'scenario', id: 'F1' } });
    const agent = agentSide.connect('s');
    const meta = { traceparent: AGENT, 'example.com/x': 1 };
    const request = { name: 'get_order', arguments: {}, meta };
    const call = agent.callTool(request, { signal });
    (await upstream.received(1))[0]!.answer(okResult('[]'));
    await call;
    agentSide.disconnect('s');
    await service.stop('test over');
    expect(upstream.held[0]!.request).toBe(request);
  });

  it('R-17: a request that is not a tool call gets its server and client spans, the prompt in the name, the error code as error.type; without a tracer its params go as they came', async () => {
    const tracer = new RecordingTracer();
    const upstream = new ForwardingUpstream(TOOLS);
    const { service, agentSide } = await setup({ tracer, upstream });
    const agent = agentSide.connect('s');
    const meta = { traceparent: AGENT, 'example.com/x': 1 };
    await agent.forward!('prompts/get', { name: 'summarise', _meta: meta }, { signal });
    expect(await agent.forward!('resources/read', { uri: 'file:///secret/plan.md' }, { signal })).toMatchObject({
      error: { code: -32002 },
    });
    agentSide.disconnect('s');
    await service.stop('test over');
    const [prompt] = tracer.named('prompts/get summarise', 'server');
    expect(prompt!.options.remoteParent).toEqual(meta);
    expect(prompt!.attributes).toMatchObject({ 'mcp.method.name': 'prompts/get', 'gen_ai.prompt.name': 'summarise' });
    const [promptClient] = tracer.named('prompts/get summarise', 'client');
    expect(upstream.forwarded[0]!.params['_meta']).toEqual({ ...meta, ...promptClient!.context() });
    const [read] = tracer.named('resources/read', 'server');
    expect(read!.attributes['mcp.resource.uri']).toBe('file:///secret/plan.md');
    expect(read!.error).toEqual({ type: '-32002', description: 'Resource not found' });
    expect([prompt!.ended, read!.ended, promptClient!.ended]).toEqual([1, 1, 1]);

    const plainUpstream = new ForwardingUpstream(TOOLS);
    const plain = await setup({ upstream: plainUpstream });
    const params = { name: 'summarise', _meta: meta };
    await plain.agentSide.connect('s').forward!('prompts/get', params, { signal });
    plain.agentSide.disconnect('s');
    await plain.service.stop('test over');
    expect(plainUpstream.forwarded[0]!.params).toBe(params);
  });
});
