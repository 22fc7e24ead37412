/**
 * The body of an agent's POST, read before the SDK's transport sees it, for one reason: a JSON-RPC id
 * that a JavaScript number cannot hold (`12345678901234567890`, `1e300`, `1.5`). The SDK parses the body
 * with `JSON.parse` and answers such a message `-32700` with `id: null`, so the agent cannot match the
 * error to its request. Here it is answered `-32600 Invalid Request` with the id exactly as sent, as the
 * stdio agent side does, and never forwarded. Two more leniencies match the stdio side: a UTF-8 byte
 * order mark opening the body is dropped (`JSON.parse` refuses it), and a message that is valid JSON-RPC
 * once its unknown top-level keys are removed is handed on without them (the SDK's strict schema would
 * answer the whole body `-32700`). Every other body goes to the SDK already parsed
 * (`handleRequest(req, res, parsedBody)`), so nothing else changes; requests the SDK refuses before
 * reading the body (a wrong Accept or Content-Type) are passed on unread.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { topLevelNumberIdToken } from '../wire/json-rpc-id-token.js';
import { classifyInbound, hasUnknownTopLevelKeys } from '../agent-core/inbound-message.js';
import { sendJsonRpcError } from './json-rpc-error.js';

/** What to do with one POST. */
export type PostBody =
  /** Hand the request to the SDK as it is (the SDK refuses it before reading a body). */
  | { kind: 'unread' }
  /** Hand the request to the SDK with this body already parsed. */
  | { kind: 'parsed'; value: unknown }
  /** Already answered here (too large, not JSON, or an id a number cannot hold). */
  | { kind: 'answered' };

/** The SDK's answer to a body over the limit (`requestBodyTooLargeMessage`), word for word. */
function tooLargeMessage(maxBytes: number): string {
  return `Payload Too Large: Request body must not exceed ${maxBytes} bytes`;
}

/** The SDK reads a POST's body only when the agent accepts both answer kinds and sends JSON. */
function sdkWouldRead(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  const essence = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return accept.includes('application/json') && accept.includes('text/event-stream') && essence === 'application/json';
}

/**
 * The body as text, or null when it exceeds `maxBytes`. Past the limit nothing more is kept; the rest is
 * read and dropped (not destroyed: the 413 must still reach the agent) until the answer closes the
 * connection.
 */
function readText(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData).off('end', onEnd);
      req.resume();
      resolve(null);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    req.on('data', onData).on('end', onEnd).on('error', reject);
  });
}

/** The id token as sent, when `value` is one request whose numeric id is not a safe integer. */
function unmatchableIdToken(value: unknown, text: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, 'id')) return undefined;
  const id: unknown = (value as { id: unknown }).id;
  return typeof id === 'number' && !Number.isSafeInteger(id) ? topLevelNumberIdToken(text) : undefined;
}

/** Reads one POST's body and answers it here when the SDK could not answer it so the agent can match it. */
export async function readPostBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<PostBody> {
  if (!sdkWouldRead(req)) return { kind: 'unread' };
  const text = await readText(req, maxBytes);
  if (text === null) {
    sendJsonRpcError(res, 413, -32000, tooLargeMessage(maxBytes), { headers: { connection: 'close' } });
    return { kind: 'answered' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    sendJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    return { kind: 'answered' };
  }
  const token = unmatchableIdToken(value, text);
  if (token !== undefined) {
    sendJsonRpcError(res, 400, -32600, 'Invalid Request: the id is a number that is not a safe integer', { idJson: token });
    return { kind: 'answered' };
  }
  return { kind: 'parsed', value: Array.isArray(value) ? value.map(withoutUnknownKeys) : withoutUnknownKeys(value) };
}

/**
 * The message without its unknown top-level keys when that makes it valid JSON-RPC; otherwise as it is
 * (the usual message has none and goes to the SDK untouched: it is validated there, once).
 */
function withoutUnknownKeys(value: unknown): unknown {
  if (!hasUnknownTopLevelKeys(value)) return value;
  const inbound = classifyInbound(value);
  return inbound.kind === 'message' && inbound.strippedKeys.length > 0 ? inbound.message : value;
}
