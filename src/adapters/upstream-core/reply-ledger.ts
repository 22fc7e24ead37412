/**
 * Links a request the adapter sends through the SDK to the raw reply that came back for it. The SDK
 * assigns the JSON-RPC ids; the transport sees them in `send()` and recognises a tracked request by the
 * identity of its `params` object, which the SDK passes on untouched.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { RawReply } from './incoming-message.js';

/** What the ledger knew about one request when it was released. */
export interface LedgerEntry {
  /** The id the SDK gave the request, if it was sent. */
  id?: RequestId;
  /** The raw reply, if one arrived. */
  reply?: RawReply;
}

/** Raw replies of the requests being tracked; nothing is kept for untracked or released requests. */
export class ReplyLedger {
  private readonly tracked = new WeakSet<object>();
  private readonly idByParams = new WeakMap<object, RequestId>();
  private readonly replies = new Map<string, RawReply | undefined>();

  /** Starts tracking the request whose params are this very object. Call before sending it. */
  track(params: object): void {
    this.tracked.add(params);
  }

  /** Called by the transport for every outgoing request. */
  noteSent(params: unknown, id: RequestId): void {
    if (typeof params !== 'object' || params === null || !this.tracked.has(params)) return;
    this.idByParams.set(params, id);
    this.replies.set(String(id), undefined);
  }

  /**
   * Called by the transport for every incoming reply; kept only when its request is tracked. The first
   * reply wins, as in the SDK, which settles a request with the first reply and drops later ones.
   */
  noteReply(id: RequestId, reply: RawReply): void {
    const key = String(id);
    if (this.replies.has(key) && this.replies.get(key) === undefined) this.replies.set(key, reply);
  }

  /** Stops tracking the request and hands back what was recorded for it. */
  release(params: object): LedgerEntry {
    this.tracked.delete(params);
    const id = this.idByParams.get(params);
    this.idByParams.delete(params);
    if (id === undefined) return {};
    const reply = this.replies.get(String(id));
    this.replies.delete(String(id));
    return reply === undefined ? { id } : { id, reply };
  }
}
