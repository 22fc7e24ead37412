/**
 * The JSON-RPC ids of one HTTP session's requests that await their answer, grouped by the POST that
 * carried them. The SDK's Streamable HTTP transport routes an answer to the POST by its request id alone,
 * so a second POST reusing an id in flight would get the first request's answer, and its own answer
 * would be lost; such a POST is refused before anything in it runs. An id is free again once its answer
 * was sent, or once the agent cancelled it (the SDK then sends no answer, and none of the old request can
 * reach the new POST). The SDK closes a POST's stream only when every request in it is answered, so a
 * POST with a cancelled request must be closed by the caller once the others are answered (`answered` and
 * `cancelled` name the request id to close it by).
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../../domain/json.js';
import { cancelledRequestId, idKey } from '../wire/json-rpc-id-token.js';

/** What `take` decided for one POST body. */
export type TakenIds =
  /** The body may run; `ids` are its request ids, now in flight; `cancels` the ids it cancels. */
  | { kind: 'taken'; ids: string[]; cancels: RequestId[] }
  /** The body reuses `idJson` (the id's JSON text), in flight already or twice in the body. */
  | { kind: 'clash'; idJson: string };

/** One POST: its requests still unanswered, and those the agent cancelled while others were pending. */
interface Post {
  pending: Set<string>;
  /** Cancelled ids, kept in flight until the POST's stream is closed (a reuse could be closed with it). */
  cancelled: string[];
  /** The request id to close the POST's stream by: its first cancelled request. */
  closeBy?: RequestId;
}

/** The request ids in flight in one session. */
export class RequestIdsInFlight {
  /** Each id in flight → the POST that carried it. */
  private readonly postOf = new Map<string, Post>();

  /**
   * For a parsed POST body (one message or a batch): refuses it when it reuses an id in flight, else
   * marks its request ids in flight and names the ids its `notifications/cancelled` members cancel.
   */
  take(body: unknown): TakenIds {
    const messages = Array.isArray(body) ? body : [body];
    const ids: string[] = [];
    const cancels: RequestId[] = [];
    for (const message of messages) {
      if (!isPlainObject(message) || typeof message['method'] !== 'string') continue;
      if (!Object.hasOwn(message, 'id')) {
        const cancelled = cancelledRequestId(message);
        if (cancelled !== undefined) cancels.push(cancelled);
        continue;
      }
      const key = idKey(message['id']);
      if (key === undefined) continue;
      if (this.postOf.has(key) || ids.includes(key)) return { kind: 'clash', idJson: key };
      ids.push(key);
    }
    const post: Post = { pending: new Set(ids), cancelled: [] };
    for (const key of ids) this.postOf.set(key, post);
    return { kind: 'taken', ids, cancels };
  }

  /**
   * The SDK sent `message`: an answer frees its id. Returns the request id to close the POST's stream by
   * when this was its last answer and the POST had a cancelled request (undefined otherwise).
   */
  answered(message: JSONRPCMessage): RequestId | undefined {
    const key = 'method' in message || !('id' in message) ? undefined : idKey(message.id);
    if (key === undefined) return undefined;
    const post = this.postOf.get(key);
    if (post === undefined || !post.pending.has(key)) return undefined;
    this.postOf.delete(key);
    post.pending.delete(key);
    return this.closedIfDone(post);
  }

  /**
   * The agent cancelled `id`, which will get no answer. Returns the request id to close its POST's stream
   * by when no other request of that POST awaits an answer (undefined otherwise).
   */
  cancelled(id: RequestId): RequestId | undefined {
    const key = idKey(id)!;
    const post = this.postOf.get(key);
    if (post === undefined || !post.pending.has(key)) return undefined;
    post.pending.delete(key);
    post.cancelled.push(key);
    post.closeBy ??= id;
    return this.closedIfDone(post);
  }

  /** True when no request of the session awaits its answer. */
  get idle(): boolean {
    for (const post of this.postOf.values()) if (post.pending.size > 0) return false;
    return true;
  }

  /** Frees ids whose requests will never be answered (the SDK refused their POST). */
  release(ids: string[]): void {
    for (const key of ids) this.postOf.delete(key);
  }

  /** When nothing of the POST awaits an answer: frees its cancelled ids and names the id to close it by. */
  private closedIfDone(post: Post): RequestId | undefined {
    if (post.pending.size > 0 || post.closeBy === undefined) return undefined;
    for (const key of post.cancelled) this.postOf.delete(key);
    return post.closeBy;
  }
}
