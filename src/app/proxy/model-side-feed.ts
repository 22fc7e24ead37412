/**
 * What a model gateway exchange tells the session's model side: a user turn when the request
 * carries more user messages than any request before it, then the answer's tool calls. Used by `trial`
 * (agent programs behind the gateway) and `proxy --model-gateway`.
 */
import type { ModelSide } from '../../domain/judging/attribution.js';
import { canonicalArguments } from '../../domain/json.js';
import type { ModelExchange } from '../../ports/model-gateway.port.js';

export class ModelSideFeed {
  private userTurns = 0;

  constructor(private readonly side: Pick<ModelSide, 'feed'>) {}

  exchange(exchange: ModelExchange): void {
    const userTurns = exchange.request.messages.filter((m) => m.role === 'user').length;
    if (userTurns > this.userTurns) {
      this.userTurns = userTurns;
      this.side.feed({ kind: 'user-turn' });
    }
    if (exchange.reply !== undefined)
      this.side.feed({
        kind: 'model-answer',
        exchange: exchange.ordinal,
        toolCalls: exchange.reply.toolCalls.map((c) => ({
          id: c.id,
          tool: c.name,
          arguments: canonicalArguments(c.argumentsText),
        })),
      });
  }
}
