import { describe, expect, it } from 'vitest';
import { GET_REPORT } from '../../../src/app/proxy/audit-tools.js';
import { ProxyService, type ProxyConfig } from '../../../src/app/proxy/proxy-service.js';
import type { ReportSink } from '../../../src/ports/report-sink.port.js';
import {
  HeldUpstream,
  InMemoryAgentSide,
  MemorySink,
  memoryTarget,
  SILENT_LOGGER,
  okResult,
} from '../../support/in-memory-sides.js';
import { TestClock, fixedRandom } from '../../support/session-driver.js';

const TOOLS = [
  { name: 'create_order', inputSchema: { type: 'object', properties: { idempotency_key: { type: 'string' } } } },
  { name: 'get_order', inputSchema: { type: 'object' } },
];
const signal = new AbortController().signal;

function setup(options: { stdio?: boolean; sessionSink?: () => ReportSink } = {}) {
  const upstream = new HeldUpstream(TOOLS);
  const agentSide = new InMemoryAgentSide();
  const startup = new MemorySink();
  const sinks: MemorySink[] = [];
  const notices: string[] = [];
  const config: ProxyConfig = {
    scenario: { mode: 'scenario', id: 'F1' },
    keyFields: ['idempotency_key'],
    classification: {},
    auditTools: true,
    callTimeoutMs: 60_000,
    drainMs: 20,
    harnessVersion: 'test',
    serverName: 'harness',
    stopWhenSessionEnds: options.stdio ?? true,
  };
  const service = new ProxyService(
    {
      upstream,
      agentSide,
      reportTarget: memoryTarget(
        () => {
          if (options.sessionSink) return options.sessionSink();
          const sink = new MemorySink();
          sinks.push(sink);
          return sink;
        },
        { startupSink: startup },
      ),
      clock: new TestClock(),
      random: fixedRandom(0.5),
      logger: SILENT_LOGGER,
      notice: (line) => notices.push(line),
    },
    config,
  );
  return { service, upstream, agentSide, startup, sinks, notices };
}

describe('ProxyService through in-memory ports (no processes)', () => {
  it('R-9.1/R-8.2: start-up writes "starting", classifies and prints the tools, and serves with the upstream instructions', async () => {
    const { service, agentSide, startup, notices } = setup();
    await service.start();
    expect(startup.documents[0]).toMatchObject({ status: 'starting', verdict: 'NOT_TESTED' });
    expect(notices.join('\n')).toMatch(/create_order/);
    expect(agentSide.options).toMatchObject({ serverName: 'harness', instructions: 'book carefully' });
  });

  it('R-4/R-9.2/R-8.8: F1 through a session, the agent leaves, the final report is finished and the upstream ended', async () => {
    const { service, upstream, agentSide, sinks } = setup();
    await service.start();
    const agent = agentSide.connect();
    expect((await agent.listTools()).map((t) => t.name)).toContain(GET_REPORT);
    const answer = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    const [held] = await upstream.received(1);
    held!.answer(okResult());
    const seen = await answer;
    expect(seen).toMatchObject({ isError: true });
    const report = await agent.callTool({ name: GET_REPORT, arguments: { format: 'json' } }, { signal });
    expect(JSON.stringify(report)).toContain('UNVERIFIED_AFTER_TIMEOUT');
    agentSide.disconnect('session-1');
    expect(await service.done).toMatchObject({ code: 0, reason: 'the agent disconnected' });
    expect(sinks[0]!.last).toMatchObject({ status: 'finished', verdict: 'PASS' });
    expect(upstream.closed).toBe(true);
    expect(agentSide.closedByProxy).toBe(true);
  });

  it('R-8.9: an upstream that cannot start → start() rejects with one line and the file holds startupError', async () => {
    const { service, upstream, startup } = setup();
    upstream.failConnect = 'spawn nope ENOENT';
    await expect(service.start()).rejects.toThrow('spawn nope ENOENT');
    expect(startup.last).toMatchObject({ verdict: 'NOT_TESTED', startupError: 'spawn nope ENOENT' });
  });

  it('R-9.3: a session report that cannot be written stops the proxy with exit 1 and the agent gets no answer', async () => {
    const failing: ReportSink = { publish: () => Promise.reject(new Error('disk full')) };
    const { service, upstream, agentSide, notices } = setup({ sessionSink: () => failing });
    await service.start();
    const agent = agentSide.connect();
    let answered = false;
    void agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal }).then(() => (answered = true));
    expect(await service.done).toMatchObject({ code: 1, reason: 'report file not writable' });
    expect(notices.join('\n')).toMatch(/report file could not be written: disk full/);
    expect(upstream.held).toHaveLength(0);
    expect(answered).toBe(false);
  });

  it('R-8.1 (--listen): two agents are judged apart, each in its own report', async () => {
    const { service, upstream, agentSide, sinks } = setup({ stdio: false });
    await service.start();
    const a = agentSide.connect('a');
    const b = agentSide.connect('b');
    const calls = [a, b].map((agent) => agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal }));
    for (const held of await upstream.received(2)) held.answer(okResult());
    await Promise.all(calls);
    expect(sinks).toHaveLength(2);
    for (const sink of sinks) expect(sink.last!['report'].operations).toMatchObject([{ executions: 1 }]);
    await service.stop('test over');
  });

  it('R-8.8 (--listen): a session that ends with a write at the upstream waits past the stop drain (up to the upstream time-out) and records what the upstream did', async () => {
    const { service, upstream, agentSide, sinks, notices } = setup({ stdio: false });
    await service.start();
    const agent = agentSide.connect('a');
    const answer = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    const [held] = await upstream.received(1);
    agentSide.disconnect('a');
    // Five times the 20 ms stop drain: the session is still waiting for its call.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sinks[0]!.last).toMatchObject({ status: 'running' });
    held!.answer(okResult());
    await answer;
    await until(() => sinks[0]!.last?.['status'] === 'finished');
    expect(sinks[0]!.last!['report'].operations).toMatchObject([{ executions: 1, outcome: 'EXECUTED' }]);
    expect(notices.join('\n')).toMatch(/session 1 \(a\) finished/);
    await service.stop('test over');
  });

  it('R-8.8 (--listen): a stop while an ended session waits for its call cuts that wait to the stop drain; the call is then unknown', async () => {
    const { service, upstream, agentSide, sinks } = setup({ stdio: false });
    await service.start();
    const agent = agentSide.connect('a');
    void agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    await upstream.received(1);
    agentSide.disconnect('a');
    // The upstream never answers; the upstream time-out is 60 s, the stop drain 20 ms.
    expect(await service.stop('test over')).toMatchObject({ code: 0 });
    expect(sinks[0]!.last).toMatchObject({ status: 'finished' });
    expect(sinks[0]!.last!['report'].operations).toMatchObject([{ executions: 0, outcome: 'EXECUTION_UNKNOWN' }]);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
