/**
 * The Responses conversations a gateway keeps for `previous_response_id` (its answer's id → the whole
 * conversation up to that answer). Bounded: the last {@link REMEMBERED_CONVERSATIONS} answers, the oldest
 * forgotten first, so a long run or `proxy` session keeps a fixed number however many it saw.
 */
import type { ChatMessage, ChatRequest } from '../../ports/chat-model.port.js';
import type { DecodedRequest } from './wire.js';

/** How many Responses conversations a gateway keeps for `previous_response_id`. */
export const REMEMBERED_CONVERSATIONS = 64;

export class ResponsesConversations {
  private readonly conversations = new Map<string, ChatMessage[]>();

  constructor(private readonly limit: number = REMEMBERED_CONVERSATIONS) {}

  /** An answer's conversation, for a later `previous_response_id`; the oldest goes past the limit. */
  remember(id: string, conversation: ChatMessage[]): void {
    this.conversations.delete(id);
    this.conversations.set(id, conversation);
    if (this.conversations.size > this.limit) this.conversations.delete(this.conversations.keys().next().value as string);
  }

  /**
   * The request with the earlier turns its `previous_response_id` names in front (the new request's
   * instructions replace the earlier system prompt); the request as sent without one; null when the id is
   * not among those kept.
   */
  continued(decoded: DecodedRequest): ChatRequest | null {
    if (decoded.previousResponseId === undefined) return decoded.chat;
    const earlier = this.conversations.get(decoded.previousResponseId);
    if (earlier === undefined) return null;
    const own = decoded.chat.messages;
    const system = own.filter((m) => m.role === 'system');
    const history = system.length > 0 ? earlier.filter((m) => m.role !== 'system') : earlier;
    return { ...decoded.chat, messages: [...system, ...history, ...own.filter((m) => m.role !== 'system')] };
  }
}
