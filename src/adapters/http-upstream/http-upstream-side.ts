/**
 * The real upstream MCP server behind a URL: an SDK `Client` over Streamable HTTP (falling back to the
 * legacy SSE transport when the server answers the first POST with a 4xx other than 401/403, as the SDK
 * recommends), the given headers on every request, every request forwarded verbatim with a loose result
 * schema and every way a call can end mapped to an outcome. No reconnect: once an exchange fails at the
 * network level (or the session is gone) the upstream is gone for good; an answer over the size limit
 * makes the proxy cut the upstream itself, as on stdio.
 */
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../ports/logger.port.js';
import { ExitNotice, toolCallParams } from '../upstream-client.js';
import type { ToolCallRequest, ToolDescriptor } from '../../ports/mcp-shapes.js';
import type {
  UpstreamCallOptions,
  UpstreamCallOutcome,
  UpstreamExit,
  UpstreamInfo,
  UpstreamSide,
} from '../../ports/upstream-side.port.js';
import { describeOutcome, oneLine } from '../stdio-upstream/outcome-text.js';
import { collectToolPages } from '../stdio-upstream/tool-pages.js';
import { describeConnectFailure, safeUrl, unusableUrl, wantsSseFallback, type FailedAttempt } from './connect-failure.js';
import { describeFailure, type ExchangeFailure } from './exchange-failure.js';
import { outcomeOfHttpFailure } from './http-call-outcome.js';
import { connectOver, endSession, upstreamInfo, type ConnectAttempt, type HttpConnection } from './http-connection.js';
import { MAX_MESSAGE_BYTES } from '../message-limit.js';

/** Where the upstream is and how long to wait for it. */
export interface HttpUpstreamOptions {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3001/mcp` (for a legacy SSE server: its SSE URL). */
  url: URL;
  /** Sent exactly so on every request (POST, GET, DELETE, the SSE fallback). Never logged. */
  headers: Record<string, string>;
  /** Per-request wait for `tools/list` pages (calls take theirs from `callTool`). Default 60 000. */
  callTimeoutMs?: number;
  /** Wait for the whole handshake (each transport tried). Default 60 000. */
  connectTimeoutMs?: number;
  /** Longest wait for the session's DELETE on close. Default 2000. */
  graceMs?: number;
  /** Largest accepted upstream message (a JSON answer body, one SSE event's data). Default 10 MiB. */
  maxMessageBytes?: number;
  clientName: string;
  clientVersion: string;
  logger?: Logger;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_GRACE_MS = 2_000;

/** The upstream as a Streamable HTTP (or legacy SSE) endpoint. */
export class HttpUpstreamSide implements UpstreamSide {
  private state: 'new' | 'connecting' | 'ready' | 'gone' = 'new';
  private connection: HttpConnection | undefined;
  private closeRequested = false;
  private ending: Promise<void> | undefined;
  /** Why the proxy itself cut the upstream (an answer over the size limit), once it did. */
  private cutReason: string | undefined;
  private readonly exitNotice: ExitNotice;

  constructor(private readonly options: HttpUpstreamOptions) {
    this.exitNotice = new ExitNotice(options.logger);
  }

  /** Connects (Streamable HTTP, then legacy SSE if asked for) and completes the MCP handshake. */
  async connect(): Promise<UpstreamInfo> {
    if (this.state !== 'new') throw new Error(`upstream connect() called twice (state: ${this.state})`);
    const badUrl = unusableUrl(this.options.url);
    if (badUrl !== undefined) {
      this.state = 'gone';
      throw new Error(badUrl);
    }
    this.state = 'connecting';
    const streamable = await this.attempt('streamable');
    if (streamable.ok) return this.ready(streamable.connection);
    let sse: FailedAttempt | undefined;
    if (!this.closeRequested && wantsSseFallback(streamable.failed)) {
      this.options.logger?.info({ url: safeUrl(this.options.url) }, 'no Streamable HTTP at the upstream URL; trying legacy SSE');
      const attempt = await this.attempt('sse');
      if (attempt.ok) return this.ready(attempt.connection);
      sse = attempt.failed;
    }
    this.state = 'gone';
    if (this.closeRequested) throw new Error('upstream start-up was cancelled (the proxy is shutting down)');
    const { url } = this.options;
    const connectTimeoutMs = this.connectTimeoutMs();
    throw new Error(describeConnectFailure({ url, connectTimeoutMs, streamable: streamable.failed, ...(sse ? { sse } : {}) }));
  }

  /** Every tool of every page, verbatim; throws a one-line Error when a page cannot be read. */
  async listTools(): Promise<ToolDescriptor[]> {
    const timeoutMs = this.options.callTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    return collectToolPages(async (cursor) => {
      if (this.state !== 'ready') throw new Error(`upstream tools/list failed: ${this.unavailableDetail()}`);
      const outcome = await this.forward('tools/list', cursor === undefined ? {} : { cursor }, { timeoutMs });
      if (outcome.kind === 'result') return outcome.result;
      throw new Error(oneLine(`upstream tools/list failed: ${describeOutcome(outcome)}`));
    }, this.options.logger);
  }

  /** Forwards `tools/call` verbatim; never rejects. */
  async callTool(request: ToolCallRequest, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    if (this.state !== 'ready') return { kind: 'unavailable', detail: this.unavailableDetail() };
    return this.forward('tools/call', toolCallParams(request), options);
  }

  /** Registers a listener for the upstream going away; called at once if it is already gone. */
  onExit(listener: (exit: UpstreamExit) => void): void {
    this.exitNotice.listen(listener);
  }

  /** Ends the session (DELETE, errors ignored) and closes the client. Idempotent. */
  close(): Promise<void> {
    this.closeRequested = true;
    this.ending ??= this.runClose();
    return this.ending;
  }

  /** One connection attempt over one transport, bounded by the connect timeout as a whole. */
  private attempt(channel: 'streamable' | 'sse'): Promise<ConnectAttempt> {
    const { url, headers, clientName, clientVersion, logger } = this.options;
    const maxMessageBytes = this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    const spec = { url, headers, clientName, clientVersion, timeoutMs: this.connectTimeoutMs(), maxMessageBytes, logger };
    return connectOver(channel, spec, (connection) => (this.connection = connection));
  }

  private async ready(connection: HttpConnection): Promise<UpstreamInfo> {
    if (this.closeRequested) {
      await connection.client.close().catch(() => undefined);
      throw new Error('upstream start-up was cancelled (the proxy is shutting down)');
    }
    this.state = 'ready';
    const { client, transport } = connection;
    transport.onunusable = (failure) => this.unusable(failure);
    if (transport.unusable !== undefined) this.unusable(transport.unusable);
    return upstreamInfo(client);
  }

  /** Sends one request with the loose result schema and maps how it ended, using the raw reply. */
  private async forward(
    method: string,
    params: Record<string, unknown>,
    { timeoutMs, signal }: UpstreamCallOptions,
  ): Promise<UpstreamCallOutcome> {
    const { client, transport } = this.connection as HttpConnection;
    transport.ledger.track(params);
    const settled = await client
      .request({ method, params }, ResultSchema, { timeout: timeoutMs, signal })
      .then((result) => ({ ok: true as const, result }), (error: unknown) => ({ ok: false as const, error }));
    const { reply } = transport.ledger.release(params);
    // The raw reply decides: even when the SDK gave up a moment before, the upstream did answer.
    if (reply?.kind === 'result') return { kind: 'result', result: reply.result };
    if (settled.ok) return { kind: 'result', result: settled.result };
    const aborted = signal?.aborted ?? false;
    return outcomeOfHttpFailure({ error: settled.error, reply, aborted, timeoutMs, unusable: transport.unusable });
  }

  /** An answer over the size limit is cut by the proxy; any other fatal failure means the upstream is gone. */
  private unusable(failure: ExchangeFailure): void {
    if (failure.kind === 'too-large') this.cut(failure.text);
    else this.lose(failure);
  }

  /** The upstream became unusable: no reconnect; pending requests end as connection-lost. */
  private lose(failure: ExchangeFailure): void {
    if (this.state !== 'ready') return;
    this.state = 'gone';
    const reason = describeFailure(failure);
    this.options.logger?.warn({ reason }, 'the HTTP upstream is gone');
    this.report({ expected: false, code: null, signal: null, stderrTail: reason });
    const { client } = this.connection as HttpConnection;
    // Let replies already read from the network reach the SDK first.
    setImmediate(() => void client.close().catch(() => undefined));
  }

  /**
   * An answer was over the size limit: the proxy ends the upstream as the stdio side does after its
   * transport closed. Later calls are unavailable at once; the session is ended (DELETE, bounded), the
   * client closed (pending requests end too-large), and only then is the exit reported, so that whoever
   * got a too-large outcome has seen it before hearing that the upstream is gone. A `close()` meanwhile
   * waits for this instead of reporting an expected end.
   */
  private cut(reason: string): void {
    if (this.state !== 'ready') return;
    this.state = 'gone';
    this.cutReason = reason;
    this.options.logger?.warn({ reason }, 'closing the HTTP upstream: its answer was too large');
    this.ending ??= this.runCut();
  }

  private async runCut(): Promise<void> {
    const { client, transport } = this.connection as HttpConnection;
    await endSession(transport, this.options.graceMs ?? DEFAULT_GRACE_MS, this.options.logger);
    await client.close().catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    this.report({ expected: false, code: null, signal: null, stderrTail: '' });
  }

  private async runClose(): Promise<void> {
    const wasReady = this.state === 'ready';
    this.state = 'gone';
    const connection = this.connection;
    if (connection !== undefined) {
      if (wasReady) await endSession(connection.transport, this.options.graceMs ?? DEFAULT_GRACE_MS, this.options.logger);
      await connection.client.close().catch(() => undefined);
    }
    this.report({ expected: true, code: null, signal: null, stderrTail: '' });
  }

  private report(exit: UpstreamExit): void {
    this.exitNotice.fire(exit);
  }

  private connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private unavailableDetail(): string {
    if (this.state === 'new' || this.state === 'connecting') return 'the upstream is not connected yet';
    if (this.cutReason !== undefined) return `the proxy closed the upstream connection: ${this.cutReason}`;
    const exit = this.exitNotice.report;
    if (exit === undefined) return 'the upstream connection is closing';
    return exit.expected ? 'the upstream connection was closed' : `the upstream is gone (${exit.stderrTail})`;
  }
}
