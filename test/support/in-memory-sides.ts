/**
 * In-memory stand-ins for the ports, so the application's use cases are tested without processes: an
 * upstream whose calls wait until the test answers them (like the SDK's InMemoryTransport, but at the
 * port), and a report sink that keeps every document it was given.
 */
import type { ToolCallRequest, ToolDescriptor } from '../../src/ports/mcp-shapes.js';
import type { ReportDocument, ReportSink } from '../../src/ports/report-sink.port.js';
import type { UpstreamCallOutcome, UpstreamExit, UpstreamInfo, UpstreamSide } from '../../src/ports/upstream-side.port.js';
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
    return {};
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

  async close(): Promise<void> {}
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

function documentText(parts: ReadonlyArray<string | Uint8Array>): string {
  const decoder = new TextDecoder();
  return parts.map((part) => (typeof part === 'string' ? part : decoder.decode(part))).join('');
}

/** A logger that keeps nothing. */
export const SILENT_LOGGER: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A plain tool result with one text block. */
export const okResult = (text = 'ok'): UpstreamCallOutcome => ({ kind: 'result', result: { content: [{ type: 'text', text }] } });
