/**
 * The real upstream MCP server behind a URL: the shared upstream core (`../upstream-core/`) over
 * Streamable HTTP (falling back to the legacy SSE transport when the server answers the first POST with a
 * 4xx other than 401/403, as the SDK recommends), the given headers on every request. No reconnect: once
 * an exchange fails at the network level (or the session is gone) the upstream is gone for good; an
 * answer over the size limit makes the proxy cut the upstream itself, as on stdio. This side only
 * connects and ends the session.
 */
import type { UpstreamInfo } from '../../ports/upstream-side.port.js';
import { UPSTREAM_DEFAULTS, UpstreamCore, type UpstreamCoreOptions } from '../upstream-core/upstream-core.js';
import { describeConnectFailure, safeUrl, unusableUrl, wantsSseFallback, type FailedAttempt } from './connect-failure.js';
import { describeFailure, type ExchangeFailure } from './exchange-failure.js';
import { connectOver, endSession, type ConnectAttempt, type HttpConnection } from './http-connection.js';
import type { HttpRecordingTransport } from './recording-transport.js';
import { MAX_MESSAGE_BYTES } from '../wire/message-limit.js';

/** Where the upstream is. `connectTimeoutMs` bounds the whole handshake (each transport tried); `graceMs` the DELETE on close. */
export interface HttpUpstreamOptions extends UpstreamCoreOptions {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3001/mcp` (for a legacy SSE server: its SSE URL). */
  url: URL;
  /** Sent exactly so on every request (POST, GET, DELETE, the SSE fallback). Never logged. */
  headers: Record<string, string>;
}

const CANCELLED = 'upstream start-up was cancelled (the proxy is shutting down)';

/** The upstream as a Streamable HTTP (or legacy SSE) endpoint. */
export class HttpUpstreamSide extends UpstreamCore<HttpRecordingTransport, HttpUpstreamOptions> {
  /** Why the proxy itself cut the upstream (an answer over the size limit), once it did. */
  private cutReason: string | undefined;

  constructor(options: HttpUpstreamOptions) {
    super(options);
  }

  /** Connects (Streamable HTTP, then legacy SSE if asked for) and completes the MCP handshake. */
  protected async open(): Promise<UpstreamInfo> {
    const badUrl = unusableUrl(this.options.url);
    if (badUrl !== undefined) {
      this.state = 'gone';
      throw new Error(badUrl);
    }
    const streamable = await this.attempt('streamable');
    if (streamable.ok) return this.opened(streamable.connection);
    let sse: FailedAttempt | undefined;
    if (!this.closeRequested && wantsSseFallback(streamable.failed)) {
      this.options.logger?.info({ url: safeUrl(this.options.url) }, 'no Streamable HTTP at the upstream URL; trying legacy SSE');
      const attempt = await this.attempt('sse');
      if (attempt.ok) return this.opened(attempt.connection);
      sse = attempt.failed;
    }
    this.state = 'gone';
    if (this.closeRequested) throw new Error(CANCELLED);
    const { url } = this.options;
    const connectTimeoutMs = this.connectTimeoutMs();
    throw new Error(describeConnectFailure({ url, connectTimeoutMs, streamable: streamable.failed, ...(sse ? { sse } : {}) }));
  }

  /** One connection attempt over one transport, bounded by the connect timeout as a whole. */
  private attempt(channel: 'streamable' | 'sse'): Promise<ConnectAttempt> {
    const { url, headers, clientName, clientVersion, logger } = this.options;
    const maxMessageBytes = this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    const spec = {
      url,
      headers,
      clientName,
      clientVersion,
      timeoutMs: this.connectTimeoutMs(),
      maxMessageBytes,
      logger,
      ...(this.relay !== undefined ? { relay: this.relay } : {}),
    };
    return connectOver(channel, spec, (connection) => (this.connection = connection));
  }

  private async opened(connection: HttpConnection): Promise<UpstreamInfo> {
    if (this.closeRequested) {
      await connection.close();
      throw new Error(CANCELLED);
    }
    return connection.info();
  }

  /** From now on a fatal failure of the transport ends the side (one that came during the handshake too). */
  protected override onReady(): void {
    const { transport } = this.connection as HttpConnection;
    transport.onunusable = (failure) => this.unusable(failure);
    if (transport.unusable !== undefined) this.unusable(transport.unusable);
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
    this.reportExit({ expected: false, code: null, signal: null, detail: reason });
    const connection = this.connection as HttpConnection;
    // Let replies already read from the network reach the SDK first.
    setImmediate(() => void connection.close());
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
    const connection = this.connection as HttpConnection;
    await endSession(connection.transport, this.graceMs(), this.options.logger);
    await connection.close();
    await new Promise((resolve) => setImmediate(resolve));
    this.reportExit({ expected: false, code: null, signal: null, detail: '' });
  }

  /** Ends the session (DELETE, errors ignored) and closes the client. */
  protected async shutDown(expected: boolean): Promise<void> {
    const wasReady = this.state === 'ready';
    this.state = 'gone';
    const connection = this.connection;
    if (connection !== undefined) {
      if (wasReady) await endSession(connection.transport, this.graceMs(), this.options.logger);
      await connection.close();
    }
    this.reportExit({ expected, code: null, signal: null, detail: '' });
  }

  private connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs;
  }

  private graceMs(): number {
    return this.options.graceMs ?? UPSTREAM_DEFAULTS.graceMs;
  }

  protected goneDetail(): string {
    if (this.cutReason !== undefined) return `the proxy closed the upstream connection: ${this.cutReason}`;
    const exit = this.exit;
    if (exit === undefined) return 'the upstream connection is closing';
    return exit.expected ? 'the upstream connection was closed' : `the upstream is gone (${exit.detail})`;
  }
}
