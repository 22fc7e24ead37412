/**
 * R-17, first slice: what the upstream offers besides tools passes the proxy as it is — its capabilities,
 * instructions and server info; resources, resource templates, prompts, completions, logging/setLevel and
 * ping, with cursors, `_meta` and the upstream's own errors unchanged — while only tool calls are judged.
 * The whole CLI runs in this process (`main(['proxy', …])`); the agent is the MCP SDK's own `Client`, over
 * the stdio agent side's pipes (through the SDK's stream transport) and over `--listen`; the upstreams are
 * real processes: `@modelcontextprotocol/server-everything` over stdio and over Streamable HTTP
 * (`--upstream-url`), and `e2e/fixtures/resources-server.mjs`, which paginates resources and echoes the
 * params it received. Each answer through the proxy is compared with the same request made directly.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { waitFor } from '../../../e2e/fixtures/lib/raw-child.mjs';
import { EVERYTHING_SERVER, startEverythingHttp, stopAll } from '../../support/http-harness.js';
import { FIXTURES, type ReportFile } from '../../support/proxy-harness.js';

const EVERYTHING_STDIO = ['--upstream-command', process.execPath, '--upstream-arg', EVERYTHING_SERVER, '--upstream-arg', 'stdio'];
const RESOURCES_FIXTURE = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'resources-server.mjs')];

/** The proxy CLI in this process, with an SDK client connected to it as the agent. */
interface Proxied {
  client: Client;
  /** The report of the (first) session, parsed. */
  report(): ReportFile;
  /** The agent leaves (stdio: its stdin ends; HTTP: the session is deleted), the proxy stops. */
  stop(): Promise<number>;
  /** What the proxy wrote to stderr so far. */
  stderr(): string;
}

/** The agent's client capabilities, and its handlers set before it connects. */
interface AgentSetup {
  capabilities?: ClientCapabilities;
  setup?: (client: Client) => void;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await stopAll();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'harness-transparency-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `proxy <flags> …` in-process over `--listen` (listen) or stdio pipes, and connects an SDK client. */
async function startProxied(flags: string[], listen: boolean, agent: AgentSetup = {}): Promise<Proxied> {
  const dir = tempDir();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let stderrText = '';
  stderr.setEncoding('utf8').on('data', (chunk: string) => (stderrText += chunk));
  const signals: Array<(signal: string) => void> = [];
  const where = listen
    ? ['--listen', '127.0.0.1:0', '--report-dir', join(dir, 'reports')]
    : ['--report-file', join(dir, 'report.json')];
  const exit = main(['proxy', ...flags, ...where], {
    stdin,
    stdout,
    stderr,
    env: {},
    cwd: dir,
    onSignal(handler) {
      signals.push(handler);
      return () => void signals.splice(signals.indexOf(handler), 1);
    },
  });
  let transport: Transport;
  if (listen) {
    const url = await waitFor(() => /agents connect to (http:\/\/\S+\/mcp)/.exec(stderrText)?.[1], 30_000, 'the ready line');
    transport = new StreamableHTTPClientTransport(new URL(url));
  } else {
    // The SDK's stream transport, read from the proxy's stdout and written to its stdin: an SDK client.
    transport = new StdioServerTransport(stdout, stdin);
  }
  const client = new Client({ name: 'transparency-agent', version: '1.0.0' }, { capabilities: agent.capabilities ?? {} });
  agent.setup?.(client);
  await client.connect(transport, { timeout: 30_000 });
  const reportPath = (): string => {
    if (!listen) return join(dir, 'report.json');
    const sessionId = (transport as StreamableHTTPClientTransport).sessionId ?? '';
    const name = readdirSessions(join(dir, 'reports')).find((file) =>
      file.includes(sessionId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8)),
    );
    return join(dir, 'reports', name ?? 'missing');
  };
  const stop = async (): Promise<number> => {
    if (listen) {
      await (transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
      await client.close();
      signals.forEach((handler) => handler('SIGTERM'));
    } else {
      await client.close();
      stdin.end();
    }
    return exit;
  };
  cleanups.push(async () => {
    signals.forEach((handler) => handler('SIGTERM'));
    stdin.end();
    await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  });
  return {
    client,
    report: () => JSON.parse(readFileSync(reportPath(), 'utf8')) as ReportFile,
    stop,
    stderr: () => stderrText,
  };
}

/** The session report files in `dir` (none yet: []). */
function readdirSessions(dir: string): string[] {
  const names = existsSync(dir) ? readdirSync(dir) : [];
  return names.filter((name) => name.startsWith('session-') && name.endsWith('.json'));
}

/** An SDK client connected to server-everything directly (stdio, or its Streamable HTTP URL). */
async function direct(url?: string, agent: AgentSetup = {}): Promise<Client> {
  const client = new Client({ name: 'transparency-direct', version: '1.0.0' }, { capabilities: agent.capabilities ?? {} });
  agent.setup?.(client);
  const transport =
    url === undefined
      ? new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport, { timeout: 30_000 });
  cleanups.push(() => client.close());
  return client;
}

/** What the agent sees of server-everything's non-tool offer, one request of each kind. */
async function everythingOffer(client: Client) {
  const resources = await client.listResources();
  const templates = await client.listResourceTemplates();
  const first = resources.resources[0]!;
  const read = await client.readResource({ uri: first.uri });
  // The dynamic resource names the time it was made: compared without it.
  const dynamic = JSON.stringify(await client.readResource({ uri: 'demo://resource/dynamic/text/3' })).replace(
    /created at [^"]*/,
    'created at <time>',
  );
  const prompts = await client.listPrompts();
  const prompt = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon', state: 'PT' } });
  const completion = await client.complete({
    ref: { type: 'ref/prompt', name: 'completable-prompt' },
    argument: { name: 'department', value: 'E' },
  });
  const setLevel = await client.setLoggingLevel('warning');
  const ping = await client.ping();
  return { resources, templates, read, dynamic, prompts, prompt, completion, setLevel, ping };
}

/** The capabilities the proxy declares for server-everything's: its own (tasks aside: not forwarded). */
function expectedCapabilities(upstream: Record<string, unknown>): Record<string, unknown> {
  const tools = upstream['tools'] as Record<string, unknown>;
  return {
    tools: tools['listChanged'] === true ? { listChanged: true } : {},
    resources: upstream['resources'],
    prompts: upstream['prompts'],
    completions: upstream['completions'],
    logging: upstream['logging'],
  };
}

describe.each([
  { agent: 'stdio', listen: false },
  { agent: '--listen', listen: true },
])('R-17.1: server-everything behind the proxy, the agent on $agent', ({ listen }) => {
  it.each([{ upstream: 'stdio' }, { upstream: '--upstream-url' }])(
    'the upstream ($upstream): capabilities, instructions, server info and every resource/prompt/completion/logging/ping answer as directly; only tool calls are judged',
    async ({ upstream }) => {
      const url = upstream === 'stdio' ? undefined : (await startEverythingHttp()).url;
      const flags = url === undefined ? EVERYTHING_STDIO : ['--upstream-url', url];
      const directClient = await direct(url);
      const proxied = await startProxied(flags, listen);
      const { client } = proxied;
      expect(client.getInstructions()).toBe(directClient.getInstructions());
      expect(client.getServerVersion()).toMatchObject({
        name: directClient.getServerVersion()?.name,
        version: directClient.getServerVersion()?.version,
      });
      expect(client.getServerCapabilities()).toEqual(expectedCapabilities(directClient.getServerCapabilities()!));
      expect(await everythingOffer(client)).toEqual(await everythingOffer(directClient));
      // A cursor goes through as given: server-everything refuses one it did not make, the same way.
      const refusal = (c: Client) =>
        c.listResources({ cursor: 'not-a-cursor' }).then(
          () => 'accepted',
          (e: unknown) => String(e),
        );
      expect(await refusal(client)).toBe(await refusal(directClient));
      // A tool call is still forwarded and judged (a write: an operation executed once); the reads and gets
      // above are neither operations nor checks.
      const echoed = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
      expect(echoed).toEqual(await directClient.callTool({ name: 'echo', arguments: { message: 'hi' } }));
      const write = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      expect(write).toEqual(await directClient.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }));
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      const report = await waitFor(
        () => {
          const current = proxied.report();
          return current.report.operations.length > 0 ? current : undefined;
        },
        10_000,
        'the write in the report',
      );
      expect(report.report.operations).toEqual([
        expect.objectContaining({ tool: 'toggle-subscriber-updates', executions: 1, attempts: 1 }),
      ]);
      expect(report.report.coverage['calls']).toEqual({ read: 2, write: 1, unclassified: 0 });
      await proxied.stop();
    },
    60_000,
  );
});

describe('R-17.1: cursors, _meta and upstream errors pass unchanged (fixture upstream)', () => {
  it.each([
    { agent: 'stdio', listen: false },
    { agent: '--listen', listen: true },
  ])(
    '$agent: resources/list pages by the upstream cursor, `_meta` arrives, the upstream error comes back with its code, message and data',
    async ({ listen }) => {
      const { client, report, stop } = await startProxied([...RESOURCES_FIXTURE, '--scenario', 'F1'], listen);
      expect(client.getServerVersion()).toMatchObject({ name: 'resources-fixture', version: '3.1.4' });
      expect(client.getInstructions()).toBe('Read fixture://a first.');
      expect(client.getServerCapabilities()).toEqual({
        tools: {},
        resources: { subscribe: true, listChanged: true },
        prompts: {},
      });
      const page1 = await client.listResources({ _meta: { 'example.com/trace': 't-1' } });
      expect(page1.nextCursor).toBe('r2');
      expect(page1._meta).toEqual({ 'example.com/received': { _meta: { 'example.com/trace': 't-1' } } });
      const page2 = await client.listResources({ cursor: page1.nextCursor! });
      expect(page2.resources).toEqual([{ uri: 'fixture://b', name: 'b', mimeType: 'text/plain' }]);
      expect(page2._meta).toEqual({ 'example.com/received': { cursor: 'r2' } });
      const error = await client.readResource({ uri: 'fixture://missing' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({
        code: -32002,
        message: 'MCP error -32002: Resource not found',
        data: { uri: 'fixture://missing' },
      });
      const badCursor = await client.listResources({ cursor: 'nope' }).catch((e: unknown) => e);
      expect(badCursor).toMatchObject({ code: -32602, data: { cursor: 'nope' } });
      const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }]);
      // Not declared by the upstream: the SDK's own answer, not a hang.
      await expect(
        client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }),
      ).rejects.toMatchObject({
        code: -32601,
      });
      // Under F1 nothing of the above is faulted or counted: no operation, no check.
      const { report: judged } = report();
      expect(judged.operations).toEqual([]);
      expect(judged.coverage['calls']).toEqual({ read: 0, write: 0, unclassified: 0 });
      await stop();
    },
    60_000,
  );
});

const RELAYING_FIXTURE = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'relaying-server.mjs')];

/** The fixture's ledger lines (what it executed and what it was asked), parsed. */
function ledgerOf(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.each([
  { agent: 'stdio', listen: false },
  { agent: '--listen', listen: true },
])('R-17.2: what the upstream sends the agent passes the proxy (relaying fixture), the agent on $agent', ({ listen }) => {
  it('log messages during a call, a changed tool list (classified again), resource updates of a subscription', async () => {
    const ledger = join(tempDir(), 'ledger.jsonl');
    const logs: unknown[] = [];
    let toolListChanged = 0;
    const updated: unknown[] = [];
    const proxied = await startProxied([...RELAYING_FIXTURE, '--upstream-env-var', `FIXTURE_LEDGER=${ledger}`], listen, {
      setup(client) {
        client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolListChanged++);
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params));
      },
    });
    const { client } = proxied;
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
    });
    // Logging: the three messages the upstream sent while the call was in flight, before its answer.
    expect(await client.callTool({ name: 'log_during', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'logged 3' }],
    });
    expect(logs).toEqual([1, 2, 3].map((n) => ({ level: 'info', logger: 'fixture', data: `step ${n}` })));
    // A changed tool list: read and classified again (the start-up output says so), then the agent is told.
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('refund_order');
    await client.callTool({ name: 'add_tool', arguments: {} });
    await waitFor(() => (toolListChanged > 0 ? true : undefined), 10_000, 'notifications/tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('refund_order');
    expect(proxied.stderr()).toMatch(
      /the upstream's tool list changed \(9 tools\); classified again:\n[\s\S]*write +refund_order/,
    );
    await client.callTool({ name: 'refund_order', arguments: {} });
    // Subscribe / unsubscribe reach the upstream; its update for the subscribed resource reaches the agent.
    await client.subscribeResource({ uri: 'fixture://watched' });
    expect(await client.callTool({ name: 'touch', arguments: { uri: 'fixture://watched' } })).toEqual({
      content: [{ type: 'text', text: 'notified' }],
    });
    await waitFor(() => (updated.length > 0 ? true : undefined), 10_000, 'notifications/resources/updated');
    expect(updated).toEqual([{ uri: 'fixture://watched' }]);
    await client.unsubscribeResource({ uri: 'fixture://watched' });
    expect(ledgerOf(ledger).filter((e) => 'subscribed' in e || 'unsubscribed' in e)).toEqual([
      expect.objectContaining({ subscribed: 'fixture://watched' }),
      expect.objectContaining({ unsubscribed: 'fixture://watched' }),
    ]);
    // The write that appeared with the new list is judged as a write.
    const report = await waitFor(
      () => {
        const current = proxied.report();
        return current.report.operations.length >= 2 ? current : undefined;
      },
      10_000,
      'both writes in the report',
    );
    expect(report.report.operations.map((o) => o.tool)).toEqual(['add_tool', 'refund_order']);
    await proxied.stop();
  }, 60_000);

  it('a flood of notifications is bounded: the excess is dropped and counted, the call still answers', async () => {
    let received = 0;
    const proxied = await startProxied(RELAYING_FIXTURE, listen, {
      setup(client) {
        client.setNotificationHandler(LoggingMessageNotificationSchema, () => void received++);
      },
    });
    expect(await proxied.client.callTool({ name: 'flood', arguments: { count: 5000 } })).toEqual({
      content: [{ type: 'text', text: 'flooded 5000' }],
    });
    await waitFor(
      () => (/notifications a second; the excess is dropped/.test(proxied.stderr()) ? true : undefined),
      10_000,
      'the drop notice',
    );
    await proxied.stop();
    await waitFor(() => /(\d+) upstream notifications were dropped/.exec(proxied.stderr())?.[1], 10_000, 'the dropped count');
    const dropped = Number(/(\d+) upstream notifications were dropped/.exec(proxied.stderr())![1]);
    expect(dropped).toBeGreaterThan(0);
    expect(received).toBeLessThan(5000);
    expect(received + dropped).toBeLessThanOrEqual(5000);
    expect(received).toBeGreaterThanOrEqual(1000);
  }, 60_000);

  it('elicitation, sampling and roots asked during a call: answered by the agent, refused by the SDK when undeclared', async () => {
    const ledger = join(tempDir(), 'ledger.jsonl');
    const asked: unknown[] = [];
    const proxied = await startProxied([...RELAYING_FIXTURE, '--upstream-env-var', `FIXTURE_LEDGER=${ledger}`], listen, {
      capabilities: { elicitation: { form: {} }, roots: {} },
      setup(client) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push(request.params);
          return { action: 'accept', content: { confirm: true } };
        });
        client.setRequestHandler(ListRootsRequestSchema, async () => ({
          roots: [{ uri: 'file:///work/a' }, { uri: 'file:///work/b' }],
        }));
      },
    });
    const { client } = proxied;
    expect(await client.callTool({ name: 'confirm_payment', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'paid' }],
    });
    expect(asked).toEqual([expect.objectContaining({ mode: 'form', message: 'Confirm the payment of 42 EUR?' })]);
    expect(ledgerOf(ledger).filter((e) => e['tool'] === 'confirm_payment')).toEqual([
      expect.objectContaining({ elicited: { action: 'accept', content: { confirm: true } } }),
    ]);
    expect(await client.callTool({ name: 'list_roots', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'roots: file:///work/a,file:///work/b' }],
    });
    // The agent declared no sampling: the SDK refuses at once, the upstream gets the error (no hang).
    const started = Date.now();
    expect(await client.callTool({ name: 'ask_model', arguments: {} })).toEqual({
      content: [{ type: 'text', text: expect.stringMatching(/sampling failed: .*Client does not support sampling/) }],
      isError: true,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    await proxied.stop();
  }, 60_000);
});

/** The agent's answers to server-everything's sampling, elicitation and roots requests, the same directly and through the proxy. */
const TALKING_AGENT: AgentSetup = {
  capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
  setup(client) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      model: 'agent-model',
      role: 'assistant',
      content: { type: 'text', text: `agent saw ${request.params.messages.length} message(s)` },
    }));
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada', check: true } },
    );
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: 'file:///srv/agent-root', name: 'agent root' }],
    }));
  },
};

/** What server-everything's tools for sampling, elicitation and roots answer (the URL elicitation's random id masked). */
async function talkBack(client: Client) {
  const call = async (name: string, args: Record<string, unknown>) =>
    JSON.stringify(await client.callTool({ name, arguments: args })).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<uuid>');
  return {
    sampling: await call('trigger-sampling-request', { prompt: 'Say hi', maxTokens: 5 }),
    elicitation: await call('trigger-elicitation-request', {}),
    url: await call('trigger-url-elicitation', { url: 'https://example.com/pay' }),
    roots: await call('get-roots-list', {}),
  };
}

describe.each([
  { agent: 'stdio', listen: false },
  { agent: '--listen', listen: true },
])('R-17.2: cancellation and an agent that never answers (relaying fixture), the agent on $agent', ({ listen }) => {
  it('the upstream cancels its elicitation: the agent is told (its handler aborted); an unanswered elicitation holds only its call, up to --upstream-timeout', async () => {
    let aborted = false;
    const proxied = await startProxied([...RELAYING_FIXTURE, '--upstream-timeout', '2'], listen, {
      capabilities: { elicitation: { form: {} }, roots: {} },
      setup(client) {
        client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
        client.setRequestHandler(
          ElicitRequestSchema,
          (request, extra) =>
            new Promise((resolve) => {
              // 'cancel me' waits for the upstream's cancellation; the payment is never answered.
              if (request.params.message === 'cancel me')
                extra.signal.addEventListener('abort', () => {
                  aborted = true;
                  resolve({ action: 'cancel' });
                });
            }),
        );
      },
    });
    const { client } = proxied;
    // The MCP SDK (1.32) ignores a cancellation of request id 0 (a falsy check), so the first request the
    // upstream (and the proxy) sends, with id 0, is one that gets answered.
    await client.callTool({ name: 'list_roots', arguments: {} });
    expect(await client.callTool({ name: 'ask_then_cancel', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'cancelled ask' }],
    });
    await waitFor(() => (aborted ? true : undefined), 10_000, "the agent's handler aborted by notifications/cancelled");
    // Never answered: that call ends after the upstream time-out (2 s); another call meanwhile answers at once.
    const started = Date.now();
    const stuck = client.callTool({ name: 'confirm_payment', arguments: {} }, undefined, { timeout: 30_000 });
    expect(await client.callTool({ name: 'log_during', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'logged 3' }],
    });
    expect(Date.now() - started).toBeLessThan(1500);
    const ended = await stuck;
    expect(ended.isError).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    await proxied.stop();
  }, 60_000);
});

describe.each([
  { agent: 'stdio', listen: false },
  { agent: '--listen', listen: true },
])(
  'R-17.2: server-everything asks the agent (sampling, elicitation, roots) through the proxy, the agent on $agent',
  ({ listen }) => {
    it.each([{ upstream: 'stdio' }, { upstream: '--upstream-url' }])(
      'the upstream ($upstream): its sampling, elicitation (form, URL) and roots tools answer as directly, the agent answering',
      async ({ upstream }) => {
        const url = upstream === 'stdio' ? undefined : (await startEverythingHttp()).url;
        const flags = url === undefined ? EVERYTHING_STDIO : ['--upstream-url', url];
        const directly = await talkBack(await direct(url, TALKING_AGENT));
        expect(directly.sampling).toContain('agent saw 1 message(s)');
        expect(directly.elicitation).toContain('- Name: Ada');
        expect(directly.roots).toContain('file:///srv/agent-root');
        const proxied = await startProxied(flags, listen, TALKING_AGENT);
        expect(await talkBack(proxied.client)).toEqual(directly);
        await proxied.stop();
      },
      60_000,
    );
  },
);
