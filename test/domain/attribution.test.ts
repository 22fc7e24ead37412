import { describe, expect, it } from 'vitest';
import { attributeRepeats, type AgentEvent } from '../../src/domain/attribution.js';

const ARGS = '{"guest":"Ann Lee"}';
const answer = (at: number, exchange: number, ...ids: string[]): AgentEvent => ({
  kind: 'model-answer',
  at,
  exchange,
  toolCalls: ids.map((id) => ({ id, tool: 'create_booking', arguments: ARGS })),
});
const call = (at: number, attempt: number, session = 1, args = ARGS): Extract<AgentEvent, { kind: 'call' }> => ({
  kind: 'call',
  at,
  session,
  attempt,
  operation: 1,
  tool: 'create_booking',
  arguments: args,
});
const delivered = (at: number, attempt: number, session = 1, cancelled = false): AgentEvent => ({
  kind: 'delivered',
  at,
  session,
  attempt,
  cancelled,
});

describe('attribution: who sent a write again', () => {
  it('model: a new model answer asked for the write again after the earlier answer was delivered', () => {
    const events = [answer(10, 1, 'c1'), call(11, 1), delivered(20, 1), answer(30, 2, 'c2'), call(31, 2)];
    expect(attributeRepeats(events, true)).toEqual([
      {
        operation: 1,
        tool: 'create_booking',
        attempt: 2,
        session: 1,
        source: 'model',
        evidence: {
          earlierAttempt: 1,
          earlierSession: 1,
          sinceEarlierMs: 20,
          earlierDelivered: true,
          earlierCancelled: false,
          modelAnswer: 2,
          toolCallId: 'c2',
        },
      },
    ]);
  });

  it('user: a user turn came between the earlier attempt and the model answer that asked again', () => {
    const events = [
      answer(10, 1, 'c1'),
      call(11, 1),
      delivered(20, 1),
      { kind: 'user-turn' as const, at: 25 },
      answer(30, 2, 'c2'),
      call(31, 2),
    ];
    expect(attributeRepeats(events, true).map((a) => a.source)).toEqual(['user']);
  });

  it('runtime: one tool call carried out twice (a client that dispatches it again, a retry after a time-out)', () => {
    const events = [answer(10, 1, 'c1'), call(11, 1), delivered(12, 1, 1, true), call(13, 2)];
    const [repeat] = attributeRepeats(events, true);
    expect(repeat).toMatchObject({ source: 'runtime', evidence: { earlierDelivered: true, earlierCancelled: true } });
    expect(repeat!.evidence.toolCallId).toBeUndefined();
  });

  it('runtime: the repeat arrives in another MCP session while the earlier attempt is still unanswered', () => {
    const events = [answer(10, 1, 'c1'), call(11, 1, 1), call(12, 1, 2)];
    expect(attributeRepeats(events, true)).toMatchObject([
      { source: 'runtime', session: 2, evidence: { earlierSession: 1, earlierDelivered: false } },
    ]);
  });

  it('model: two tool calls of one answer for the same write are the model asking twice, not the runtime', () => {
    const events = [answer(10, 1, 'c1', 'c2'), call(11, 1), call(11, 2)];
    expect(attributeRepeats(events, true).map((a) => [a.source, a.evidence.toolCallId])).toEqual([['model', 'c2']]);
  });

  it('a framework that rewrote the arguments still takes the tool call of the same tool', () => {
    const events = [
      answer(10, 1, 'c1'),
      call(11, 1, 1, '{"guest":"Ann Lee","nights":1}'),
      delivered(12, 1),
      answer(20, 2, 'c2'),
      call(21, 2, 1, '{"guest":"Ann Lee","nights":1}'),
    ];
    expect(attributeRepeats(events, true).map((a) => a.source)).toEqual(['model']);
  });

  it('unknown without the model side; a first attempt and reads are never attributed', () => {
    const events: AgentEvent[] = [call(11, 1), { ...call(12, 2), operation: null, tool: 'search_bookings' }, call(13, 3)];
    expect(attributeRepeats(events, false)).toMatchObject([{ attempt: 3, source: 'unknown' }]);
  });
});
