/**
 * The model gateway: a model endpoint on 127.0.0.1 for one agent program's run. It speaks the three
 * wire formats agent frameworks use — OpenAI Chat Completions (`/v1/chat/completions`), OpenAI
 * Responses (`/v1/responses`), Anthropic Messages (`/v1/messages`), each as plain JSON or streamed —
 * and `GET /v1/models`, and answers from a {@link ChatModel} (the stub model). Every request and answer
 * is handed to `onExchange`, so the run's transcript holds the model's side of the agent.
 *
 * Only the run's own token opens it (`Authorization: Bearer` for OpenAI clients, `x-api-key` for
 * Anthropic's), so another program on the machine cannot talk to it; the real key never reaches the
 * agent program. It adds no retry of its own: every request the program sends is one exchange.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { ChatMessage, ChatReply, ChatRequest } from '../../ports/chat-model.port.js';
import type {
  ModelExchange,
  ModelGatewayOptions,
  RunningModelGateway,
  StartModelGateway,
} from '../../ports/model-gateway.port.js';
import { anthropicMessages } from './anthropic-messages.js';
import { chatCompletions } from './chat-completions.js';
import { responses } from './responses.js';
import { gatewayFailureExchange, oneLine, type DecodedRequest, type WireFormat } from './wire.js';
import { sendFault } from './fault-wire.js';
import { modelFaultKindLabel } from '../../domain/faults/model-fault.js';
import { errorMessage } from '../../domain/error-message.js';
import { REMEMBERED_CONVERSATIONS, ResponsesConversations } from './responses-conversations.js';

export interface GatewayOptions extends ModelGatewayOptions {
  /** The per-run key the agent program is given; any other is refused 401. */
  token: string;
  now?: () => number;
  /** The largest request body read (bytes); larger ones are refused 413. Default 32 MiB. */
  bodyLimitBytes?: number;
}

export interface GatewayAddress {
  /** `http://127.0.0.1:PORT`: `ANTHROPIC_BASE_URL` and `CUONZTECH_MODEL_URL`. */
  url: string;
  /** `http://127.0.0.1:PORT/v1`: `OPENAI_BASE_URL`. */
  openAiBaseUrl: string;
}

export const ROUTES: ReadonlyMap<string, WireFormat> = new Map([
  ['/v1/chat/completions', chatCompletions],
  ['/v1/responses', responses],
  ['/v1/messages', anthropicMessages],
]);

export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

export class RequestTooLarge extends Error {}

export class ModelGateway {
  private server: Server | undefined;
  private ordinal = 0;
  /** Responses: each answer's whole conversation, for requests that continue it by `previous_response_id`. */
  private readonly conversations = new ResponsesConversations();
  private readonly now: () => number;

  constructor(private readonly options: GatewayOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Listens on a free port of 127.0.0.1. */
  async start(): Promise<GatewayAddress> {
    // Whatever a handler did not expect is that request's failure, never the process's.
    const server = createServer((req, res) => void this.handle(req, res).catch((error: unknown) => this.failed(req, res, error)));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}`;
    return { url, openAiBaseUrl: `${url}/v1` };
  }

  /** Stops listening and ends the connections still open (a program that is gone keeps none). */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const format = ROUTES.get(path);
    if (req.method === 'GET' && (path === '/v1/models' || path.startsWith('/v1/models/'))) {
      if (!this.authorised(req))
        return this.refuse(res, chatCompletions, 401, 'the model gateway needs the key it gave this run');
      return this.listModels(res, path);
    }
    if (format === undefined || req.method !== 'POST') {
      return this.refuse(
        res,
        path.endsWith('/messages') ? anthropicMessages : chatCompletions,
        404,
        `the model gateway serves POST /v1/chat/completions, /v1/responses and /v1/messages and GET /v1/models, not ${req.method ?? '?'} ${path}`,
      );
    }
    const receivedAt = this.now();
    const ordinal = ++this.ordinal;
    if (!this.authorised(req))
      return this.refuse(
        res,
        format,
        401,
        'the model gateway needs the key it gave this run (OPENAI_API_KEY / ANTHROPIC_API_KEY)',
      );
    let decoded: DecodedRequest;
    let request: ChatRequest;
    try {
      decoded = format.decode(JSON.parse(await readBody(req, this.options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT)));
      request = this.withEarlierTurns(decoded);
    } catch (error) {
      const tooLarge = error instanceof RequestTooLarge;
      const message = tooLarge
        ? 'the request body is larger than the model gateway reads'
        : `the model gateway could not read the request: ${error instanceof SyntaxError ? 'the body is not JSON' : (error as Error).message}`;
      return this.refuse(res, format, tooLarge ? 413 : 400, message);
    }
    const base = { ordinal, format: format.name, model: decoded.model, stream: decoded.stream, request, receivedAt };
    if (!this.options.models.includes(decoded.model)) {
      const error = `the model gateway serves ${this.options.models.map((m) => JSON.stringify(m)).join(', ')}, not ${JSON.stringify(decoded.model)}`;
      this.refuse(res, format, 404, error);
      return this.record({ ...base, status: 404, error, notServed: true, answeredAt: this.now() });
    }
    const fault = this.options.fault?.decide(request.messages) ?? null;
    const stamp = { id: `stub${ordinal}`, created: Math.floor(receivedAt / 1000) };
    if (fault !== null) {
      // `cut` cuts the stub model's own answer; the other faults need none.
      const answer = fault.kind === 'cut' ? await this.options.model.complete(request) : undefined;
      const reply = answer?.ok === true ? answer.reply : STAND_IN;
      const sent = await sendFault(res, format, fault, decoded, reply, stamp);
      return this.record({
        ...base,
        status: sent.status,
        error: sent.error,
        fault: modelFaultKindLabel(fault),
        answeredAt: this.now(),
      });
    }
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    const outcome = await this.options.model.complete(request, aborted.signal);
    if (!outcome.ok) {
      const status = outcome.failure.status !== undefined && outcome.failure.status >= 400 ? outcome.failure.status : 502;
      this.refuse(res, format, status, outcome.failure.detail);
      return this.record({ ...base, status, error: outcome.failure.detail, answeredAt: this.now() });
    }
    const reply = outcome.reply;
    if (format.name === 'responses') this.conversations.remember(`resp_${stamp.id}`, [...request.messages, assistantOf(reply)]);
    if (decoded.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for (const frame of format.encodeStream(reply, decoded.model, stamp, decoded)) res.write(frame);
      res.end();
    } else {
      sendJson(res, 200, format.encodeJson(reply, decoded.model, stamp));
    }
    this.record({ ...base, reply, status: 200, answeredAt: this.now() });
  }

  private withEarlierTurns(decoded: DecodedRequest): ChatRequest {
    const request = this.conversations.continued(decoded);
    if (request === null)
      throw new Error(
        `previous_response_id ${JSON.stringify(decoded.previousResponseId)} is no answer of this gateway (it keeps the last ${REMEMBERED_CONVERSATIONS})`,
      );
    return request;
  }

  private authorised(req: IncomingMessage): boolean {
    return carriesToken(req, this.options.token);
  }

  private listModels(res: ServerResponse, path: string): void {
    // One shape both official clients read: OpenAI's `object`/`owned_by`, Anthropic's `type`/`display_name`/`has_more`.
    const model = (id: string) => ({
      id,
      object: 'model',
      type: 'model',
      created: 0,
      created_at: '1970-01-01T00:00:00Z',
      owned_by: 'cuonztech-agent-harness',
      display_name: id,
    });
    const one = path.startsWith('/v1/models/') ? decodedSegment(path.slice('/v1/models/'.length)) : undefined;
    if (one === null) return this.refuse(res, chatCompletions, 400, 'the model id in the path is not percent-encoded UTF-8');
    if (one !== undefined) {
      if (!this.options.models.includes(one))
        return this.refuse(res, chatCompletions, 404, `the model gateway does not serve ${JSON.stringify(one)}`);
      return sendJson(res, 200, model(one));
    }
    const data = this.options.models.map(model);
    sendJson(res, 200, {
      object: 'list',
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  }

  /** A failure the gateway did not expect: the program gets a 500 (or its connection cut), the run an exchange that says so. */
  private failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const why = `the model gateway failed on this request: ${oneLine(errorMessage(error))}`;
    const path = (req.url ?? '/').split('?')[0]!;
    const format = ROUTES.get(path) ?? (path.endsWith('/messages') ? anthropicMessages : chatCompletions);
    try {
      if (res.headersSent) res.destroy();
      else this.refuse(res, format, 500, why);
      const status = res.headersSent ? res.statusCode : 500;
      this.record(gatewayFailureExchange(++this.ordinal, format.name, status, why, this.now()));
    } catch {
      res.destroy();
    }
  }

  private refuse(res: ServerResponse, format: WireFormat, status: number, message: string): void {
    sendJson(res, status, format.errorBody(status, message));
  }

  private record(exchange: ModelExchange): void {
    this.options.onExchange(exchange);
  }
}

/** The answer a `cut` fault cuts when there is no model answer to cut (forward mode: the request is never sent). */
export const STAND_IN: ChatReply = { content: 'The answer was cut off here', toolCalls: [], finishReason: 'stop' };

function assistantOf(reply: ChatReply): ChatMessage {
  return reply.toolCalls.length > 0
    ? { role: 'assistant', content: reply.content, toolCalls: reply.toolCalls }
    : { role: 'assistant', content: reply.content };
}

/** A path segment percent-decoded; null when it is no percent-encoded UTF-8 (`%E0%A4%A`). */
function decodedSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Whether the request carries the run's token (`Authorization: Bearer` or `x-api-key`). */
export function carriesToken(req: IncomingMessage, token: string): boolean {
  const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer === token || req.headers['x-api-key'] === token;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return readBodyBytes(req, limit).then((bytes) => bytes.toString('utf8'));
}

/** The request body as received, byte for byte; past `limit` it is read and dropped, then RequestTooLarge. */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped, so the client still gets its 413.
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => (size > limit ? reject(new RequestTooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/** A fresh random per-run key. */
export function runToken(): string {
  return `cuonztech-run-${randomBytes(18).toString('base64url')}`;
}

/** Starts a gateway for one run, with a fresh random key. */
export const startModelGateway: StartModelGateway = async (options) => {
  const token = runToken();
  const gateway = new ModelGateway({ ...options, token });
  const address = await gateway.start();
  const running: RunningModelGateway = { ...address, token, close: () => gateway.close() };
  return running;
};
