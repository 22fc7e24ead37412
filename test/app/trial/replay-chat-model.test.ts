/**
 * `--model-replay` (docs/replay.md): the recorded answers in order, each request compared with the recorded
 * one (messages and tools, tool-call ids left out); the first that differs stops the model's side.
 */
import { describe, expect, it } from 'vitest';
import {
  modelFaultMismatch,
  ReplayChatModel,
  recordedModelExchanges,
  withoutInjectedFaults,
  type RecordedModelExchange,
} from '../../../src/app/trial/replay-chat-model.js';
import type { ChatRequest } from '../../../src/ports/chat-model.port.js';
import type { CassetteLine } from '../../../src/ports/cassette.port.js';

const tools = [{ name: 'create_booking', description: 'Books a room.', parameters: { type: 'object' } }];
const first: ChatRequest = { messages: [{ role: 'user', content: 'Book a room.' }], tools };
const call = { id: 'call_1', name: 'create_booking', argumentsText: '{"guest":"Ann"}' };
const second = (result: string, id = 'call_1'): ChatRequest => ({
  messages: [
    { role: 'user', content: 'Book a room.' },
    { role: 'assistant', content: null, toolCalls: [{ ...call, id }] },
    { role: 'tool', content: result, toolCallId: id },
  ],
  tools,
});
const exchanges: RecordedModelExchange[] = [
  { request: first, answer: { content: null, toolCalls: [call], finishReason: 'tool_calls' } },
  { request: second('timed out'), answer: { content: 'Booked.', toolCalls: [], finishReason: 'stop' } },
];

describe('ReplayChatModel', () => {
  it('answers the recorded requests in order, whatever the tool-call ids and key order', async () => {
    const model = new ReplayChatModel(exchanges);
    const a = await model.complete({ tools, messages: [{ content: 'Book a room.', role: 'user' }] });
    expect(a).toEqual({ ok: true, reply: { content: null, toolCalls: [call], finishReason: 'tool_calls' } });
    const b = await model.complete(second('timed out', 'call_other'));
    expect(b).toEqual({ ok: true, reply: { content: 'Booked.', toolCalls: [], finishReason: 'stop' } });
    expect(model.mismatch).toBeNull();
  });

  it('a request that differs stops the replay, naming the request and the message where it differs', async () => {
    const model = new ReplayChatModel(exchanges);
    await model.complete(first);
    const b = await model.complete(second('HTTP 429'));
    expect(b.ok).toBe(false);
    expect(model.mismatch).toBe(
      'model replay mismatch: model request 2 is not the recorded one: message 3 (tool): recorded {"content":"timed out","role":"tool"}, now {"content":"HTTP 429","role":"tool"}',
    );
    // Stopped: even the recorded request is refused now.
    expect((await model.complete(second('timed out'))).ok).toBe(false);
  });

  it('other tools, or a request beyond the recording, are a mismatch too', async () => {
    const other = new ReplayChatModel(exchanges);
    await other.complete({ ...first, tools: [{ ...tools[0]!, name: 'book' }] });
    expect(other.mismatch).toMatch(/model request 1 .*the tools offered differ: recorded \[create_booking\], now \[book\]/);
    const beyond = new ReplayChatModel(exchanges.slice(0, 1));
    await beyond.complete(first);
    await beyond.complete(second('timed out'));
    expect(beyond.mismatch).toMatch(/model request 2 .*the recording holds 1 model request\(s\), none more/);
  });

  it('a recorded failure is replayed as one, retryable only when the recording goes on', async () => {
    const model = new ReplayChatModel([
      { request: first, answer: { error: 'http: HTTP 500' } },
      { request: first, answer: { error: 'http: HTTP 500' } },
    ]);
    const a = await model.complete(first);
    const b = await model.complete(first);
    expect(a.ok || b.ok).toBe(false);
    expect(!a.ok && a.failure.retryable).toBe(true);
    expect(!b.ok && b.failure.retryable).toBe(false);
  });

  it('reads the exchanges of a recording in order, leaving out the upstream lines', () => {
    const lines: CassetteLine[] = [
      { side: 'upstream', dir: 'send', message: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
      { side: 'model', dir: 'send', exchange: 1, request: first },
      { side: 'model', dir: 'receive', exchange: 1, answer: exchanges[0]!.answer! },
      { side: 'model', dir: 'send', exchange: 2, request: second('timed out') },
    ];
    expect(recordedModelExchanges(lines)).toEqual([exchanges[0]]);
  });
});

describe("replaying under the recording's own --model-fault", () => {
  const reply = { content: 'ok', toolCalls: [], finishReason: 'stop' };
  const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
  it('the injected failure is left out (the fault in front injects it again); a real recorded failure stays', () => {
    const exchanges = [
      { request, answer: { error: 'http: model fault 500: HTTP 500 (injected by the harness)', modelFault: '500' } },
      { request, answer: { error: 'http: HTTP 503 from the endpoint' } },
      { request, answer: reply },
    ];
    expect(withoutInjectedFaults(exchanges)).toEqual(exchanges.slice(1));
  });

  it("a different model fault than the recording's, or one on a recording made without, is named in one line; the same or none passes", () => {
    const fault = { fault: { kind: '500' as const }, on: { kind: 'after-write' as const } };
    const recorded = { fault: '500', on: 'after-write' };
    expect(modelFaultMismatch(recorded, fault)).toBeNull();
    expect(modelFaultMismatch(recorded, undefined)).toBeNull();
    expect(modelFaultMismatch(undefined, undefined)).toBeNull();
    expect(modelFaultMismatch(recorded, { fault: { kind: '429', retryAfterSeconds: 1 }, on: { kind: 'after-write' } })).toBe(
      "was made under --model-fault 500 --model-fault-on after-write, this trial gives --model-fault 429:1 --model-fault-on after-write: replay it under the recording's own model fault",
    );
    expect(modelFaultMismatch(undefined, { ...fault, on: { kind: 'request', n: 2 } })).toBe(
      "was made without --model-fault, this trial gives --model-fault 500 --model-fault-on 2: replay it under the recording's own model fault",
    );
  });
});
