/**
 * The agent's and the upstream's steps that the session's property tests draw at random: a call sent
 * (tool, distinct argument `n`, optional key) and an open call answered (picked by index, how the upstream
 * answered, whether the agent got it at once).
 */
import fc from 'fast-check';
import type { Upstream } from './session-driver.js';

export interface SendAction {
  kind: 'send';
  tool: string;
  n: number;
  key: string | null;
}

export interface AnswerAction {
  kind: 'answer';
  pick: number;
  upstream: Upstream;
  deliver: boolean;
}

/** A call of one of `tools`, with `n` in 0…maxN and a key of `keys`. */
export function sendAction(
  tools: readonly string[],
  maxN: number,
  keys: ReadonlyArray<string | null> = [null, 'k1', 'k2'],
): fc.Arbitrary<SendAction> {
  return fc.record({
    kind: fc.constant('send' as const),
    tool: fc.constantFrom(...tools),
    n: fc.integer({ min: 0, max: maxN }),
    key: fc.constantFrom(...keys),
  });
}

/** An answer to an open call, the upstream's way drawn from `upstreams`. */
export function answerAction(upstreams: readonly Upstream[]): fc.Arbitrary<AnswerAction> {
  return fc.record({
    kind: fc.constant('answer' as const),
    pick: fc.nat(),
    deliver: fc.boolean(),
    upstream: fc.constantFrom(...upstreams),
  });
}
