/**
 * The recording tap: an `UpstreamSide` in front of the real one that writes what passes through it into a
 * recording (`docs/replay.md`), as JSON-RPC messages: `initialize` and its result (the server's info and
 * instructions), `tools/list` and every tool of every page (as one answer), each `tools/call` with its
 * progress notifications and its answer (a result or a JSON-RPC error), or how it ended without one. The
 * JSON-RPC ids are the recording's own (1, 2, … in order of sending); the transports' headers are never
 * seen here, so never stored. `redact` fields are replaced at any depth before a line is written.
 * Everything is passed on unchanged: the tap never alters what the upstream executes or answers.
 */
import { errorMessage as errorText } from '../../domain/error-message.js';
import type { AgentPeer } from '../../ports/agent-side.port.js';
import type { ToolCallRequest, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type {
  UpstreamCallOptions,
  UpstreamCallOutcome,
  UpstreamExit,
  UpstreamInfo,
  UpstreamSide,
} from '../../ports/upstream-side.port.js';
import type { ChatRequest } from '../../ports/chat-model.port.js';
import type {
  CassetteLine,
  ModelRecorder,
  RecordedMessage,
  RecordedModelAnswer,
  RecordedModelFault,
} from '../../ports/cassette.port.js';
import { toolCallParams } from '../upstream-core/upstream-core.js';
import type { CassetteFile } from './cassette-file.js';
import { redact } from '../../domain/text/redaction.js';
import { headerText, toolsHash } from './cassette-text.js';
import { CassetteBudget } from './cassette-budget.js';

export interface RecordingOptions {
  /** `proxy`, `trial run <id>`. */
  recorded: string;
  harnessVersion: string;
  /** Fields whose values are replaced by `[REDACTED]` at any depth (`--redact`). */
  redact: readonly string[];
  /** `trial --model-fault`: named in the header, so a replay with another model fault is refused. */
  modelFault?: RecordedModelFault;
  /** The recording's size budget (default `CASSETTE_LIMITS`, `cassette-budget.ts`); a test seam. */
  limits?: { keptBytes: number; stopBytes: number };
}

export class RecordingUpstreamSide implements UpstreamSide {
  /** The model's side of the same run, written into the same recording (trial). */
  readonly model: ModelRecorder;
  private nextId = 1;
  private nextExchange = 1;
  private info: UpstreamInfo = {};
  private readonly fields: ReadonlySet<string>;
  private readonly budget: CassetteBudget;

  constructor(
    private readonly inner: UpstreamSide,
    private readonly file: CassetteFile,
    private readonly options: RecordingOptions,
  ) {
    this.fields = new Set(options.redact);
    this.budget = new CassetteBudget(options.limits);
    this.model = {
      request: (request: ChatRequest) => {
        const exchange = this.nextExchange++;
        this.write({ side: 'model', dir: 'send', exchange, request: this.redacted(request) as ChatRequest });
        return exchange;
      },
      answer: (exchange: number, answer: RecordedModelAnswer) =>
        this.write({ side: 'model', dir: 'receive', exchange, answer: this.redacted(answer) as RecordedModelAnswer }),
    };
  }

  async connect(): Promise<UpstreamInfo> {
    const id = this.send('initialize', {}, true);
    this.info = await this.inner.connect();
    const serverInfo: Record<string, string> = {};
    if (this.info.serverName !== undefined) serverInfo['name'] = this.info.serverName;
    if (this.info.serverVersion !== undefined) serverInfo['version'] = this.info.serverVersion;
    const result = { serverInfo, ...(this.info.instructions !== undefined ? { instructions: this.info.instructions } : {}) };
    this.answer(id, result, true);
    return this.info;
  }

  async listTools(): Promise<ToolDescriptor[]> {
    const id = this.send('tools/list', {}, true);
    let tools: ToolDescriptor[];
    try {
      tools = await this.inner.listTools();
    } catch (error) {
      this.write({ side: 'upstream', dir: 'receive', message: errorMessage(id, -32603, errorText(error)) }, true);
      throw error;
    }
    this.file.header(
      headerText({
        harnessVersion: this.options.harnessVersion,
        recorded: this.options.recorded,
        upstream: {
          serverName: this.info.serverName ?? null,
          serverVersion: this.info.serverVersion ?? null,
          tools: tools.length,
          toolsHash: toolsHash(tools),
        },
        redacted: [...this.fields],
        ...(this.options.modelFault !== undefined ? { modelFault: this.options.modelFault } : {}),
      }),
    );
    this.answer(id, { tools }, true);
    return tools;
  }

  async callTool(request: ToolCallRequest, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    const id = this.send('tools/call', toolCallParams(request));
    const { onProgress } = options;
    const tapped: UpstreamCallOptions =
      onProgress === undefined
        ? options
        : {
            ...options,
            onProgress: (params) => {
              this.write({
                side: 'upstream',
                dir: 'receive',
                message: { jsonrpc: '2.0', method: 'notifications/progress', params: this.redacted(params) },
              });
              onProgress(params);
            },
          };
    const outcome = await this.inner.callTool(request, tapped);
    if (outcome.kind === 'result') this.answer(id, outcome.result);
    else if (outcome.kind === 'protocol-error') {
      const error = errorMessage(id, outcome.code, outcome.message);
      if (outcome.data !== undefined) (error['error'] as Record<string, unknown>)['data'] = this.redacted(outcome.data);
      this.write({ side: 'upstream', dir: 'receive', message: error });
    } else this.write({ side: 'upstream', dir: 'receive', id, noAnswer: outcome });
    return outcome;
  }

  /**
   * a request that is not a tool call passes through unrecorded (a replay offers tools only, so its
   * agent is never told of resources or prompts to ask for).
   */
  async forwardRequest(
    method: string,
    params: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<UpstreamCallOutcome> {
    if (this.inner.forwardRequest === undefined)
      return { kind: 'unavailable', detail: `${method} is not offered by the upstream` };
    return this.inner.forwardRequest(method, params, options);
  }

  /** the upstream's own notifications and requests pass through unrecorded, like non-tool requests. */
  setPeer(peer: AgentPeer): void {
    this.inner.setPeer?.(peer);
  }

  async notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    await this.inner.notify?.(method, params);
  }

  onExit(listener: (exit: UpstreamExit) => void): void {
    this.inner.onExit(listener);
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      this.file.close();
    }
  }

  private send(method: string, params: Record<string, unknown>, opening = false): number {
    const id = this.nextId++;
    this.write(
      { side: 'upstream', dir: 'send', message: { jsonrpc: '2.0', id, method, params: this.redacted(params) } },
      opening,
    );
    return id;
  }

  private answer(id: number, result: unknown, opening = false): void {
    this.write({ side: 'upstream', dir: 'receive', message: { jsonrpc: '2.0', id, result: this.redacted(result) } }, opening);
  }

  private redacted(value: unknown): unknown {
    return redact(value, this.fields);
  }

  /** Writes a line within the recording's size budget; `opening` (initialize, tools/list): always whole. */
  private write(line: CassetteLine, opening = false): void {
    for (const text of this.budget.texts(line, opening)) this.file.line(text);
  }
}

function errorMessage(id: number, code: number, message: string): RecordedMessage {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
