/**
 * In-memory stand-ins for the ports, so the application's use cases are tested without processes: an
 * upstream whose calls wait until the test answers them (like the SDK's InMemoryTransport, but at the
 * port), and a report sink that keeps every document it was given.
 */
import type { ToolCallRequest, ToolDescriptor } from '../../src/ports/shapes/mcp-shapes.js';
import type { ReportDocument, ReportSink } from '../../src/ports/report-sink.port.js';
import type { ReportTarget } from '../../src/ports/report-target.port.js';
import type { UpstreamCallOutcome, UpstreamExit, UpstreamInfo, UpstreamSide } from '../../src/ports/upstream-side.port.js';
import type { AgentCloseReason, AgentSessionHandler, AgentSide, AgentSideOptions } from '../../src/ports/agent-side.port.js';
import type { Logger } from '../../src/ports/logger.port.js';

/** One call the upstream received and has not answered yet. */
export interface HeldCall {
  request: ToolCallRequest;
  answer(outcome: UpstreamCallOutcome): void;
}

/** An upstream that lists the given tools and holds every call until the test answers it. */
export class HeldUpstream implements UpstreamSide {
  readonly held: HeldCall[] = [];
  private readonly exits: Array<(exit: UpstreamExit) => void> = [];
  private waiting: Array<() => void> = [];

  constructor(private readonly tools: ToolDescriptor[] = []) {}

  async connect(): Promise<UpstreamInfo> {
    if (this.failConnect !== null) throw new Error(this.failConnect);
    return { instructions: 'book carefully' };
  }

  async listTools(): Promise<ToolDescriptor[]> {
    return this.tools;
  }

  callTool(request: ToolCallRequest): Promise<UpstreamCallOutcome> {
    return new Promise((resolve) => {
      this.held.push({ request, answer: resolve });
      for (const wake of this.waiting.splice(0)) wake();
    });
  }

  /** Resolves once `count` calls in total have reached the upstream. */
  async received(count: number): Promise<HeldCall[]> {
    while (this.held.length < count) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.held;
  }

  onExit(listener: (exit: UpstreamExit) => void): void {
    this.exits.push(listener);
  }

  closed = false;
  failConnect: string | null = null;

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The upstream goes away by itself. */
  exit(exit: UpstreamExit): void {
    for (const listener of this.exits) listener(exit);
  }
}

/** A report sink that keeps every published document, parsed. */
export class MemorySink implements ReportSink {
  readonly documents: Array<Record<string, any>> = [];

  publish(document: ReportDocument): Promise<void> {
    const text = typeof document === 'string' ? document : documentText(document);
    this.documents.push(JSON.parse(text) as Record<string, any>);
    return Promise.resolve();
  }

  get last(): Record<string, any> | undefined {
    return this.documents.at(-1);
  }
}

/**
 * A report target in memory: each session's report goes to `sinkFor`'s sink, nothing is written before a
 * session opens unless `startupSink` says where, and no file is named unless `pathFor` and `location` name one.
 */
export function memoryTarget(
  sinkFor: (sessionId: string, ordinal: number) => ReportSink,
  options: Partial<Pick<ReportTarget, 'startupSink' | 'location' | 'pathFor'>> = {},
): ReportTarget {
  return {
    startupSink: options.startupSink ?? null,
    location: options.location,
    sinkFor,
    pathFor: options.pathFor ?? (() => undefined),
  };
}

function documentText(parts: ReadonlyArray<string | Uint8Array>): string {
  const decoder = new TextDecoder();
  return parts.map((part) => (typeof part === 'string' ? part : decoder.decode(part))).join('');
}

/** A logger that keeps nothing. */
export const SILENT_LOGGER: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A plain tool result with one text block. */
export const okResult = (text = 'ok'): UpstreamCallOutcome => ({ kind: 'result', result: { content: [{ type: 'text', text }] } });

/**
 * An agent side in memory: `connect()` opens one agent session the way a transport would, and the test
 * calls the handler directly (what the SDK's InMemoryTransport gives a client, at the port).
 */
export class InMemoryAgentSide implements AgentSide {
  private openSession: ((sessionId: string) => AgentSessionHandler) | null = null;
  private readonly handlers = new Map<string, AgentSessionHandler>();
  private onGone: ((reason: AgentCloseReason) => void) | null = null;
  options: AgentSideOptions | null = null;
  closedByProxy = false;

  async serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void> {
    this.openSession = openSession;
    this.options = options;
  }

  watchBeforeServe(onGone: (reason: AgentCloseReason) => void): void {
    this.onGone = onGone;
  }

  /** An agent connects: the proxy opens its session. */
  connect(sessionId = `session-${this.handlers.size + 1}`): AgentSessionHandler {
    if (this.openSession === null) throw new Error('the proxy is not serving yet');
    const handler = this.openSession(sessionId);
    this.handlers.set(sessionId, handler);
    return handler;
  }

  /** The agent goes away (before serving: during start-up). */
  disconnect(sessionId?: string, reason: AgentCloseReason = { kind: 'disconnected' }): void {
    if (sessionId === undefined) {
      this.onGone?.(reason);
      return;
    }
    this.handlers.get(sessionId)?.closed(reason);
    this.handlers.delete(sessionId);
  }

  async close(): Promise<void> {
    this.closedByProxy = true;
  }
}
