/**
 * ProxyService start-up and stop: a stop before any agent session opened
 * leaves the report file in a final state saying why (never `status: "starting"` for good), and a stop
 * during the first report write never starts the upstream.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { silentLogger } from '../../../src/adapters/logging/silent-logger.js';
import { ProxyService } from '../../../src/app/proxy/proxy-service.js';
import type { AgentSessionHandler, AgentSide } from '../../../src/ports/agent-side.port.js';
import type { ReportDocument, ReportSink } from '../../../src/ports/report-sink.port.js';
import type { UpstreamSide } from '../../../src/ports/upstream-side.port.js';
import { memoryTarget } from '../../support/in-memory-sides.js';

/** A promise with its resolve function. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const text = (document: ReportDocument): string =>
  typeof document === 'string'
    ? document
    : document.map((part) => (typeof part === 'string' ? part : Buffer.from(part).toString('utf8'))).join('');

function setup(options: { firstWrite?: Promise<void>; connect?: Promise<void> } = {}) {
  const documents: Array<Record<string, unknown>> = [];
  let writes = 0;
  const sink: ReportSink = {
    async publish(document) {
      if (writes++ === 0 && options.firstWrite !== undefined) await options.firstWrite;
      documents.push(JSON.parse(text(document)) as Record<string, unknown>);
    },
  };
  const upstreamCalls: string[] = [];
  const upstream: UpstreamSide = {
    async connect() {
      upstreamCalls.push('connect');
      await options.connect;
      return {};
    },
    async listTools() {
      return [{ name: 'create_order', inputSchema: { type: 'object' } }];
    },
    async callTool() {
      return { kind: 'result', result: { content: [] } };
    },
    onExit: () => undefined,
    async close() {
      upstreamCalls.push('close');
    },
  };
  let handler: AgentSessionHandler | undefined;
  const agentSide: AgentSide = {
    async serve(openSession) {
      handler = openSession('stdio');
    },
    close: async () => undefined,
  };
  const service = new ProxyService(
    {
      upstream,
      agentSide,
      reportTarget: memoryTarget(() => sink, { startupSink: sink }),
      clock: new ManualClock(),
      random: { next: () => 0.5 },
      logger: silentLogger,
      notice: () => undefined,
    },
    {
      scenario: { mode: 'none' },
      keyFields: ['idempotency_key'],
      classification: {},
      auditTools: false,
      callTimeoutMs: 1000,
      drainMs: 10,
      harnessVersion: '9.9.9',
      serverName: 'proxy',
      stopWhenSessionEnds: true,
    },
  );
  return { service, documents, upstreamCalls, session: () => handler };
}

describe('ProxyService: a stop before any session opened (R-9.1)', () => {
  it('R-8.8: a stop during the first report write never starts the upstream; the file ends "failed" with the reason', async () => {
    const firstWrite = gate();
    const { service, documents, upstreamCalls } = setup({ firstWrite: firstWrite.promise });
    const starting = service.start();
    const stopped = service.stop('received SIGTERM');
    firstWrite.open();
    await starting;
    expect(await stopped).toMatchObject({
      code: 0,
      reason: 'received SIGTERM',
      endLine: 'finished: NOT_TESTED, no agent session (no calls judged); no report file',
    });
    expect(upstreamCalls).not.toContain('connect');
    expect(documents.map((d) => d['status'])).toEqual(['starting', 'failed']);
    expect(documents[1]).toMatchObject({
      verdict: 'NOT_TESTED',
      startupError: 'start-up did not complete: received SIGTERM; no calls were made',
    });
  });

  it('R-9.1: the agent leaving while the upstream connects: the last document is "failed", not "starting"', async () => {
    const connect = gate();
    const { service, documents, upstreamCalls } = setup({ connect: connect.promise });
    const starting = service.start();
    await new Promise((resolve) => setImmediate(resolve));
    expect(upstreamCalls).toEqual(['connect']);
    const stopped = service.stop('the agent disconnected during start-up');
    connect.open();
    await Promise.all([starting, stopped]);
    expect(documents.at(-1)).toMatchObject({
      status: 'failed',
      verdict: 'NOT_TESTED',
      startupError: 'start-up did not complete: the agent disconnected during start-up; no calls were made',
    });
  });

  it('R-9.1: once a session opened, its final report stays the last word (no start-up failure written over it)', async () => {
    const { service, documents, session } = setup();
    await service.start();
    expect(session()).toBeDefined();
    await service.stop('the agent disconnected');
    expect(documents.at(-1)).toMatchObject({ status: 'finished' });
    expect(documents.some((d) => d['status'] === 'failed')).toBe(false);
  });
});
