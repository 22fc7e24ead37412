/**
 * The `fetch` the SDK's HTTP client transports use. It hands every JSON-RPC message from the upstream
 * (JSON bodies and SSE events alike) to the recording transport before the SDK parses it, gives the SDK
 * a sanitised copy, and turns each way an exchange can fail into an `ExchangeFailure`: a fetch that
 * could not connect, a body that broke off, a response stream that ended before the answer, a message
 * over the size limit (JSON body or SSE event, never read whole), an HTTP error status on a POST.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isPlainObject, ownValue } from '../../domain/json.js';
import { HttpExchangeError, statusFailure } from './exchange-failure.js';
import { reportNetworkError, reportTooLarge, type AwaitedReplies, type ExchangeHooks } from './exchange-hooks.js';
import { observeSse, type SseRole } from './sse-stream.js';

/** Builds the observing fetch over `base` (the global fetch by default). */
export function exchangeFetch(hooks: ExchangeHooks, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const awaited = requestIdsOf(init?.body);
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      throw reportNetworkError(hooks, error);
    }
    // 3xx pass through: the SDK follows same-origin redirects itself (it fetches with redirect: 'manual').
    if (response.status >= 400 && (method === 'POST' || hooks.channel === 'sse')) {
      const failure = statusFailure(response.status, response.statusText, method === 'POST' && hasSession(init));
      hooks.failed(failure);
      if (method !== 'POST') return response;
      await response.body?.cancel().catch(() => undefined);
      throw new HttpExchangeError(failure);
    }
    if (!response.ok || response.body === null) return response;
    if (isEventStream(response)) return withBody(response, observeSse(response.body, sseRole(hooks, method), awaited, hooks));
    // A 202 carries no answer (the legacy SSE channel always answers so); the SDK drops its body anyway.
    const answersHere = hooks.channel === 'streamable' && response.status !== 202;
    if (method === 'POST' && answersHere && awaited.size > 0) return readJsonReplies(response, awaited, hooks);
    return response;
  };
}

function sseRole(hooks: ExchangeHooks, method: string): SseRole {
  if (method === 'POST') return 'answers';
  return hooks.channel === 'sse' ? 'channel' : 'standalone';
}

/**
 * A JSON answer to a POST: every message through `incoming`, an error reply for each request left
 * unanswered. A body over the size limit is not read further and fails the exchange as too-large.
 */
async function readJsonReplies(response: Response, awaited: AwaitedReplies, hooks: ExchangeHooks): Promise<Response> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readAtMost(response.body, hooks.maxMessageBytes);
  } catch (error) {
    throw reportNetworkError(hooks, error);
  }
  if (bytes === undefined) throw reportTooLarge(hooks);
  // Decoded as `response.text()` would: UTF-8, a leading BOM dropped, invalid bytes as U+FFFD.
  const text = new TextDecoder().decode(bytes);
  const forwards: string[] = [];
  for (const message of splitBatch(text)) {
    const forward = hooks.incoming(message, awaited);
    if (forward !== undefined) forwards.push(forward);
  }
  for (const id of awaited.values()) {
    forwards.push(hooks.unanswered(id, 'the HTTP answer to the request held no JSON-RPC reply for it'));
  }
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  return new Response(`[${forwards.join(',')}]`, { status: response.status, statusText: response.statusText, headers });
}

/**
 * The whole body, or undefined (and the rest cancelled) once it passes `maxBytes`. The bytes are counted
 * as they arrive: Content-Length may be missing (chunked) or wrong, so it is not trusted.
 */
async function readAtMost(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      void reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** The message texts of a JSON body: the elements of a batch, or the body itself. */
function splitBatch(text: string): string[] {
  if (!text.trimStart().startsWith('[')) return [text];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map((element) => JSON.stringify(element) ?? 'null') : [text];
  } catch {
    return [text];
  }
}

/** The ids of the requests (not notifications) in a POST body the SDK serialised. */
function requestIdsOf(body: unknown): AwaitedReplies {
  const ids: AwaitedReplies = new Map();
  if (typeof body !== 'string') return ids;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return ids;
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!isPlainObject(message) || typeof ownValue(message, 'method') !== 'string') continue;
    const id = ownValue(message, 'id');
    if (typeof id === 'string' || typeof id === 'number') ids.set(String(id), id);
  }
  return ids;
}

function hasSession(init: RequestInit | undefined): boolean {
  return new Headers(init?.headers).has('mcp-session-id');
}

function isEventStream(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return type.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
