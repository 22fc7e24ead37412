/**
 * The model gateway in forward mode (`trial --agent-command … --model NAME --base-url URL`): every request
 * the agent program sends goes to the real endpoint — `URL` plus the request's path after `/v1` — with the
 * real key in place of the run's token, in the header the client used (`Authorization: Bearer` or
 * `x-api-key`). The answer comes back unchanged: status, headers (but hop-by-hop ones) and the body byte
 * for byte; a stream is piped chunk for chunk as it arrives, never buffered. A copy of the answer is read
 * back after it ended (plain JSON, or the format's server-sent events assembled: text and tool calls) and
 * recorded with the request as a {@link ModelExchange}, as in stub mode. The gateway adds no retry of its
 * own and follows no redirect: an answer is whatever the endpoint sent to the one request.
 *
 * Usable without a trial (`startForwardGateway`): the base URL, the key, the served model names and
 * `onExchange` are all it takes.
 */
import {
  createServer,
  request as httpRequest,
  validateHeaderName,
  validateHeaderValue,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import type { ChatMessage, ChatReply, ChatRequest } from '../../ports/chat-model.port.js';
import type { ForwardGatewayOptions, ModelExchange, RunningModelGateway } from '../../ports/model-gateway.port.js';
import { redactUrl } from '../../domain/text/url-redaction.js';
import { chatCompletions } from './chat-completions.js';
import { anthropicMessages } from './anthropic-messages.js';
import {
  carriesToken,
  DEFAULT_BODY_LIMIT,
  readBodyBytes,
  RequestTooLarge,
  ROUTES,
  runToken,
  sendJson,
  STAND_IN,
  type GatewayAddress,
} from './model-gateway.js';
import { sendFault } from './fault-wire.js';
import { BoundedDecoder, codingsOf } from './bounded-decoder.js';
import { modelFaultKindLabel } from '../../domain/faults/model-fault.js';
import { errorMessage } from '../../domain/error-message.js';
import { ResponsesConversations } from './responses-conversations.js';
import {
  errorMessageOf,
  gatewayFailureExchange,
  oneLine,
  parseSse,
  type DecodedReply,
  type DecodedRequest,
  type WireFormat,
} from './wire.js';

export interface ForwardOptions extends ForwardGatewayOptions {
  /** The real key (from `--api-key-env`); undefined: the requests go without one (a local endpoint). */
  apiKey: string | undefined;
  /**
   * The per-run key the agent program is given; any other is refused 401. Null (`proxy --model-gateway`):
   * the agent's own credentials go to the endpoint unchanged — the gateway adds none, so it lends nobody a key.
   */
  token: string | null;
  /** Where to listen (default 127.0.0.1 on a free port). */
  listen?: { host: string; port: number };
  now?: () => number;
  /** The largest request body read, and the largest answer kept to be read back (bytes). Default 32 MiB. */
  bodyLimitBytes?: number;
}

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), and the host. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export class ForwardGateway {
  private server: Server | undefined;
  private ordinal = 0;
  private readonly base: URL;
  /** Responses: each answer's whole conversation by its id, so a request that continues it by `previous_response_id` is recorded whole. */
  /** An older id than those kept is recorded as sent and still forwarded (the endpoint's to resolve). */
  private readonly conversations = new ResponsesConversations();
  private readonly inFlight = new Set<{ destroy(): void }>();
  private readonly now: () => number;
  private readonly limit: number;

  constructor(private readonly options: ForwardOptions) {
    this.base = new URL(options.baseUrl);
    this.now = options.now ?? Date.now;
    this.limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  }

  async start(): Promise<GatewayAddress> {
    // Whatever a handler did not expect is that request's failure, never the process's.
    const server = createServer((req, res) => void this.handle(req, res).catch((error: unknown) => this.failed(req, res, error)));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.listen?.port ?? 0, this.options.listen?.host ?? '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const host = this.options.listen?.host ?? '127.0.0.1';
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    return { url, openAiBaseUrl: `${url}/v1` };
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    for (const request of this.inFlight) request.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path = '/', query] = (req.url ?? '/').split(/\?(.*)/s, 2);
    const format = req.method === 'POST' ? ROUTES.get(path) : undefined;
    const listing = req.method === 'GET' && (path === '/v1/models' || path.startsWith('/v1/models/'));
    const errorFormat = format ?? (path.endsWith('/messages') ? anthropicMessages : chatCompletions);
    if (format === undefined && !listing)
      return refuse(
        res,
        errorFormat,
        404,
        `the model gateway serves POST /v1/chat/completions, /v1/responses and /v1/messages and GET /v1/models, not ${req.method ?? '?'} ${path}`,
      );
    if (this.options.token !== null && !carriesToken(req, this.options.token))
      return refuse(
        res,
        errorFormat,
        401,
        'the model gateway needs the key it gave this run (OPENAI_API_KEY / ANTHROPIC_API_KEY)',
      );
    let body: Buffer;
    try {
      body = await readBodyBytes(req, this.limit);
    } catch (error) {
      if (error instanceof RequestTooLarge)
        return refuse(res, errorFormat, 413, 'the request body is larger than the model gateway reads');
      return void res.destroy();
    }
    const target = this.target(path.slice('/v1'.length), query);
    if (format === undefined) return void this.forward(req, res, target, body, null);
    const receivedAt = this.now();
    const ordinal = ++this.ordinal;
    const read = this.readRequest(format, body);
    const base = {
      ordinal,
      format: format.name,
      model: read.model ?? '',
      stream: read.decoded?.stream ?? false,
      request: read.request,
      receivedAt,
    };
    if (read.model !== undefined && this.options.models !== null && !this.options.models.includes(read.model)) {
      const error = `the model gateway serves ${this.options.models.map((m) => JSON.stringify(m)).join(', ')}, not ${JSON.stringify(read.model)}`;
      refuse(res, format, 404, error);
      return this.record({ ...base, status: 404, error, notServed: true, answeredAt: this.now() });
    }
    const fault = this.options.fault?.decide(read.request.messages) ?? null;
    if (fault !== null) {
      // Never sent to the endpoint: the program gets the fault in its format; `cut` cuts a stand-in answer.
      const decoded = read.decoded ?? { model: base.model, stream: false, chat: read.request };
      const stamp = { id: `fault${ordinal}`, created: Math.floor(receivedAt / 1000) };
      const sent = await sendFault(res, format, fault, decoded, STAND_IN, stamp);
      return this.record({
        ...base,
        status: sent.status,
        error: sent.error,
        fault: modelFaultKindLabel(fault),
        answeredAt: this.now(),
      });
    }
    this.forward(req, res, target, body, (status, answer, contentType, failure, gatewayFailure) => {
      const answeredAt = this.now();
      if (failure !== undefined)
        return this.record({
          ...base,
          status,
          error: this.scrub(failure),
          ...(gatewayFailure === true ? { gatewayFailure } : {}),
          answeredAt,
        });
      const readBack = this.readAnswer(format, status, answer!, contentType);
      if (readBack.ok && read.decoded !== undefined && format.name === 'responses' && readBack.decoded.id !== undefined)
        this.conversations.remember(readBack.decoded.id, [...read.request.messages, assistantOf(readBack.decoded.reply)]);
      const error = [read.error, readBack.ok ? undefined : readBack.error].filter((e) => e !== undefined).join('; ');
      this.record({
        ...base,
        status,
        ...(readBack.ok ? { reply: readBack.decoded.reply } : {}),
        ...(error !== '' ? { error: this.scrub(error) } : {}),
        answeredAt,
      });
    });
  }

  /** The real endpoint's URL for a path after `/v1`: the base URL's own query first, then the request's. */
  private target(rest: string, query: string | undefined): URL {
    const url = new URL(this.base.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${rest}`;
    if (query !== undefined && query !== '') url.search = url.search === '' ? `?${query}` : `${url.search}&${query}`;
    return url;
  }

  /** The request as far as it can be read; what cannot be read is still forwarded, and recorded with the reason. */
  private readRequest(
    format: WireFormat,
    body: Buffer,
  ): { model?: string; decoded?: DecodedRequest; request: ChatRequest; error?: string } {
    const empty: ChatRequest = { messages: [], tools: [] };
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return { request: empty, error: 'the request body is not JSON' };
    }
    const model =
      typeof parsed === 'object' && parsed !== null && typeof (parsed as { model?: unknown }).model === 'string'
        ? (parsed as { model: string }).model
        : undefined;
    try {
      const decoded = format.decode(parsed);
      return { model: decoded.model, decoded, request: this.withEarlierTurns(decoded) };
    } catch (error) {
      return {
        ...(model !== undefined ? { model } : {}),
        request: empty,
        error: `the request could not be read: ${(error as Error).message}`,
      };
    }
  }

  private withEarlierTurns(decoded: DecodedRequest): ChatRequest {
    // An id the gateway never saw (an answer from before this run) is the endpoint's to resolve: the request is recorded as sent.
    return this.conversations.continued(decoded) ?? decoded.chat;
  }

  /** The answer read back: only after it was passed on whole, so reading never changes or delays it. */
  private readAnswer(
    format: WireFormat,
    status: number,
    answer: Buffer,
    contentType: string,
  ): { ok: true; decoded: DecodedReply } | { ok: false; error: string } {
    const text = answer.toString('utf8');
    if (status < 200 || status >= 300) {
      let message: string | undefined;
      try {
        message = errorMessageOf(JSON.parse(text));
      } catch {
        message = undefined;
      }
      return { ok: false, error: `the model endpoint answered ${status}${message !== undefined ? `: ${oneLine(message)}` : ''}` };
    }
    try {
      const decoded = /^text\/event-stream/i.test(contentType)
        ? format.decodeStream(parseSse(text))
        : format.decodeReply(JSON.parse(text));
      return { ok: true, decoded };
    } catch (error) {
      const why = error instanceof SyntaxError ? 'it is not JSON' : oneLine((error as Error).message);
      return { ok: false, error: `the answer could not be read back: ${why}` };
    }
  }

  /**
   * One request to the endpoint, its answer piped to the program as it arrives. `done` gets the status,
   * the answer's bytes (decoded from its content-encoding, for reading back) or why there is none.
   */
  private forward(req: IncomingMessage, res: ServerResponse, target: URL, body: Buffer, done: Done | null): void {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(target, { method: req.method, headers: this.requestHeaders(req) });
    this.inFlight.add(upstream);
    let settled = false;
    const settle: Done = (status, answer, contentType, failure, gatewayFailure) => {
      if (settled) return;
      settled = true;
      this.inFlight.delete(upstream);
      try {
        done?.(status, answer, contentType, failure, gatewayFailure);
      } catch (error) {
        this.failed(req, res, error);
      }
    };
    upstream.on('response', (answer) => {
      const contentType = String(answer.headers['content-type'] ?? '');
      let failed = false;
      let decoder: BoundedDecoder | null = null;
      // The gateway ends the request: a 502 in the program's format while nothing was sent, else the connection is cut.
      const fail = (why: string) => {
        if (failed) return;
        failed = true;
        decoder?.destroy();
        upstream.destroy();
        const status = res.headersSent ? res.statusCode : 502;
        if (res.headersSent) res.destroy();
        else refuse(res, this.formatOf(req, done === null), 502, why);
        settle(status, undefined, contentType, why, true);
      };
      const headers = responseHeaders(answer.rawHeaders);
      const invalid = statusLineProblem(answer.statusCode, answer.statusMessage) ?? headersProblem(headers);
      if (invalid !== undefined) return fail(invalid);
      const status = answer.statusCode!;
      const codings = codingsOf(answer.headers['content-encoding']);
      // Only an answer that is read back is decoded; a listing (`done` null) passes as it is.
      decoder = done === null || codings === null ? null : new BoundedDecoder(codings, this.limit);
      const reader = decoder;
      const head = () => {
        if (!res.headersSent) res.writeHead(status, answer.statusMessage ?? '', headers).flushHeaders();
      };
      // A compressed answer's head waits for its first chunk to be decoded: a bomb in it still gets a clean 502.
      if (reader === null || codings!.length === 0) {
        try {
          head();
        } catch (error) {
          return fail(`the model gateway could not pass the answer on: ${oneLine((error as Error).message)}`);
        }
      }
      // Chunks that decoded to nothing yet (a gzip header) wait with the head, up to HELD_BACK bytes.
      const held: Buffer[] = [];
      let heldBytes = 0;
      const release = () => {
        head();
        for (const chunk of held.splice(0)) guard.push(chunk);
      };
      const guard = new Transform({
        transform: (chunk: Buffer, _encoding, callback) => {
          if (reader === null) return callback(null, chunk);
          void reader.write(chunk).then(() => {
            if (reader.state === 'over') return callback(new AnswerTooLarge());
            if (!res.headersSent && reader.state === 'reading' && reader.size === 0 && heldBytes + chunk.length <= HELD_BACK) {
              held.push(chunk);
              heldBytes += chunk.length;
              return callback();
            }
            try {
              release();
            } catch (error) {
              return callback(error as Error);
            }
            callback(null, chunk);
          });
        },
        flush: (callback) => {
          if (reader === null) {
            callback();
            if (done !== null)
              settle(
                status,
                undefined,
                contentType,
                `the answer's content-encoding ${String(answer.headers['content-encoding'])} could not be decoded`,
              );
            return;
          }
          void reader.end().then((bytes) => {
            if (reader.state === 'over') return callback(new AnswerTooLarge());
            try {
              release();
            } catch (error) {
              return callback(error as Error);
            }
            callback();
            if (bytes === null)
              return settle(
                status,
                undefined,
                contentType,
                `the answer's content-encoding ${String(answer.headers['content-encoding'])} could not be decoded`,
              );
            settle(status, bytes, contentType);
          });
        },
      });
      guard.on('error', (error) =>
        fail(
          error instanceof AnswerTooLarge
            ? `the model endpoint's answer is larger than the model gateway reads (${sizeLabel(this.limit)}${codings !== null && codings.length > 0 ? ' once decompressed' : ''}): the request was ended`
            : `the model gateway could not pass the answer on: ${oneLine(error.message)}`,
        ),
      );
      answer.pipe(guard).pipe(res);
      answer.on('error', () => {
        decoder?.destroy();
        if (failed) return;
        res.destroy();
        settle(status, undefined, contentType, 'the model endpoint broke off its answer');
      });
      answer.on('aborted', () => {
        if (!failed) res.destroy();
      });
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      const why = `the model endpoint ${redactUrl(this.base.href)} could not be reached: ${error.code ?? error.message}`;
      if (!res.headersSent) {
        refuse(res, this.formatOf(req, done === null), 502, why);
        return settle(502, undefined, '', why);
      }
      res.destroy();
      settle(res.statusCode, undefined, '', 'the model endpoint broke off its answer');
    });
    // The program went away before the answer ended: the request to the endpoint goes too.
    res.on('close', () => {
      if (!res.writableFinished) {
        upstream.destroy();
        settle(
          res.headersSent ? res.statusCode : 499,
          undefined,
          '',
          'the agent program closed the connection before the answer ended',
        );
      }
    });
    upstream.end(body);
  }

  /** The format an error for this request is written in. */
  private formatOf(req: IncomingMessage, listing = false): WireFormat {
    const path = (req.url ?? '').split('?')[0]!;
    return listing ? chatCompletions : (ROUTES.get(path) ?? (path.endsWith('/messages') ? anthropicMessages : chatCompletions));
  }

  /** A failure the gateway did not expect: the program gets a 500 (or its connection cut), the run an exchange that says so. */
  private failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const why = `the model gateway failed on this request: ${oneLine(errorMessage(error))}`;
    try {
      if (res.headersSent) res.destroy();
      else refuse(res, this.formatOf(req), 500, why);
      const status = res.headersSent ? res.statusCode : 500;
      this.record(gatewayFailureExchange(++this.ordinal, this.formatOf(req).name, status, this.scrub(why), this.now()));
    } catch {
      res.destroy();
    }
  }

  /** The program's headers for the endpoint: the run's token replaced by the real key in the same header; hop-by-hop ones dropped. */
  private requestHeaders(req: IncomingMessage): Record<string, string | string[]> {
    // `Expect: 100-continue` was this hop's to answer: the body is already read.
    const dropped = new Set([...HOP_BY_HOP, 'expect']);
    for (const name of String(req.headers.connection ?? '').split(',')) dropped.add(name.trim().toLowerCase());
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || dropped.has(name)) continue;
      headers[name] = value;
    }
    const { token, apiKey } = this.options;
    if (token === null) return headers;
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === token) {
      if (apiKey === undefined) delete headers['authorization'];
      else headers['authorization'] = `Bearer ${apiKey}`;
    }
    if (req.headers['x-api-key'] === token) {
      if (apiKey === undefined) delete headers['x-api-key'];
      else headers['x-api-key'] = apiKey;
    }
    return headers;
  }

  /** An endpoint may quote the key in its error: it never reaches a file. */
  private scrub(text: string): string {
    const key = this.options.apiKey;
    return key === undefined || key === '' ? text : text.split(key).join('***');
  }

  private record(exchange: ModelExchange): void {
    this.options.onExchange(exchange);
  }
}

/** What `forward` hands back: the status, the answer's decoded bytes (for reading back) or why there are none. */
type Done = (status: number, answer: Buffer | undefined, contentType: string, failure?: string, gatewayFailure?: true) => void;

class AnswerTooLarge extends Error {}

/** The most of a compressed answer held back (with its head) while it has decoded to nothing yet. */
const HELD_BACK = 64 * 1024;

/** `32 MiB` (or bytes when the bound is no whole MiB). */
function sizeLabel(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * Why an endpoint's status line cannot be passed on, if it cannot: a final answer's status is 200–599
 * (1xx are interim, never the answer), its message has no control character. Quoted shortened, escaped.
 */
function statusLineProblem(code: number | undefined, message: string | undefined): string | undefined {
  const quoted = JSON.stringify((message ?? '').slice(0, 60));
  if (code === undefined || !Number.isInteger(code) || code < 200 || code > 599)
    return `the model endpoint answered with an invalid status line (status ${String(code).slice(0, 6)}, message ${quoted})`;
  if (/[^\t\x20-\x7e\x80-\xff]/.test(message ?? ''))
    return `the model endpoint answered with an invalid status line (status ${code}, message ${quoted} has a control character)`;
  return undefined;
}

/** Why the endpoint's headers cannot be passed on, if they cannot (the name quoted shortened). */
function headersProblem(headers: readonly string[]): string | undefined {
  for (let i = 0; i < headers.length; i += 2) {
    try {
      validateHeaderName(headers[i]!);
      validateHeaderValue(headers[i]!, headers[i + 1]!);
    } catch {
      return `the model endpoint answered with an invalid header (${JSON.stringify(headers[i]!.slice(0, 60))})`;
    }
  }
  return undefined;
}

function refuse(res: ServerResponse, format: WireFormat, status: number, message: string): void {
  sendJson(res, status, format.errorBody(status, message));
}

/** The answer's headers as the endpoint sent them (names as written, repeated ones kept), but hop-by-hop ones. */
function responseHeaders(raw: readonly string[]): string[] {
  const dropped = new Set(HOP_BY_HOP);
  dropped.delete('host');
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection') for (const name of raw[i + 1]!.split(',')) dropped.add(name.trim().toLowerCase());
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!dropped.has(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
  return kept;
}

function assistantOf(reply: ChatReply): ChatMessage {
  return reply.toolCalls.length > 0
    ? { role: 'assistant', content: reply.content, toolCalls: reply.toolCalls }
    : { role: 'assistant', content: reply.content };
}

/** Starts a forward-mode gateway for one run, with a fresh random key. */
export async function startForwardGateway(
  options: ForwardGatewayOptions & { apiKey: string | undefined },
): Promise<RunningModelGateway> {
  const token = runToken();
  const gateway = new ForwardGateway({ ...options, token });
  const address = await gateway.start();
  return { ...address, token, close: () => gateway.close() };
}

/**
 * `proxy --model-gateway HOST:PORT`: a forward gateway for an agent run by hand. It serves any model and
 * takes no key of its own: the agent's credentials go through unchanged.
 */
export async function startProxyModelGateway(options: {
  baseUrl: string;
  host: string;
  port: number;
  onExchange(exchange: ModelExchange): void;
}): Promise<GatewayAddress & { close(): Promise<void> }> {
  const gateway = new ForwardGateway({ ...options, models: null, apiKey: undefined, token: null, listen: options });
  const address = await gateway.start();
  return { ...address, close: () => gateway.close() };
}

/**
 * Before any run: is the endpoint there? `GET {URL}/models` without the key (it is never needed to
 * tell): any HTTP answer, even 401 or 404, is reachable; a refused connection, a name that does not
 * resolve, a TLS failure or no answer within `timeoutMs` is not. One line, the URL redacted.
 */
export function checkForwardEndpoint(baseUrl: string, timeoutMs = 10_000): Promise<{ ok: true } | { ok: false; reason: string }> {
  const target = new URL(`${baseUrl.replace(/\/+$/, '')}/models`);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const unreachable = (why: string) => ({
    ok: false as const,
    reason: `model endpoint ${redactUrl(baseUrl)} (--base-url) is not reachable: ${why}`,
  });
  return new Promise((resolve) => {
    const request = send(target, { method: 'GET', headers: { accept: 'application/json' } });
    const timer = setTimeout(() => {
      request.destroy();
      resolve(unreachable(`no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    request.on('response', (answer) => {
      clearTimeout(timer);
      answer.resume();
      request.destroy();
      resolve({ ok: true });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const why =
        error.code === 'ECONNREFUSED'
          ? 'connection refused'
          : error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN'
            ? `the host name ${target.hostname} does not resolve`
            : (error.code ?? oneLine(error.message));
      resolve(unreachable(why));
    });
    request.end();
  });
}
