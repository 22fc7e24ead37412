/**
 * The built-in loop's model with `--model-fault` in front (docs/model-gateway.md, "Model-side faults"):
 * the faulted request never reaches the endpoint and ends as the endpoint adapter would have ended it,
 * every other request goes through; `after-write` is aimed at the scenario's write.
 */
import { describe, expect, it } from 'vitest';
import { FaultingChatModel, modelFaultTrigger } from '../../../src/app/trial/faulting-chat-model.js';
import type { ModelFault } from '../../../src/domain/faults/model-fault.js';
import type { ChatModel, ChatRequest } from '../../../src/ports/chat-model.port.js';

const classes: Record<string, string> = { create_booking: 'write', cancel_booking: 'write', search_bookings: 'read' };
const reply = { content: 'ok', toolCalls: [], finishReason: 'stop' };

function setUp(fault: ModelFault, scenario: Parameters<typeof modelFaultTrigger>[1] = { mode: 'none' }, timeoutMs = 300_000) {
  const sent: ChatRequest[] = [];
  const slept: number[] = [];
  const inner: ChatModel = {
    complete: (request) => {
      sent.push(request);
      return Promise.resolve({ ok: true, reply });
    },
    check: () => Promise.resolve({ ok: true }),
  };
  const trigger = modelFaultTrigger(fault, scenario, (tool) => classes[tool]);
  const sleep = (ms: number) => {
    slept.push(ms);
    return Promise.resolve();
  };
  return { model: new FaultingChatModel(inner, trigger, sleep, timeoutMs), sent, slept, trigger };
}

const user = { role: 'user' as const, content: 'Book.' };
const afterCall = (name: string, id = 'c1'): ChatRequest => ({
  messages: [
    user,
    { role: 'assistant', content: null, toolCalls: [{ id, name, argumentsText: '{}' }] },
    { role: 'tool', content: 'done', toolCallId: id },
  ],
  tools: [],
});

describe('model-side faults in the built-in loop', () => {
  it.each([
    [{ kind: '500' } as const, { kind: 'http', status: 500, retryable: true, modelFault: '500' }],
    [
      { kind: '429', retryAfterSeconds: 3 } as const,
      { kind: 'http', status: 429, retryAfterMs: 3000, retryable: true, modelFault: '429:3' },
    ],
    [{ kind: 'cut' } as const, { kind: 'network', retryable: true, modelFault: 'cut' }],
  ])('%j: the faulted request fails as the endpoint would, never sent; the retry goes through', async (fault, failure) => {
    const h = setUp({ fault, on: { kind: 'request', n: 1 } });
    expect(await h.model.complete({ messages: [user], tools: [] })).toMatchObject({ ok: false, failure });
    expect(h.sent).toHaveLength(0);
    expect(await h.model.complete({ messages: [user], tools: [] })).toEqual({ ok: true, reply });
    expect(h.sent).toHaveLength(1);
  });

  it('timeout: no answer for MS, or the loop’s own --model-timeout when that is shorter', async () => {
    const long = setUp({ fault: { kind: 'timeout', ms: 60_000 }, on: { kind: 'request', n: 1 } }, { mode: 'none' }, 5_000);
    expect(await long.model.complete({ messages: [user], tools: [] })).toMatchObject({
      ok: false,
      failure: { kind: 'timeout', retryable: true, modelFault: 'timeout:60000' },
    });
    expect(long.slept).toEqual([5_000]);
    const short = setUp({ fault: { kind: 'timeout', ms: 200 }, on: { kind: 'request', n: 1 } }, { mode: 'none' }, 5_000);
    await short.model.complete({ messages: [user], tools: [] });
    expect(short.slept).toEqual([200]);
    expect(short.sent).toHaveLength(0);
  });

  it("after-write with a scenario aimed at a tool: a read's or another write's result does not trigger it", async () => {
    const h = setUp(
      { fault: { kind: '500' }, on: { kind: 'after-write' } },
      { mode: 'scenario', id: 'F1', aim: { tools: ['cancel_*'], on: 1 } },
    );
    expect((await h.model.complete(afterCall('search_bookings'))).ok).toBe(true);
    expect((await h.model.complete(afterCall('create_booking'))).ok).toBe(true);
    expect((await h.model.complete(afterCall('cancel_booking'))).ok).toBe(false);
    expect(h.trigger.record()).toEqual({ kind: '500', on: 'after-write', triggered: true, request: 3 });
  });
});
