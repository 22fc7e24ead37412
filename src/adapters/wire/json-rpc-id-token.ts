/**
 * The exact text of a JSON-RPC id that a JavaScript number cannot hold. `JSON.parse` turns
 * `12345678901234567890` into `12345678901234567000` and `1e300` into `1e+300`; an answer to that number
 * could not be matched by the agent, so the answer carries the id token exactly as it was sent.
 */

/** A JSON number token at the sticky position (RFC 8259 grammar). */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE = /[ \t\n\r]*/y;

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

function skipSpace(text: string, from: number): number {
  SPACE.lastIndex = from;
  SPACE.exec(text);
  return SPACE.lastIndex;
}

/**
 * The source text of the top-level `"id"` member's value when it is a number (the last such member, as
 * `JSON.parse` keeps the last of duplicate keys); undefined when the line is not an object, has no id, or
 * its id is not a number. `line` must be valid JSON (it was parsed before); keys may use escapes.
 */
export function topLevelNumberIdToken(line: string): string | undefined {
  let i = skipSpace(line, 0);
  if (line[i] !== '{') return undefined;
  let depth = 0;
  let expectKey = false;
  let token: string | undefined;
  for (; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') {
      const end = stringEnd(line, i);
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (JSON.parse(line.slice(i, end + 1)) === 'id') {
          const valueAt = skipSpace(line, skipSpace(line, end + 1) + 1);
          NUMBER.lastIndex = valueAt;
          token = NUMBER.exec(line)?.[0];
        }
      }
      i = end;
    } else if (ch === '{' || ch === '[') {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (ch === '}' || ch === ']') {
      depth--;
    } else if (ch === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return token;
}

/**
 * The key of a JSON-RPC request id (or progress token) for maps: its JSON text, so `5` and `"5"` stay
 * apart; undefined when the value is neither a string nor a number.
 */
export function idKey(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
}

/** The request id a `notifications/cancelled` message names; undefined for any other message. */
export function cancelledRequestId(message: unknown): string | number | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'notifications/cancelled' || Object.hasOwn(message, 'id')) return undefined;
  const requestId = typeof params === 'object' && params !== null ? (params as { requestId?: unknown }).requestId : undefined;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}
