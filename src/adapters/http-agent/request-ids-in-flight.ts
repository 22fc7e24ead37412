/**
 * The JSON-RPC ids of one HTTP session's requests that await their answer. The SDK's Streamable HTTP
 * transport routes an answer to the POST by its request id alone, so a second POST reusing an id in
 * flight would get the first request's answer, and its own answer would be lost; such a POST is refused
 * before anything in it runs. An id is free again once its answer was sent, or once the agent cancelled
 * it (the SDK then sends no answer, and none of the old request can reach the new POST).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What `take` decided for one POST body. */
export type TakenIds =
  /** The body may run; `ids` are its request ids, now in flight. */
  | { kind: 'taken'; ids: string[] }
  /** The body reuses `idJson` (the id's JSON text), in flight already or twice in the body. */
  | { kind: 'clash'; idJson: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The key of an id: its JSON text, so `5` and `"5"` differ. */
function keyOf(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
}

/** The request ids in flight in one session. */
export class RequestIdsInFlight {
  private readonly inFlight = new Set<string>();

  /**
   * For a parsed POST body (one message or a batch): refuses it when it reuses an id in flight, else
   * marks its request ids in flight. A `notifications/cancelled` in the body frees the id it cancels.
   */
  take(body: unknown): TakenIds {
    const messages = Array.isArray(body) ? body : [body];
    const ids: string[] = [];
    for (const message of messages) {
      if (!isObject(message) || typeof message['method'] !== 'string') continue;
      if (!Object.hasOwn(message, 'id')) {
        if (message['method'] === 'notifications/cancelled' && isObject(message['params'])) {
          const cancelled = keyOf(message['params']['requestId']);
          if (cancelled !== undefined) this.inFlight.delete(cancelled);
        }
        continue;
      }
      const key = keyOf(message['id']);
      if (key === undefined) continue;
      if (this.inFlight.has(key) || ids.includes(key)) return { kind: 'clash', idJson: key };
      ids.push(key);
    }
    for (const key of ids) this.inFlight.add(key);
    return { kind: 'taken', ids };
  }

  /** The SDK sent `message`: an answer frees its id. */
  answered(message: JSONRPCMessage): void {
    if ('method' in message || !('id' in message)) return;
    const key = keyOf(message.id);
    if (key !== undefined) this.inFlight.delete(key);
  }

  /** Frees ids whose requests will never be answered (the SDK refused their POST). */
  release(ids: string[]): void {
    for (const key of ids) this.inFlight.delete(key);
  }
}
