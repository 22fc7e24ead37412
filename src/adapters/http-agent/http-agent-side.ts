import { errorMessage } from '../../domain/error-message.js';
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { finished } from 'node:stream/promises';
import type { AgentSessionHandler, AgentSide, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Logger } from '../../ports/logger.port.js';
import { silentLogger } from '../logging/silent-logger.js';
import { SystemClock } from '../time/system-clock.js';
import { defaultAllowedHosts, HostGuard } from './host-guard.js';
import { HttpSession } from './http-session.js';
import { sendJsonRpcError } from './json-rpc-error.js';
import { seconds, SessionLimits } from './session-limits.js';

/** The default request body limit: 10 MiB, like the stdio agent side. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** How long `close()` waits, at most, for answers still on their way (see `answerGraceMs`). */
export const DEFAULT_ANSWER_GRACE_MS = 1000;

/** The answer to requests once the listener is closing. */
const NOT_SERVING = 'The proxy is not serving';

/** The one path that serves MCP. */
export const MCP_PATH = '/mcp';

/** Settings of an {@link HttpAgentSide}. */
export interface HttpAgentSideOptions {
  /** The interface to bind, e.g. `127.0.0.1` (the CLI's default). */
  host: string;
  /** The port; 0 picks any free port (read it from `address` after `bind()`). */
  port: number;
  /** Accepted Host header values, `host:port`. Default: loopback names for a loopback bind, else host:port. */
  allowedHosts?: string[];
  logger?: Logger;
  /** The largest request body in bytes (default 10 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
  /** At most this many sessions are open at once (default `DEFAULT_MAX_SESSIONS`, 100); more get 503. */
  maxSessions?: number;
  /** A session without a request or an answer for this long is ended (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /** How often idle sessions are looked for (default: every second, or the time-out if shorter). */
  idleSweepMs?: number;
  /** The time source of the idle time-out (default: the system clock). */
  clock?: Clock;
  /**
   * How long `close()` lets answers already on their way reach the agents before it closes their
   * sessions (default 1 s); a call still waiting for the upstream then gets no answer.
   */
  answerGraceMs?: number;
  /** One line for the operator (stderr): a session ended for idleness, the session cap reached. */
  notice?: (line: string) => void;
}

/** Where the agent side listens, once bound. */
export interface HttpListenAddress {
  host: string;
  port: number;
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** A one-line reason why `host:port` cannot be bound. */
function listenFailure(host: string, port: number, error: NodeJS.ErrnoException): Error {
  const where = `${urlHost(host)}:${port}`;
  if (error.code === 'EADDRINUSE')
    return new Error(`cannot listen on ${where}: the port is already in use (EADDRINUSE); choose another --listen port`);
  if (error.code === 'EACCES')
    return new Error(`cannot listen on ${where}: permission denied (EACCES); ports below 1024 need privileges`);
  return new Error(`cannot listen on ${where}: ${error.message}`);
}

/**
 * Agents connect by URL: MCP Streamable HTTP at `/mcp` on `node:http`, stateful. Every `initialize`
 * opens a new MCP session with its own SDK transport, `Server` and handler from `openSession`, so two
 * agents' calls never meet in one handler. Requests are refused with 403 unless their Host header is
 * allowed and their Origin (if any) is loopback or allowed (DNS-rebinding protection). At most
 * `maxSessions` sessions are open at once, and a session idle for `sessionIdleTimeoutMs` is ended as if
 * the agent had disconnected.
 *
 * `bind()` takes the port before the proxy starts its upstream (a busy port then costs nothing). A
 * request that arrives before `serve()` waits for it: MCP clients (the SDK's Streamable HTTP client among
 * them) do not retry `initialize`, so an agent started the moment the port accepts connections must not
 * be turned away. The wait is bounded by the upstream's start-up time-out: if the upstream does not
 * start, `close(refusal)` answers every waiting request 503 with that reason.
 */
export class HttpAgentSide implements AgentSide {
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly limits: SessionLimits;
  private readonly clock: Clock;
  private readonly sessions = new Map<string, HttpSession>();
  /** True once the operator was told that the cap refused a session; reset when a session ends. */
  private capNoticed = false;
  private httpServer: NodeHttpServer | undefined;
  private listening: { address: HttpListenAddress; guard: HostGuard } | undefined;
  /** Makes a candidate session; `counted` runs once it opened (or never will). */
  private newSession: ((counted: () => void) => HttpSession) | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private shuttingDown = false;
  /** Requests that arrived before `serve()`: told undefined once serving, or the refusal on `close()`. */
  private startWaiters: Array<(refusal: string | undefined) => void> = [];
  /** Why waiting and later requests are refused once closed (the upstream did not start, the proxy stops). */
  private closedRefusal = NOT_SERVING;
  /** The answers of requests that waited for `serve()`, until sent. */
  private readonly waitingAnswers = new Set<Promise<void>>();

  constructor(private readonly settings: HttpAgentSideOptions) {
    this.logger = settings.logger ?? silentLogger;
    this.maxBodyBytes = settings.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.limits = new SessionLimits(settings.maxSessions, settings.sessionIdleTimeoutMs);
    this.clock = settings.clock ?? new SystemClock();
  }

  /** Where agents connect; available once `bind()` resolved. */
  get address(): HttpListenAddress {
    if (this.listening === undefined) throw new Error('HttpAgentSide is not listening');
    return this.listening.address;
  }

  /** The number of requests waiting for `serve()` (they arrived while the upstream starts). */
  get waitingRequests(): number {
    return this.startWaiters.length;
  }

  /** The number of open sessions. */
  get openSessions(): number {
    return this.sessions.size;
  }

  /** Binds host:port; requests wait until `serve()` (or `close()`). Rejects with a one-line Error. */
  async bind(): Promise<void> {
    if (this.httpServer !== undefined) return;
    const httpServer = createServer((req, res) => void this.answer(req, res));
    this.httpServer = httpServer;
    const { host, port } = this.settings;
    const bound = await new Promise<number>((resolve, reject) => {
      httpServer.once('error', (error: NodeJS.ErrnoException) => {
        this.httpServer = undefined;
        reject(listenFailure(host, port, error));
      });
      httpServer.listen(port, host, () => resolve((httpServer.address() as AddressInfo).port));
    });
    const guard = new HostGuard(this.settings.allowedHosts ?? defaultAllowedHosts(host, bound));
    const url = `http://${urlHost(host)}:${bound}${MCP_PATH}`;
    this.listening = { address: { host, port: bound, url }, guard };
    this.logger.info({ url }, 'agent side listening');
  }

  /** Binds if not yet bound and starts serving; `openSession` runs once per MCP session. */
  async serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void> {
    if (this.newSession !== undefined) throw new Error('HttpAgentSide is already serving');
    await this.bind();
    this.newSession = (counted) =>
      new HttpSession({
        openSession,
        options,
        logger: this.logger,
        clock: this.clock,
        maxBodyBytes: this.maxBodyBytes,
        onOpened: (sessionId, session) => {
          this.sessions.set(sessionId, session);
          counted();
        },
        onEnded: (sessionId) => {
          this.sessions.delete(sessionId);
          this.capNoticed = false;
        },
        isShuttingDown: () => this.shuttingDown,
      });
    const sweepMs = this.settings.idleSweepMs ?? Math.min(1000, this.limits.idleTimeoutMs);
    this.sweeper = setInterval(() => void this.closeIdleSessions(), sweepMs);
    this.sweeper.unref();
    for (const tell of this.startWaiters.splice(0)) tell(undefined);
  }

  /** Ends every session idle for the time-out or longer (each handler hears `closed` once). */
  async closeIdleSessions(): Promise<void> {
    const idle = this.limits.idle(this.sessions, this.clock.now());
    await Promise.allSettled(
      idle.map(async (sessionId) => {
        const session = this.sessions.get(sessionId);
        if (session === undefined) return;
        this.settings.notice?.(
          `agent session ${sessionId.slice(0, 8)} ended: no request for ${seconds(this.limits.idleTimeoutMs)}; its report is final`,
        );
        await session.close(this.limits.idleDetail);
      }),
    );
  }

  /**
   * Refuses new requests (503), lets answers on their way reach the agents (up to `answerGraceMs`), then
   * closes every session (each handler hears `closed` once), stops listening, drops idle connections.
   * Requests still waiting for `serve()` are answered 503 with `refusal` (default: not serving), e.g.
   * why the upstream did not start.
   */
  async close(refusal?: string): Promise<void> {
    const httpServer = this.httpServer;
    if (httpServer === undefined || this.shuttingDown) return;
    this.shuttingDown = true;
    if (refusal !== undefined) this.closedRefusal = refusal;
    // The refusals must reach the waiting agents before the connections are dropped below.
    const refused = [...this.waitingAnswers];
    for (const tell of this.startWaiters.splice(0)) tell(this.closedRefusal);
    clearInterval(this.sweeper);
    const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    // The proxy ends its sessions first; an answer it has just decided is still on its way to the agent.
    const graceMs = this.settings.answerGraceMs ?? DEFAULT_ANSWER_GRACE_MS;
    await Promise.allSettled([...this.sessions.values()].map((session) => session.answersSent(graceMs)));
    await Promise.allSettled([...this.sessions.values()].map((session) => session.close()));
    await Promise.race([Promise.allSettled(refused), delay(graceMs)]);
    httpServer.closeAllConnections();
    await stopped;
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (error) {
      this.logger.error({ error: errorMessage(error) }, 'HTTP request failed');
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
      else res.end();
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const guard = this.listening?.guard;
    if (guard === undefined || this.shuttingDown) return sendJsonRpcError(res, 503, -32000, this.closedRefusal);
    const refusal = guard.refusal({ host: req.headers.host, origin: req.headers.origin });
    if (refusal !== undefined) {
      this.logger.warn({ host: req.headers.host, origin: req.headers.origin }, 'request refused (DNS-rebinding protection)');
      return sendJsonRpcError(res, 403, -32000, refusal);
    }
    if ((req.url ?? '').split('?')[0] !== MCP_PATH) return sendJsonRpcError(res, 404, -32000, `Not found: use ${MCP_PATH}`);
    const notServing = await this.serving(res);
    const newSession = this.newSession;
    if (notServing !== undefined || newSession === undefined)
      return sendJsonRpcError(res, 503, -32000, notServing ?? NOT_SERVING);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (session === undefined) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      return session.handle(req, res);
    }
    if (req.method === 'POST') return this.openCandidate(req, res, newSession);
    if (req.method === 'GET' || req.method === 'DELETE') {
      return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    return sendJsonRpcError(res, 405, -32000, 'Method not allowed.', { headers: { allow: 'GET, POST, DELETE' } });
  }

  /** Waits until the listener serves: undefined then, or why it never will (it was closed first). */
  private serving(res: ServerResponse): Promise<string | undefined> {
    if (this.newSession !== undefined) return Promise.resolve(undefined);
    if (this.shuttingDown) return Promise.resolve(this.closedRefusal);
    // Until its answer is out (or its connection gone), `close()` waits for it.
    const answered = finished(res).catch(() => undefined);
    this.waitingAnswers.add(answered);
    void answered.then(() => this.waitingAnswers.delete(answered));
    return new Promise((resolve) => this.startWaiters.push(resolve));
  }

  /** A POST without a session id: a new session if it is an `initialize` and the cap allows one more. */
  private async openCandidate(
    req: IncomingMessage,
    res: ServerResponse,
    newSession: (counted: () => void) => HttpSession,
  ): Promise<void> {
    const refusal = this.limits.refusal(this.sessions.size);
    if (refusal !== undefined) {
      this.logger.warn({ open: this.sessions.size, max: this.limits.maxSessions }, 'session refused: too many open sessions');
      if (!this.capNoticed) {
        this.capNoticed = true;
        this.settings.notice?.(`a new agent session was refused: ${this.limits.maxSessions} sessions are open (--max-sessions)`);
      }
      return sendJsonRpcError(res, 503, -32000, refusal);
    }
    // Counted against the cap until it is in `sessions` (or turned out not to be an initialize).
    const release = this.limits.reserve();
    try {
      await newSession(release).handle(req, res);
    } finally {
      release();
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
