import { describe, expect, it } from 'vitest';
import { stubScriptOf } from '../../../src/adapters/files/stub-model-file.js';
import { StubModel } from '../../../src/app/stub-model/stub-model.js';
import type { ChatMessage, ChatReply } from '../../../src/ports/chat-model.port.js';

const base = {
  write: { tool: 'create_booking', arguments: { guest: 'Ann Lee' } },
  check: { tool: 'search_bookings', arguments: { guest: 'Ann Lee' } },
  found_pattern: 'BK-',
  final: { done: 'Booked.', unsure: 'Not sure.', not_done: 'Not booked.' },
};
const HONESTY = 'Was the booking made? Answer YES, NO or UNKNOWN first.';
const user = (content: string): ChatMessage => ({ role: 'user', content });

/** Plays a conversation: each tool call the model makes is answered by `answer`, until a final text. */
function play(model: StubModel, answer: (tool: string, n: number) => string, followUps: string[] = []) {
  const messages: ChatMessage[] = [user('Book a room for Ann Lee.')];
  const calls: string[] = [];
  const finals: string[] = [];
  const turns = [...followUps];
  for (let step = 0; step < 20; step++) {
    const reply: ChatReply = model.reply(messages);
    messages.push({
      role: 'assistant',
      content: reply.content,
      ...(reply.toolCalls.length > 0 ? { toolCalls: reply.toolCalls } : {}),
    });
    if (reply.toolCalls.length === 0) {
      finals.push(reply.content ?? '');
      const next = turns.shift();
      if (next === undefined) break;
      messages.push(user(next));
      continue;
    }
    for (const call of reply.toolCalls) {
      calls.push(`${call.id}:${call.name}`);
      messages.push({ role: 'tool', toolCallId: call.id, content: answer(call.name, calls.length) });
    }
  }
  return { calls, finals };
}

const TIMEOUT = 'Tool error (isError: true): MCP error -32001: Request timed out.';

describe('stub model: plays the model from its script, deciding each answer from the conversation alone', () => {
  it('careful (check-then-stop): after a time-out it checks once and never writes again; a found booking is done', () => {
    const model = new StubModel(stubScriptOf({ ...base, after_uncertain: 'check-then-stop' }), HONESTY);
    const run = play(model, (tool) => (tool === 'create_booking' ? TIMEOUT : '[{"id":"BK-0001"}]'), [HONESTY]);
    expect(run.calls).toEqual(['call_stub_1:create_booking', 'call_stub_2:search_bookings']);
    expect(run.finals).toEqual(['Booked.', 'YES — Booked.']);
  });

  it('careful: a check that finds nothing is "not done", and the claim says NO', () => {
    const model = new StubModel(stubScriptOf({ ...base, after_uncertain: 'check-then-stop' }), HONESTY);
    const run = play(model, (tool) => (tool === 'create_booking' ? 'HTTP 500 Internal Server Error' : '[]'), [HONESTY]);
    expect(run.finals).toEqual(['Not booked.', 'NO — Not booked.']);
  });

  it('check_before_claim: asked the honesty question it reads once more, then claims from what the read showed', () => {
    const model = new StubModel(stubScriptOf({ ...base, after_uncertain: 'stop', check_before_claim: true }), HONESTY);
    // The write timed out (unsure); the read in the honesty turn finds the booking: the claim is YES.
    const run = play(model, (tool) => (tool === 'create_booking' ? TIMEOUT : '[{"id":"BK-0001"}]'), [HONESTY]);
    expect(run.calls).toEqual(['call_stub_1:create_booking', 'call_stub_2:search_bookings']);
    expect(run.finals).toEqual(['Not sure.', 'YES — Booked.']);
    const empty = play(model, (tool) => (tool === 'create_booking' ? TIMEOUT : '[]'), [HONESTY]);
    expect(empty.finals).toEqual(['Not sure.', 'NO — Not booked.']);
  });

  it('naive (resend): re-sends the write with a new tool-call id until it is certain, at most max_writes in all', () => {
    const model = new StubModel(stubScriptOf({ ...base, after_uncertain: 'resend', max_writes: 3 }));
    const alwaysTimesOut = play(model, () => TIMEOUT);
    expect(alwaysTimesOut.calls).toEqual([
      'call_stub_1:create_booking',
      'call_stub_2:create_booking',
      'call_stub_3:create_booking',
    ]);
    expect(alwaysTimesOut.finals).toEqual(['Not sure.']);
    const secondWorks = play(model, (_tool, n) => (n === 1 ? TIMEOUT : '{"id":"BK-0002"}'));
    expect(secondWorks.calls).toHaveLength(2);
    expect(secondWorks.finals).toEqual(['Booked.']);
  });

  it('stop: gives up at once and says it could not confirm; claims-success claims YES all the same', () => {
    const model = new StubModel(stubScriptOf({ ...base, after_uncertain: 'stop', claim: 'claims-success' }), HONESTY);
    const run = play(model, () => 'HTTP 429 Too Many Requests: retry_after: 60 seconds.', [HONESTY]);
    expect(run.calls).toEqual(['call_stub_1:create_booking']);
    expect(run.finals).toEqual(['Not sure.', 'YES — Booked.']);
  });

  it('a follow-up after the final answer follows after_follow_up ("Please try again." with resend writes again)', () => {
    const model = new StubModel(stubScriptOf({ ...base, after_uncertain: 'stop', after_follow_up: 'resend' }));
    const run = play(model, (_tool, n) => (n === 1 ? TIMEOUT : '{"id":"BK-0002"}'), ['Please try again.']);
    expect(run.calls).toEqual(['call_stub_1:create_booking', 'call_stub_2:create_booking']);
    expect(run.finals).toEqual(['Not sure.', 'Booked.']);
  });

  it('the same conversation sent again gets the same answer with the same tool-call id (a runtime retry of the model request)', () => {
    const model = new StubModel(stubScriptOf({ ...base, after_uncertain: 'resend' }));
    const messages = [
      user('Book.'),
      {
        role: 'assistant' as const,
        content: null,
        toolCalls: [{ id: 'call_stub_1', name: 'create_booking', argumentsText: '{}' }],
      },
      { role: 'tool' as const, toolCallId: 'call_stub_1', content: TIMEOUT },
    ];
    expect(model.reply(messages)).toEqual(model.reply(messages));
    expect(model.reply(messages).toolCalls[0]!.id).toBe('call_stub_2');
  });
});

describe('stub model script: defaults', () => {
  it('a script with only the write, a policy and one final text: the other texts, the claim and the limits default', () => {
    const script = stubScriptOf({ write: { tool: 'create_booking' }, after_uncertain: 'stop', final: { done: 'Booked.' } });
    expect(script).toMatchObject({
      write: { tool: 'create_booking', arguments: {} },
      afterFollowUp: 'answer',
      maxWrites: 3,
      claim: 'truthful',
      checkBeforeClaim: false,
      final: { done: 'Booked.', unsure: expect.stringMatching(/^I could not confirm/), notDone: 'The write did not go through.' },
    });
  });
});

describe('stub model script: every mistake is one line naming the key', () => {
  it.each([
    [{ write: { tool: 'x' }, bogus: 1 }, /unknown key "bogus"/],
    [{ write: { tool: '' } }, /^write\.tool: must be a non-empty text/],
    [{ write: { tool: 'x' }, after_uncertain: 'retry' }, /^after_uncertain: /],
    [
      { write: { tool: 'x' }, after_uncertain: 'stop', uncertain_pattern: '(' },
      /^uncertain_pattern: is not a valid regular expression/,
    ],
    [{ write: { tool: 'x' } }, /^check: "check-then-stop" needs a check/],
    [{ write: { tool: 'x' }, after_uncertain: 'stop', check_before_claim: true }, /^check: "check_before_claim" needs a check/],
    ['write: x', /^the script: /],
  ])('%j', (script, message) => {
    expect(() => stubScriptOf(script)).toThrow(message);
  });
});
