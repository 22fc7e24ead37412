/**
 * Turns one line from the upstream's stdout into what the SDK should see, and keeps the raw reply so the
 * adapter can forward answers verbatim and tell a real JSON-RPC error reply from an SDK-local error.
 * Lenient where the SDK is strict: extra top-level keys of a JSON-RPC message do not make it vanish.
 */
import {
  JSONRPCErrorResponseSchema,
  JSONRPCMessageSchema,
  JSONRPCResultResponseSchema,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

export type { RequestId };
import { isPlainObject, ownValue } from '../../domain/json.js';

/** A reply exactly as the upstream sent it. */
export type RawReply =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } }
  | { kind: 'invalid'; detail: string };

/** How one line is handled. */
export type IncomingMessage =
  | { kind: 'reply'; id: RequestId; reply: RawReply; forward: JSONRPCMessage }
  | { kind: 'message'; forward: JSONRPCMessage }
  | { kind: 'ignored'; reason: string };

/** The JSON-RPC code of the error handed to the SDK in place of an unusable answer. */
const INVALID_ANSWER_CODE = -32603;

/** Classifies one line of the upstream's stdout. Never throws. */
export function classifyLine(line: string): IncomingMessage {
  if (line.trim() === '') return { kind: 'ignored', reason: 'empty line' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'ignored', reason: 'not JSON' };
  }
  if (!isPlainObject(value)) return { kind: 'ignored', reason: 'not a JSON object' };
  const id = ownValue(value, 'id');
  const isReply = ownValue(value, 'method') === undefined && (hasOwn(value, 'result') || hasOwn(value, 'error'));
  if (isReply) {
    return isRequestId(id) ? classifyReply(id, value) : { kind: 'ignored', reason: 'reply without a usable id' };
  }
  const candidate = { jsonrpc: '2.0', id, method: ownValue(value, 'method'), params: ownValue(value, 'params') };
  const parsed = JSONRPCMessageSchema.safeParse(dropUndefined(candidate));
  return parsed.success ? { kind: 'message', forward: parsed.data } : { kind: 'ignored', reason: 'not JSON-RPC' };
}

/**
 * Classifies one reply (an object with a `result` or an `error`): the one rule for every answer, live on
 * both transports and replayed from a recording (`replay-upstream-side.ts`). Never throws.
 */
export function classifyReply(id: RequestId, value: Record<string, unknown>): Extract<IncomingMessage, { kind: 'reply' }> {
  // `"error": null` next to a result (JSON-RPC 1.0 style) is no error: the result is the answer.
  const isError = hasOwn(value, 'error') && (ownValue(value, 'error') !== null || !hasOwn(value, 'result'));
  const candidate = isError
    ? { jsonrpc: '2.0', id, error: ownValue(value, 'error') }
    : { jsonrpc: '2.0', id, result: ownValue(value, 'result') };
  // The member of the JSON-RPC message union this candidate can be (it has no method, and a result or an
  // error): the union would try the request and notification schemas first and fail them on every answer.
  const parsed = (isError ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema).safeParse(candidate);
  if (!parsed.success) return invalidReply(id, describeInvalid(candidate));
  const result = ownValue(candidate, 'result');
  if (isPlainObject(result)) return { kind: 'reply', id, reply: { kind: 'result', result }, forward: parsed.data };
  const error = ownValue(candidate, 'error') as Record<string, unknown>;
  const raw = { code: error['code'] as number, message: error['message'] as string };
  const reply: RawReply = {
    kind: 'error',
    error: hasOwn(error, 'data') ? { ...raw, data: ownValue(error, 'data') } : raw,
  };
  return { kind: 'reply', id, reply, forward: parsed.data };
}

/**
 * A `tools/call` reply checked as an answer to a tool call: a result whose `content` is not an array, whose
 * `isError` is not a boolean or whose `structuredContent` is not an object is no MCP tool result (the
 * agent's SDK would refuse it), so it is an invalid answer, as a result that is no object is. Content
 * blocks themselves are not checked (a newer block type passes). Other replies are returned as they are.
 */
export function toolCallReply(reply: RawReply): RawReply {
  if (reply.kind !== 'result') return reply;
  const { result } = reply;
  const content = ownValue(result, 'content');
  if (content !== undefined && !Array.isArray(content))
    return { kind: 'invalid', detail: `the tool result's content is ${kindOf(content)}, not an array` };
  const isError = ownValue(result, 'isError');
  if (isError !== undefined && typeof isError !== 'boolean')
    return { kind: 'invalid', detail: `the tool result's isError is ${kindOf(isError)}, not a boolean` };
  const structured = ownValue(result, 'structuredContent');
  if (structured !== undefined && !isPlainObject(structured))
    return { kind: 'invalid', detail: `the tool result's structuredContent is ${kindOf(structured)}, not an object` };
  return reply;
}

function invalidReply(id: RequestId, detail: string): Extract<IncomingMessage, { kind: 'reply' }> {
  const forward: JSONRPCMessage = {
    jsonrpc: '2.0',
    id,
    error: { code: INVALID_ANSWER_CODE, message: `invalid answer from upstream: ${detail}` },
  };
  return { kind: 'reply', id, reply: { kind: 'invalid', detail }, forward };
}

function describeInvalid(candidate: Record<string, unknown>): string {
  if (hasOwn(candidate, 'error')) return 'the error object lacks an integer code or a string message';
  const result = ownValue(candidate, 'result');
  if (isPlainObject(result)) return 'the result does not match the MCP result shape (e.g. a malformed _meta)';
  return `the result is ${kindOf(result)}, not an object`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'absent';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function hasOwn(value: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

function dropUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
