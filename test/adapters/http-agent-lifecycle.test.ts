/**
 * `--listen` session lifecycle against the real HTTP agent side and the proxy use case in-process: every
 * session's report is final when the session or the proxy ends, and equal to what the upstream executed.
 */
import { describe, expect, it } from 'vitest';
import { ProxyService } from '../../src/app/proxy/proxy-service.js';
import { HeldUpstream, InMemoryAgentSide, MemorySink, SILENT_LOGGER, okResult } from '../support/in-memory-sides.js';
import { TestClock, fixedRandom } from '../support/session-driver.js';

describe('--listen: reports are final and complete at every kind of session end', () => {
  it('R-9.2/R-8.8 (--listen): a session that opens while the proxy stops (during the drain of a call in flight) has a finished report when the proxy is done', async () => {
    const upstream = new HeldUpstream([{ name: 'create_order', inputSchema: { type: 'object' } }]);
    const agentSide = new InMemoryAgentSide();
    const sinks = new Map<string, MemorySink>();
    const service = new ProxyService(
      {
        upstream,
        agentSide,
        startupSink: null,
        sessionSink: (sessionId) => sinks.set(sessionId, new MemorySink()).get(sessionId)!,
        clock: new TestClock(),
        random: fixedRandom(0.5),
        logger: SILENT_LOGGER,
        notice: () => undefined,
      },
      {
        scenario: { mode: 'none' },
        keyFields: [],
        classification: {},
        auditTools: false,
        callTimeoutMs: 60_000,
        drainMs: 5_000,
        harnessVersion: 'test',
        serverName: 'harness',
        stopWhenSessionEnds: false,
      },
    );
    await service.start();
    const a = agentSide.connect('a');
    void a.callTool({ name: 'create_order', arguments: { item: 'a1' } }, { signal: new AbortController().signal });
    const [held] = await upstream.received(1);
    const stopped = service.stop('received SIGTERM');
    // The listener still answers an initialize while the proxy drains session a's call.
    agentSide.connect('late');
    held!.answer(okResult());
    const exit = await stopped;
    expect(sinks.get('a')!.last).toMatchObject({ status: 'finished' });
    expect(sinks.get('late')!.last).toMatchObject({ status: 'finished' });
    expect(exit.sessions.map((s) => s.sessionId).sort()).toEqual(['a', 'late']);
  });
});
