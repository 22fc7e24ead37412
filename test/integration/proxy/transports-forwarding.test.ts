/**
 * What crosses the proxy and the MCP SDK's pitfalls it must not inherit,
 * through the whole CLI in-process (`support/cli-proxy-lines.ts`: raw JSON-RPC lines on the stdio agent
 * side's pipes) in front of the real fixture upstream processes: verbatim forwarding (own `__proto__`
 * arguments, request `_meta`), paginated and malformed tool lists, result extras, instructions, upstream
 * errors with one "MCP error" prefix, outputSchema answers without structuredContent, malformed agent
 * lines answered instead of dropped, audit tools on and off, start-up warnings, the bounds of `--listen`
 * sessions, and an HTTP upstream refusing the token at start-up (R-8.9: exit 1, one line). The upstream's
 * ledger is the ground truth for what executed. The compiled proxy as a process, bytes end to end, is in
 * `e2e/proxy-transport.e2e.test.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { executions, readLedger } from '../../../e2e/fixtures/lib/ledger.mjs';
import { waitFor } from '../../../e2e/fixtures/lib/raw-child.mjs';
import { connectHttpAgent, sessionFileId, type HttpAgent } from '../../support/http-harness.js';
import { FIXTURES, type ReportFile } from '../../support/proxy-harness.js';
import { rawText, resultOf } from '../../support/raw-proxy.js';
import { startLinesProxy, type LinesProxy } from '../../support/cli-proxy-lines.js';
import { startStreamableFixture } from '../../fixtures/http-upstream/fixture-servers.js';

const node = (fixture: string): string[] => ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, fixture)];
const COUNTING = node('counting-server.mjs');

let proxy: LinesProxy | undefined;
afterEach(async () => {
  await proxy?.dispose();
  proxy = undefined;
});

/** Starts the proxy in-process (the upstream a real process with `env`) and completes the handshake. */
async function start(
  flags: string[],
  env: Record<string, string> = {},
): Promise<{ p: LinesProxy; init: Record<string, unknown> }> {
  proxy = startLinesProxy(flags, { upstreamEnv: env });
  const init = await proxy.initialize();
  return { p: proxy, init };
}

const call = async (p: LinesProxy, name: string, args: unknown = {}) =>
  resultOf(await p.request('tools/call', { name, arguments: args }));
const toolNames = (result: Record<string, unknown>) => (result['tools'] as Array<{ name: string }>).map((t) => t.name);
const outcomeOf = (p: LinesProxy, tool: string) => p.report().report.operations.find((op) => op.tool === tool)?.outcome;

describe('R-8.5: verbatim forwarding of tools/call', () => {
  it('R-8.5 / R-13: an own __proto__ argument and the request _meta reach the upstream byte for byte', async () => {
    const { p } = await start(COUNTING, { FIXTURE_ECHO_RAW: '1' });
    const params =
      '{"name":"create_order","arguments":{"__proto__":{"polluted":true},"item":"pen","nested":{"__proto__":[1]},"idempotency_key":"k-1"},' +
      '"_meta":{"progressToken":"tok-1","example.com/trace":"abc"}}';
    p.send(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":${params}}`);
    const result = resultOf(await p.response(41));
    expect(rawText(result)).toBe(params);
    const [entry] = executions(p.ledger(), 'create_order');
    expect(Object.hasOwn(entry!.arguments as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('R-13: an integer above 2^53 does not break the call (only its precision is a known limit)', async () => {
    const { p } = await start(COUNTING, { FIXTURE_ECHO_RAW: '1' });
    p.send(
      '{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":9007199254740993}}}',
    );
    expect(rawText(resultOf(await p.response(42)))).toMatch(/"order_id":900719925474099\d/);
  });

  it('R-8.5: a result keeps structuredContent, _meta and unknown fields, and gets no isError: false', async () => {
    const { p } = await start(node('argv-echo.mjs'));
    const result = await call(p, 'get_process_info');
    expect(result['structuredContent']).toEqual(JSON.parse(rawText(result)));
    expect(result['_meta']).toEqual({ 'example.com/fixture': 'argv-echo' });
    expect(result['x_fixture_extra']).toEqual({ kept: true });
    expect(Object.hasOwn(result, 'isError')).toBe(false);
  });

  it('R-8.5: a plain success comes back exactly as the upstream sent it', async () => {
    const { p } = await start(COUNTING);
    expect(await call(p, 'create_order', { item: 'pen' })).toEqual({ content: [{ type: 'text', text: 'ok create_order #1' }] });
  });

  it('R-8.5: the upstream instructions reach the agent in the initialize result', async () => {
    const { init } = await start(COUNTING, { FIXTURE_INSTRUCTIONS: 'Always read an order before changing it.' });
    expect(init['instructions']).toBe('Always read an order before changing it.');
  });
});

describe('R-8.5: tool lists pass through whole', () => {
  it('R-8.5: all 3 upstream pages come to the agent as one list, unknown fields and annotation keys kept', async () => {
    const { p } = await start(node('paginating-server.mjs'));
    const result = resultOf(await p.request('tools/list', {}));
    expect(toolNames(result)).toEqual([
      'create_invoice',
      'get_invoice',
      'search_invoices',
      'cancel_invoice',
      'sync_invoices',
      'cuonztech__get_report',
      'cuonztech__get_score',
    ]);
    expect(result['nextCursor']).toBeUndefined();
    const invoice = (result['tools'] as Array<Record<string, unknown>>)[0]!;
    expect(invoice['x_vendor_ext']).toEqual({ tier: 'gold', retries: 0 });
    expect(invoice['annotations']).toEqual({ readOnlyHint: false, x_vendor_hint: 'billing' });
    expect(p.stderr()).toMatch(/write\s+cancel_invoice/);
  });

  it('R-8.5: a malformed tool (inputSchema without type) is forwarded and start-up does not fail', async () => {
    const { p } = await start(node('paginating-server.mjs'), { FIXTURE_MALFORMED: '1' });
    const tools = resultOf(await p.request('tools/list', {}))['tools'] as Array<Record<string, unknown>>;
    expect(tools.find((t) => t['name'] === 'broken_tool')).toEqual({
      name: 'broken_tool',
      description: 'inputSchema without type.',
      inputSchema: { properties: {} },
    });
    expect(rawText(await call(p, 'cancel_invoice', { invoice_id: 'i-1' }))).toBe('ok cancel_invoice #1');
  });

  it('R-8.2: a kebab-case tool without annotations (create-booking) is a write by the default patterns', async () => {
    const tools = [{ name: 'create-booking', description: 'Books.', inputSchema: { type: 'object', properties: {} } }];
    const { p } = await start(COUNTING, { FIXTURE_TOOLS: JSON.stringify(tools) });
    expect(p.stderr()).toMatch(/write\s+create-booking\s+\(default write pattern\)/);
    await call(p, 'create-booking', { slot: 'mon' });
    expect(p.report().toolClassification).toContainEqual(expect.objectContaining({ name: 'create-booking', class: 'write' }));
  });
});

describe('R-8.5 / R-1.3: upstream failures reach the agent as tool results', () => {
  it('R-8.5: a JSON-RPC error from the upstream is an isError result with ONE "MCP error -32602:" prefix; EXECUTION_UNKNOWN', async () => {
    const { p } = await start(COUNTING);
    const result = await call(p, 'create_order', { item: 'pen', throw: -32602 });
    expect(result['isError']).toBe(true);
    expect(rawText(result).match(/MCP error -32602:/g)).toHaveLength(1);
    expect(rawText(result)).not.toMatch(/MCP error -?\d+: MCP error/);
    expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
    expect(outcomeOf(p, 'create_order')).toBe('EXECUTION_UNKNOWN');
  });

  it('R-1.3: an outputSchema tool answering without structuredContent reaches the agent verbatim; EXECUTION_UNKNOWN', async () => {
    const { p } = await start(node('output-schema-server.mjs'));
    const result = await call(p, 'create_without_structured', { title: 'a' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'ok create_without_structured #1' }] });
    expect(executions(p.ledger(), 'create_without_structured')).toHaveLength(1);
    expect(outcomeOf(p, 'create_without_structured')).toBe('EXECUTION_UNKNOWN');
  });

  it('R-1.3: invalid structuredContent is passed through verbatim, never turned into an error after execution', async () => {
    const { p } = await start(node('output-schema-server.mjs'));
    const result = await call(p, 'create_with_invalid_structured', { title: 'a' });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'ok create_with_invalid_structured #1' }],
      structuredContent: { id: 42 },
    });
    expect(executions(p.ledger(), 'create_with_invalid_structured')).toHaveLength(1);
  });
});

describe('R-8.5: malformed agent messages are answered, never dropped', () => {
  it('R-8.5: a line that is not JSON gets -32700 and the session goes on', async () => {
    const { p } = await start(COUNTING);
    p.send('{"jsonrpc":"2.0","id":5,"method":"tools/call",');
    expect(await p.response(null)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(rawText(await call(p, 'get_order', { order_id: 'o-1' }))).toBe('ok get_order #1');
  });

  it('R-8.5: an invalid JSON-RPC request gets -32600 with its id', async () => {
    const { p } = await start(COUNTING);
    p.send('{"jsonrpc":"2.0","id":6,"method":42}');
    expect(await p.response(6)).toMatchObject({ id: 6, error: { code: -32600 } });
  });

  it('R-8.5: a request with an extra top-level key is answered (not silently dropped)', async () => {
    const { p } = await start(COUNTING);
    p.send(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":"o-7"}},"x_client_ext":1}',
    );
    expect(rawText(resultOf(await p.response(7)))).toBe('ok get_order #1');
  });
});

describe('R-8.6: audit tools', () => {
  it('R-8.6: on by default: listed as read-only, both answer, format "json" gives the JSON report', async () => {
    const { p } = await start(COUNTING);
    const tools = resultOf(await p.request('tools/list', {}))['tools'] as Array<{
      name: string;
      annotations?: Record<string, unknown>;
    }>;
    for (const name of ['cuonztech__get_report', 'cuonztech__get_score']) {
      expect(tools.find((t) => t.name === name)?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    await call(p, 'create_order', { item: 'pen' });
    const json = JSON.parse(rawText(await call(p, 'cuonztech__get_report', { format: 'json' }))) as Record<string, unknown>;
    expect(json).toMatchObject({
      kind: 'proxy',
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      operations: [expect.objectContaining({ tool: 'create_order', executions: 1 })],
    });
    expect(rawText(await call(p, 'cuonztech__get_report'))).not.toBe('');
    expect(rawText(await call(p, 'cuonztech__get_score'))).toMatch(/\d/);
    expect(p.ledger().filter((e) => String(e.tool).startsWith('cuonztech__'))).toEqual([]);
  });

  it('R-8.6: --audit-tools off: not listed, and a call to cuonztech__get_report goes to the upstream (unknown tool)', async () => {
    const { p } = await start([...COUNTING, '--audit-tools', 'off']);
    expect(toolNames(resultOf(await p.request('tools/list', {})))).toEqual([
      'create_order',
      'get_order',
      'search_orders',
      'sync_ledger',
    ]);
    const result = await call(p, 'cuonztech__get_report', {});
    expect(result['isError']).toBe(true);
    expect(rawText(result)).toMatch(/Unknown tool: cuonztech__get_report/);
  });
});

describe('R-8.3: tools the upstream does not list', () => {
  it('R-8.3: an unlisted write-looking tool is forwarded and triggers no scenario; the next listed write gets F5', async () => {
    const { p } = await start([...COUNTING, '--scenario', 'F5']);
    const ghost = await call(p, 'create_ghost', { item: 'x' });
    expect(rawText(ghost)).toMatch(/Unknown tool: create_ghost/);
    expect(rawText(ghost)).not.toMatch(/500/);
    const real = await call(p, 'create_order', { item: 'pen' });
    expect(real['isError']).toBe(true);
    expect(rawText(real)).toMatch(/HTTP 500/);
    expect(executions(p.ledger(), 'create_order')).toHaveLength(0);
    const report = p.report();
    expect(report.report.coverage['unclassifiedTools']).toContain('create_ghost');
    expect(report.report.operations.map((op) => op.tool)).not.toContain('create_ghost');
  });
});

describe('R-8.4: start-up warnings for a configuration that cannot measure', () => {
  it('R-4.2: the ready line names chaos mode and its seed, so the run can be repeated', async () => {
    const { p } = await start([...COUNTING, '--mode', 'chaos', '--error-rate', '0.5', '--seed', '20261103']);
    expect(p.stderr()).toMatch(/proxy ready: .*chaos.*, seed 20261103; audit tools on; report file /);
  });

  it('R-8.4: a --write-tools pattern matching no tool, and F1 with no write tool, are warned about on stderr; the proxy still serves', async () => {
    const { p } = await start([...COUNTING, '--write-tools', 'Create_*', '--scenario', 'F1']);
    const stderr = p.stderr();
    expect(stderr).toContain(
      '[cuonztech-agent-harness] WARNING: --write-tools pattern "Create_*" matches none of the upstream\'s 4 tools',
    );
    expect(stderr).toContain(
      '[cuonztech-agent-harness] WARNING: scenario F1 can never trigger: no upstream tool is classified as a write',
    );
    expect(rawText(await call(p, 'get_order', { order_id: 'o-1' }))).toBe('ok get_order #1');
  });

  it('R-8.4: a configuration that works prints no such warning', async () => {
    const { p } = await start([...COUNTING, '--write-tools', 'create_*', '--scenario', 'F1']);
    expect(p.stderr()).not.toMatch(/matches none|can never trigger/);
  });
});

/** The proxy in-process with `--listen 127.0.0.1:0 --report-dir reports` (one report per session), once ready. */
async function startListening(flags: string[], extra: string[], upstreamEnv: Record<string, string> = {}) {
  const p = startLinesProxy([...flags, '--listen', '127.0.0.1:0', '--report-dir', 'reports', ...extra], {
    upstreamEnv,
    reportFile: false,
  });
  proxy = p;
  const waitForOutput = (pattern: RegExp, timeoutMs: number, what: string) =>
    waitFor(() => pattern.exec(p.stderr()), timeoutMs, what);
  const [, url] = await waitForOutput(/agents connect to (http:\/\/\S+\/mcp)/, 30_000, 'the proxy ready line');
  const reportDir = join(p.dir, 'reports');
  const reportFiles = () =>
    readdirSync(reportDir)
      .filter((name) => /^session-\d{4}-.*\.json$/.test(name))
      .sort();
  const reportOf = (sessionId: string): ReportFile => {
    const name = reportFiles().find((file) => file.endsWith(`-${sessionFileId(sessionId)}.json`));
    if (name === undefined) throw new Error(`no report file for session ${sessionId}`);
    return JSON.parse(readFileSync(join(reportDir, name), 'utf8')) as ReportFile;
  };
  const waitForReport = (sessionId: string, accept: (report: ReportFile) => boolean, timeoutMs = 10_000) =>
    waitFor(
      () => {
        try {
          const report = reportOf(sessionId);
          return accept(report) ? report : null;
        } catch {
          return null;
        }
      },
      timeoutMs,
      `the report of session ${sessionId}`,
    );
  return { p, url: url!, reportFiles, reportOf, waitForReport, waitForOutput };
}

describe('R-8.8: --listen sessions are bounded: --max-sessions and --session-idle-timeout', () => {
  const agents: HttpAgent[] = [];
  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((agent) => agent.client.close()));
  });

  it('R-8.8: with --max-sessions 2 a third SDK client is refused with the reason; after a DELETE it connects', async () => {
    const listening = await startListening(COUNTING, ['--max-sessions', '2']);
    agents.push(await connectHttpAgent(listening.url, 'a'), await connectHttpAgent(listening.url, 'b'));
    await expect(connectHttpAgent(listening.url, 'c')).rejects.toThrow(
      /Too many open sessions: this proxy serves at most 2 at once \(--max-sessions\)\. End a session with HTTP DELETE/,
    );
    await listening.waitForOutput(
      /a new agent session was refused: 2 sessions are open \(--max-sessions\)/,
      5000,
      'the refusal notice',
    );
    await agents[0]!.terminate();
    await listening.waitForReport(agents[0]!.sessionId, (r) => r.status === 'finished');
    const third = await connectHttpAgent(listening.url, 'c');
    agents.push(third);
    expect((await third.call('get_order', { order_id: 'o-1' })).isError).toBeUndefined();
    expect(listening.reportFiles()).toHaveLength(3);
  });

  it('R-8.8: a client that never ends its session (like the MCP inspector) is ended after --session-idle-timeout: its report is finished with its verdict', async () => {
    const listening = await startListening(COUNTING, ['--scenario', 'F5', '--session-idle-timeout', '2']);
    const agent = await connectHttpAgent(listening.url, 'never-closes');
    agents.push(agent);
    expect((await agent.call('create_order', { item: 'pen' })).isError).toBe(true); // F5: HTTP 500, not executed
    const second = await agent.call('create_order', { item: 'pen' });
    expect(second.isError, JSON.stringify(second)).toBeUndefined();
    const running = listening.reportOf(agent.sessionId);
    expect(running.status).toBe('running');
    const finished = await listening.waitForReport(agent.sessionId, (r) => r.status === 'finished', 15_000);
    expect(finished.verdict).toBe('PASS');
    expect(finished.report.operations).toEqual([expect.objectContaining({ tool: 'create_order', executions: 1, attempts: 2 })]);
    await listening.waitForOutput(
      new RegExp(`agent session ${agent.sessionId.slice(0, 8)} ended: no request for 2 s; its report is final`),
      5000,
      'the idle notice',
    );
    await expect(agent.call('get_order', { order_id: 'o-1' })).rejects.toThrow(/Session not found|404/);
    // The listener keeps serving new agents; SIGTERM then ends it cleanly.
    const next = await connectHttpAgent(listening.url, 'next');
    agents.push(next);
    expect((await next.call('get_order', { order_id: 'o-2' })).isError).toBeUndefined();
    listening.p.signal('SIGTERM');
    expect(await listening.p.exit).toBe(0);
    expect(executions(readLedger(listening.p.ledgerFile), 'create_order')).toHaveLength(1);
  });
});

describe("issue 41 §10: an upstream that closes a call's SSE stream before answering (SSE polling), through the whole proxy", () => {
  it("the agent gets the upstream's answer once the upstream gives it on the resumed stream, never held until --upstream-timeout; executed once", async () => {
    const fixture = await startStreamableFixture({ resumable: true });
    try {
      const p = (proxy = startLinesProxy(['--upstream-url', fixture.url.href, '--upstream-timeout', '15']));
      await p.initialize();
      const started = Date.now();
      // The fixture closes the call's stream after 50 ms and answers 200 ms later on the GET resumed with
      // Last-Event-ID; a proxy that lost the stream would hold the agent 15 s, then answer a time-out.
      const result = resultOf(await p.request('tools/call', { name: 'poll', arguments: { n: 1 } }, 20_000));
      expect(Date.now() - started, 'how long the agent was held (ms)').toBeLessThan(5_000);
      expect(result['isError']).toBeUndefined();
      expect(result['structuredContent']).toEqual({ tool: 'poll', arguments: { n: 1 } });
      expect(fixture.executed.get('poll')).toBe(1);
      expect(fixture.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined)).toHaveLength(1);
      // The proxy and its upstream session go on.
      expect((await call(p, 'echo'))['vendorField']).toEqual([1, 2]);
    } finally {
      await fixture.close();
    }
  });
});

describe('R-8.9: the upstream refuses the token (CLI in-process)', () => {
  it('R-8.9: a wrong token → exit 1 with one line naming HTTP 401 and no token value; startupError in the report file', async () => {
    const fixture = await startStreamableFixture({ token: 'the-right-token-42' });
    try {
      const p = (proxy = startLinesProxy(
        ['--upstream-url', fixture.url.href, '--upstream-header-env', 'Authorization=MY_TOKEN'],
        {
          env: { MY_TOKEN: 'Bearer wrong-token-4711' },
        },
      ));
      expect(await p.exit).toBe(1);
      const lines = p.stderr().trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/HTTP 401/);
      expect(lines[0]).not.toMatch(/wrong-token-4711|the-right-token-42/);
      const report = readFileSync(p.reportFile, 'utf8');
      expect((JSON.parse(report) as { startupError?: string }).startupError).toMatch(/HTTP 401/);
      expect(report).not.toMatch(/wrong-token-4711|the-right-token-42/);
      // Every request carried the token from the environment, as given.
      expect(fixture.requests.length).toBeGreaterThan(0);
      for (const request of fixture.requests) expect(request.headers.authorization).toBe('Bearer wrong-token-4711');
    } finally {
      await fixture.close();
    }
  });
});
