/**
 * The proxy in-process with its real adapters, for matrices that would otherwise spawn a process per cell
 * ("Faster, sharper tests"). The wiring mirrors `src/cli/proxy-run.ts`: the proxy flags are
 * parsed by the CLI's own `parseProxyFlags`, and `ProxyService` runs between
 * - the agent side: the real stdio agent side over two in-process pipes (an SDK `Client` on the other end),
 *   or the real Streamable HTTP agent side listening on 127.0.0.1:0 (SDK clients over HTTP);
 * - the upstream side: the real HTTP upstream side in front of an in-process MCP server served on
 *   127.0.0.1:0, or the stdio upstream's own transport (`ProcessTransport`: line framing, reply ledger)
 *   and client connection over in-process pipes instead of a child's stdin/stdout.
 * The upstream MCP servers are the bundled booking example (its own `BookingStore`, `Ledger` and tool
 * handlers, the ledger counting every executed write) or the counting upstream of the e2e fixtures
 * (every executed call recorded, reads too). What only real processes show — spawning, signals, exit
 * codes, the compiled CLI — stays in `e2e/`.
 */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { BookingStore } from '../../examples/booking-server/booking-store.js';
import { serveHttp, type HttpEndpoint } from '../../examples/booking-server/http-mode.js';
import { InFlight } from '../../examples/booking-server/in-flight.js';
import { Ledger, type LedgerEntry } from '../../examples/booking-server/ledger.js';
import { createBookingServer } from '../../examples/booking-server/mcp-server.js';
import { HttpAgentSide } from '../../src/adapters/http-agent/index.js';
import { HttpUpstreamSide } from '../../src/adapters/http-upstream/index.js';
import { MAX_MESSAGE_BYTES } from '../../src/adapters/wire/message-limit.js';
import { SeededRandom } from '../../src/adapters/time/seeded-random.js';
import { StdioAgentSide } from '../../src/adapters/stdio-agent/index.js';
import { ProcessTransport } from '../../src/adapters/stdio-upstream/process-transport.js';
import { SystemClock } from '../../src/adapters/time/system-clock.js';
import { ClientConnection } from '../../src/adapters/upstream-core/client-connection.js';
import { UpstreamCore, type UpstreamCoreOptions } from '../../src/adapters/upstream-core/upstream-core.js';
import { ProxyService, type ProxyExit } from '../../src/app/proxy/proxy-service.js';
import { readArgv } from '../../src/cli/argv.js';
import { parseProxyFlags, PROXY_FLAGS } from '../../src/cli/proxy-flags.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { Timer } from '../../src/ports/timer.port.js';
import type { UpstreamInfo, UpstreamSide } from '../../src/ports/upstream-side.port.js';
import type { ReportFile } from './proxy-harness.js';
import { connectHttpAgent, type HttpAgent } from './http-harness.js';
import { MemorySink, memoryTarget, SILENT_LOGGER } from './in-memory-sides.js';

export type Side = 'stdio' | 'HTTP';

/** An in-process upstream MCP server: a new SDK `Server` per connection, all sharing one state. */
export interface UpstreamServer {
  newServer(): Server;
}

/** The bundled booking example in-process; `bookings(guest)` reads its ledger (executed writes only). */
export class BookingUpstream implements UpstreamServer {
  readonly entries: LedgerEntry[] = [];
  private readonly inFlight = new InFlight();
  private readonly deps;

  constructor(writeDelayMs = 0) {
    const entries = this.entries;
    const ledger = new (class extends Ledger {
      override record(tool: string, args: Record<string, unknown>, bookingId: string): LedgerEntry {
        const entry = super.record(tool, args, bookingId);
        entries.push(entry);
        return entry;
      }
    })(undefined);
    this.deps = { store: new BookingStore(), ledger, writeDelayMs };
  }

  newServer(): Server {
    return createBookingServer(this.deps, this.inFlight);
  }

  /** Executed `create_booking` calls, optionally of one guest. */
  bookings(guest?: string): LedgerEntry[] {
    return this.entries.filter(
      (entry) => entry.tool === 'create_booking' && (guest === undefined || entry.arguments['guest'] === guest),
    );
  }
}

/** The counting fixture's default tools (e2e/fixtures/lib/serve-counting.mjs): no annotations. */
export const COUNTING_TOOLS = [
  {
    name: 'create_order',
    description: 'Creates an order. A write by name; carries an idempotency key field.',
    inputSchema: {
      type: 'object' as const,
      properties: { item: { type: 'string' }, quantity: { type: 'integer' }, idempotency_key: { type: 'string' } },
    },
  },
  {
    name: 'get_order',
    description: 'Reads one order by id.',
    inputSchema: { type: 'object' as const, properties: { order_id: { type: 'string' } } },
  },
  {
    name: 'search_orders',
    description: 'Finds orders matching a query.',
    inputSchema: { type: 'object' as const, properties: { query: { type: 'string' } } },
  },
  {
    name: 'sync_ledger',
    description: 'Synchronises the ledger (neither a read nor a write by name: unclassified).',
    inputSchema: { type: 'object' as const, properties: {} },
  },
];

/** The counting upstream in-process: every call of a listed tool executes, is recorded, answers "ok <tool> #<n>". */
export class CountingUpstream implements UpstreamServer {
  readonly ledger: Array<{ tool: string; n: number; arguments: Record<string, unknown> }> = [];
  private readonly counts = new Map<string, number>();

  newServer(): Server {
    const server = new Server({ name: 'counting-server', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: COUNTING_TOOLS }));
    server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
      const { name } = request.params;
      if (!COUNTING_TOOLS.some((tool) => tool.name === name))
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const n = (this.counts.get(name) ?? 0) + 1;
      this.counts.set(name, n);
      this.ledger.push({ tool: name, n, arguments: request.params.arguments ?? {} });
      return { content: [{ type: 'text', text: `ok ${name} #${n}` }] };
    });
    return server;
  }
}

const CLIENT = { clientName: 'cuonztech-agent-harness', clientVersion: 'test', callTimeoutMs: 30_000, connectTimeoutMs: 10_000 };

/**
 * The stdio upstream side's transport and client connection (`ProcessTransport` + `ClientConnection`,
 * the shared upstream core) over two in-process pipes to an SDK server on the SDK's stdio transport:
 * everything the stdio side does but spawning and ending a process.
 */
export class PipedUpstreamSide extends UpstreamCore<ProcessTransport, UpstreamCoreOptions> {
  private readonly toServer = new PassThrough();
  private readonly fromServer = new PassThrough();
  private server: Server | undefined;

  constructor(private readonly upstream: UpstreamServer) {
    super({ ...CLIENT, logger: SILENT_LOGGER });
  }

  protected async open(): Promise<UpstreamInfo> {
    this.server = this.upstream.newServer();
    await this.server.connect(new StdioServerTransport(this.toServer, this.fromServer));
    const transport = new ProcessTransport({ stdin: this.toServer, stdout: this.fromServer, maxMessageBytes: MAX_MESSAGE_BYTES });
    transport.onclose = () => {
      if (transport.closeCause?.kind !== 'local') void this.end(false);
    };
    this.connection = new ClientConnection(transport, this.options);
    await this.connection.connect(CLIENT.connectTimeoutMs);
    return this.connection.info();
  }

  protected async shutDown(expected: boolean): Promise<void> {
    this.state = 'gone';
    await this.connection?.close();
    await this.server?.close();
    this.toServer.end();
    this.fromServer.end();
    this.reportExit({ expected, code: 0, signal: null, detail: '' });
  }

  protected goneDetail(): string {
    return 'the upstream has exited';
  }
}

/** A stdio agent: an SDK client on the other end of the proxy's stdin/stdout pipes. */
export interface StdioAgent {
  client: Client;
  sessionId: 'stdio';
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Closes the client and the proxy's stdin (EOF): the session ends, and with it a stdio proxy. */
  end(): Promise<void>;
}

export interface RigOptions {
  agent: Side;
  upstream: Side;
  server: UpstreamServer;
  /** Proxy flags besides the upstream flags, e.g. `--scenario F1` (parsed by the CLI's parser). */
  flags?: string[];
  /** Clock and timer of the proxy (default: the system clock). */
  clock?: Clock & Timer;
}

/** A running in-process proxy. */
export interface ProxyRig {
  service: ProxyService;
  /** The lines the proxy printed (stderr's notices). */
  notices: string[];
  /** The one stdio agent (stdio agent side only). */
  connectStdio(): Promise<StdioAgent>;
  /** A new agent session over Streamable HTTP (HTTP agent side only). */
  connectHttp(name?: string): Promise<HttpAgent>;
  /** The last report document published for a session ('stdio' for the stdio agent). */
  report(sessionId: string): ReportFile;
  /** Stops the proxy as a signal would (`--listen`), or waits for the stdio proxy's end. */
  stop(reason?: string): Promise<ProxyExit>;
}

/** Starts the proxy in-process in front of `server`; the caller ends it (`stop`), which also closes the HTTP endpoint. */
export async function startRig(options: RigOptions): Promise<ProxyRig> {
  let endpoint: HttpEndpoint | undefined;
  let upstreamSide: UpstreamSide;
  if (options.upstream === 'HTTP') {
    endpoint = await serveHttp(0, () => options.server.newServer());
    upstreamSide = new HttpUpstreamSide({ url: new URL(endpoint.url), headers: {}, ...CLIENT, logger: SILENT_LOGGER });
  } else {
    upstreamSide = new PipedUpstreamSide(options.server);
  }
  const upstreamFlags = endpoint === undefined ? ['--upstream-command', 'in-process'] : ['--upstream-url', endpoint.url];
  // --listen needs --report-dir to parse; the reports go to in-memory sinks here.
  const listen = options.agent === 'HTTP' ? ['--listen', '127.0.0.1:0', '--report-dir', 'unused'] : [];
  const argv = [...upstreamFlags, ...listen, ...(options.flags ?? [])];
  const flags = parseProxyFlags(readArgv(argv, new Set(PROXY_FLAGS), new Set()).values);
  const notices: string[] = [];
  const notice = (line: string): void => void notices.push(line);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const httpSide =
    options.agent === 'HTTP'
      ? new HttpAgentSide({
          host: '127.0.0.1',
          port: 0,
          logger: SILENT_LOGGER,
          notice,
          ...(flags.maxSessions !== undefined ? { maxSessions: flags.maxSessions } : {}),
          ...(flags.sessionIdleTimeoutMs !== undefined ? { sessionIdleTimeoutMs: flags.sessionIdleTimeoutMs } : {}),
        })
      : undefined;
  await httpSide?.bind();
  const clock = options.clock ?? new SystemClock();
  // A fixed seed unless --seed is given: the same draws on every run of the test.
  const random = SeededRandom.fromSeed(flags.seed ?? 7);
  const seeded = flags.scenario.mode === 'chaos' || flags.scenario.latency !== undefined;
  const sinks = new Map<string, MemorySink>();
  const service = new ProxyService(
    {
      upstream: upstreamSide,
      agentSide: httpSide ?? new StdioAgentSide({ stdin, stdout }, { logger: SILENT_LOGGER }),
      reportTarget: memoryTarget((sessionId) => {
        const sink = new MemorySink();
        sinks.set(sessionId, sink);
        return sink;
      }),
      clock,
      timer: clock,
      random,
      logger: SILENT_LOGGER,
      notice,
    },
    {
      scenario: seeded ? { ...flags.scenario, seed: random.seed } : flags.scenario,
      keyFields: flags.keyFields,
      classification: flags.classification,
      auditTools: flags.auditTools,
      callTimeoutMs: flags.upstreamTimeoutMs,
      drainMs: 2_000,
      harnessVersion: 'test',
      serverName: 'cuonztech-agent-harness',
      stopWhenSessionEnds: httpSide === undefined,
    },
  );
  void service.done.then(() => endpoint?.close());
  try {
    await service.start();
  } catch (error) {
    await endpoint?.close();
    throw error;
  }
  const sinkOf = (sessionId: string): MemorySink => {
    const sink = sinks.get(sessionId);
    if (sink === undefined) throw new Error(`no report for session ${sessionId}`);
    return sink;
  };
  return {
    service,
    notices,
    async connectStdio() {
      if (httpSide !== undefined) throw new Error('this proxy listens on HTTP');
      const client = new Client({ name: 'in-process-agent', version: '1.0.0' });
      await client.connect(new StdioServerTransport(stdout, stdin), { timeout: 10_000 });
      return {
        client,
        sessionId: 'stdio',
        call: async (name, args = {}) =>
          (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult,
        async end() {
          await client.close();
          stdin.end();
          await service.done;
        },
      };
    },
    connectHttp(name) {
      if (httpSide === undefined) throw new Error('this proxy serves one stdio agent');
      return connectHttpAgent(httpSide.address.url, name);
    },
    report: (sessionId) => sinkOf(sessionId).last as ReportFile,
    stop: (reason = 'received SIGTERM') => (httpSide === undefined ? service.done : service.stop(reason)),
  };
}
