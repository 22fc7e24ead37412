import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { topLevelNumberIdToken } from '../wire/json-rpc-id-token.js';

/**
 * Sorting one parsed inbound line. The SDK's schemas are strict and its transport drops whatever fails
 * them without a word; here every request gets an answer. The value that is delivered is the parsed
 * object itself, never zod's copy, so arguments like an own `__proto__` key stay exactly as sent.
 */
export type InboundMessage =
  /** A JSON-RPC message for the SDK; `strippedKeys` names unknown top-level keys that were removed. */
  | { kind: 'message'; message: JSONRPCMessage; strippedKeys: string[] }
  /**
   * Not a JSON-RPC message, answered with `-32600 Invalid Request` to `id` (null when there is none or it
   * is no string or number). `idToken`: the id exactly as sent when it is a number that is not a safe
   * integer (`12345678901234567890`, `1e300`, `1.5`); the answer carries that token, not `id`.
   */
  | { kind: 'invalid-request'; id: RequestId | null; idToken?: string }
  /** A notification (a `method`, no `id`) that failed validation: nothing to answer, only logged. */
  | { kind: 'invalid-notification'; method: string };

const KNOWN_KEYS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'] as const;

/** Whether `value` is an object with a top-level key JSON-RPC does not know (which `classifyInbound` strips). */
export function hasUnknownTopLevelKeys(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const known: readonly string[] = KNOWN_KEYS;
  return Object.keys(value).some((key) => !known.includes(key));
}

function isValidMessage(value: unknown): value is JSONRPCMessage {
  return JSONRPCMessageSchema.safeParse(value).success;
}

function usableId(value: unknown): RequestId | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

/** Keeps only the JSON-RPC keys of `value` (values untouched) and names the others. */
function withoutUnknownKeys(value: object): { picked: Record<string, unknown>; extra: string[] } {
  const picked: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) {
    if (Object.hasOwn(value, key)) picked[key] = Object.getOwnPropertyDescriptor(value, key)?.value;
  }
  const known: readonly string[] = KNOWN_KEYS;
  return { picked, extra: Object.keys(value).filter((key) => !known.includes(key)) };
}

/**
 * Classifies a parsed line (`line`: its text, for an id token a number cannot hold). Lenient where
 * harmless: a message that is valid once its unknown top-level keys are removed is delivered without them.
 */
export function classifyInbound(value: unknown, line = ''): InboundMessage {
  if (isValidMessage(value)) return { kind: 'message', message: value, strippedKeys: [] };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid-request', id: null };
  }
  const { picked, extra } = withoutUnknownKeys(value);
  if (extra.length > 0 && isValidMessage(picked)) {
    return { kind: 'message', message: picked, strippedKeys: extra };
  }
  if (!Object.hasOwn(value, 'id') && typeof picked['method'] === 'string') {
    return { kind: 'invalid-notification', method: picked['method'] };
  }
  const id = usableId(picked['id']);
  const idToken = id === null && typeof picked['id'] === 'number' ? topLevelNumberIdToken(line) : undefined;
  return idToken === undefined ? { kind: 'invalid-request', id } : { kind: 'invalid-request', id, idToken };
}
