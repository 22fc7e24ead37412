import { errorMessage } from '../../domain/error-message.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentSessionHandler, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Logger } from '../../ports/logger.port.js';
import { createForwardingServer } from '../agent-core/mcp-server-factory.js';
import { readPostBody } from './request-body.js';
import { sendJsonRpcError } from './json-rpc-error.js';
import { RequestIdsInFlight } from './request-ids-in-flight.js';

/** What every session of one listener shares. */
export interface HttpSessionContext {
  openSession: (sessionId: string) => AgentSessionHandler;
  options: AgentSideOptions;
  logger: Logger;
  /** Reads the time of each request and answer, for the idle time-out. */
  clock: Clock;
  /** The largest request body in bytes; a larger one is answered 413 by the SDK. */
  maxBodyBytes: number;
  /** Called once the `initialize` request created the session id and its handler. */
  onOpened: (sessionId: string, session: HttpSession) => void;
  /** Called once when an opened session ended. */
  onEnded: (sessionId: string) => void;
  /** True while the listener is shutting down: no new session may open. */
  isShuttingDown: () => boolean;
}

function describe(error: unknown): string {
  return errorMessage(error);
}

/**
 * One candidate MCP session over Streamable HTTP. It is created for a POST without a session id and
 * becomes a session only if that POST is an `initialize`: only then are the handler (`openSession`) and
 * the SDK `Server` made. Its handler hears `closed({ kind: 'disconnected' })` exactly once, whether the
 * agent sent DELETE, the proxy closed it, or it was idle too long.
 *
 * Activity, for the idle time-out: every HTTP request of the session and every answer to a `tools/call`.
 * A call waiting for the upstream keeps the session busy; an open GET event stream alone does not (the
 * MCP inspector keeps one open for as long as its tab lives).
 *
 * A POST that reuses the id of a request still in flight in this session is refused `-32600` and not
 * executed: the SDK transport routes answers by id, so the first request's answer would go to the second
 * POST and the second's would be lost (`request-ids-in-flight.ts`). A POST whose last unanswered request
 * the agent cancelled is ended (the SDK would wait for an answer that never comes).
 */
export class HttpSession {
  private readonly transport: StreamableHTTPServerTransport;
  private opened: { sessionId: string; handler: AgentSessionHandler } | undefined;
  private ended = false;
  private endDetail = 'closed by the proxy';
  private endedByAgent = false;
  private lastActivityMs: number;
  private callsInFlight = 0;
  private readonly idsInFlight = new RequestIdsInFlight();
  /** `answersSent` callers, told once no request awaits its answer (or the session ended). */
  private answerWaiters: Array<() => void> = [];

  constructor(private readonly context: HttpSessionContext) {
    this.lastActivityMs = context.clock.now();
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: context.maxBodyBytes,
      onsessioninitialized: (sessionId) => this.open(sessionId),
      onsessionclosed: () => {
        this.endDetail = 'the agent ended the session (DELETE)';
        this.endedByAgent = true;
      },
    });
    // Set before the SDK connects, so it runs before the SDK aborts the requests in flight.
    this.transport.onclose = () => this.end();
    // Every answer the SDK sends frees its id (the SDK calls `send` through the property).
    const send = this.transport.send.bind(this.transport);
    this.transport.send = async (message, options) => {
      try {
        await send(message, options);
      } finally {
        const closeBy = this.idsInFlight.answered(message);
        if (closeBy !== undefined) this.transport.closeSSEStream(closeBy);
        this.tellIfAnswered();
      }
    };
  }

  /** Lets the SDK transport answer one HTTP request of this session. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.lastActivityMs = this.context.clock.now();
    if (req.method !== 'POST') return this.transport.handleRequest(req, res);
    const body = await readPostBody(req, res, this.context.maxBodyBytes);
    if (body.kind === 'unread') return this.transport.handleRequest(req, res);
    if (body.kind !== 'parsed') return;
    const taken = this.idsInFlight.take(body.value);
    if (taken.kind === 'clash') {
      this.context.logger.warn({ id: taken.idJson }, 'agent reused the id of a request in flight; refused');
      const message = `Invalid Request: id ${taken.idJson} is already used by a request in flight`;
      return sendJsonRpcError(res, 400, -32600, message, { idJson: taken.idJson });
    }
    try {
      await this.transport.handleRequest(req, res, body.value);
    } finally {
      // Refused by the SDK before any request ran (a 4xx): no answer will free these ids.
      if (res.statusCode >= 400) this.idsInFlight.release(taken.ids);
    }
    // A cancelled request gets no answer (MCP), so the SDK would keep its POST's stream open for good.
    for (const id of taken.cancels) {
      const closeBy = this.idsInFlight.cancelled(id);
      if (closeBy !== undefined) this.transport.closeSSEStream(closeBy);
    }
    this.tellIfAnswered();
  }

  /**
   * How long (ms) the session has been idle at `nowMs`: 0 while a `tools/call` is in flight, else the
   * time since its last request or answer.
   */
  idleMs(nowMs: number): number {
    return this.callsInFlight > 0 ? 0 : Math.max(0, nowMs - this.lastActivityMs);
  }

  /**
   * Resolves once every request of the session has had its answer sent (or the session ended), or after
   * `maxMs`: a proxy that stops closes the session only after answers already decided went out.
   */
  answersSent(maxMs: number): Promise<void> {
    if (this.ended || this.idsInFlight.idle) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      timer.unref();
      this.answerWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private tellIfAnswered(): void {
    if (this.answerWaiters.length === 0) return; // nobody waits (the proxy is not stopping): every answer passes here
    if (this.ended || this.idsInFlight.idle) for (const tell of this.answerWaiters.splice(0)) tell();
  }

  /** Ends the session from the proxy's side; `detail` says why (default: the proxy closed it). */
  async close(detail?: string): Promise<void> {
    if (detail !== undefined && !this.ended) this.endDetail = detail;
    await this.transport.close();
  }

  private async open(sessionId: string): Promise<void> {
    if (this.context.isShuttingDown()) throw new Error('the proxy is shutting down');
    const handler = this.trackCalls(this.context.openSession(sessionId));
    this.opened = { sessionId, handler };
    const logger = this.context.logger;
    const server = createForwardingServer(handler, this.context.options, { logger, isClosed: () => this.ended });
    await server.connect(this.transport);
    logger.info({ sessionId }, 'agent session opened');
    this.context.onOpened(sessionId, this);
  }

  /** The handler with its requests counted: a call (or forwarded request) in flight keeps the session from idling out. */
  private trackCalls(handler: AgentSessionHandler): AgentSessionHandler {
    const counted = async <T>(work: () => Promise<T>): Promise<T> => {
      this.callsInFlight++;
      try {
        return await work();
      } finally {
        this.callsInFlight--;
        this.lastActivityMs = this.context.clock.now();
      }
    };
    const forward = handler.forward?.bind(handler);
    return {
      listTools: () => handler.listTools(),
      closed: (reason) => handler.closed(reason),
      callTool: (request, context) => counted(() => handler.callTool(request, context)),
      ...(forward === undefined ? {} : { forward: (method, params, context) => counted(() => forward(method, params, context)) }),
      ...(handler.attach === undefined ? {} : { attach: handler.attach.bind(handler) }),
      ...(handler.notified === undefined ? {} : { notified: handler.notified.bind(handler) }),
    };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.tellIfAnswered();
    if (this.opened === undefined) return;
    const { sessionId, handler } = this.opened;
    this.context.logger.info({ sessionId, detail: this.endDetail }, 'agent session ended');
    try {
      handler.closed({ kind: 'disconnected', detail: this.endDetail, ...(this.endedByAgent ? { byAgent: true } : {}) });
    } catch (error) {
      this.context.logger.error({ error: describe(error) }, 'session close handler threw');
    }
    this.context.onEnded(sessionId);
  }
}
