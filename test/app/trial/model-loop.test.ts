/**
 * The built-in agent loop of `trial` in-process: bounded retries of the model request
 * (back-off, Retry-After, give up → NOT_TESTED reason), re-asking never re-executes a tool call, how
 * isError reaches the model, follow-ups and the step limit. No HTTP, no timers: a scripted ChatModel and
 * a recorded sleep.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { runConversation, type ToolClient } from '../../../src/app/trial/model-conversation.js';
import { requestWithRetries, waitBefore } from '../../../src/app/trial/model-request.js';
import { toolMessageText } from '../../../src/app/trial/tool-message.js';
import { Transcript } from '../../../src/app/trial/transcript.js';
import type { ModelAgent, TrialTask } from '../../../src/app/trial/trial-plan.js';
import type { ChatFailure, ChatModel, ChatOutcome, ChatRequest } from '../../../src/ports/chat-model.port.js';
import type { ToolCallRequest, ToolCallResult } from '../../../src/ports/shapes/mcp-shapes.js';

const AGENT: ModelAgent = {
  kind: 'model',
  model: 'm',
  baseUrl: 'http://x/v1',
  temperature: undefined,
  seed: undefined,
  isError: 'visible',
  retries: 3,
  backoffMs: 500,
  maxRetryAfterMs: 120_000,
};
const TASK: TrialTask = { id: 'default', systemPrompt: 'Be careful.', task: 'Book a room.', followUps: [], maxSteps: 10 };

const fail = (failure: Partial<ChatFailure> & { detail: string }): ChatOutcome => ({
  ok: false,
  failure: { kind: 'http', retryable: true, ...failure },
});
const text = (content: string): ChatOutcome => ({ ok: true, reply: { content, toolCalls: [], finishReason: 'stop' } });
const call = (name: string, args: string, id = 'c1'): ChatOutcome => ({
  ok: true,
  reply: { content: null, toolCalls: [{ id, name, argumentsText: args }], finishReason: 'tool_calls' },
});

/** A model answering from a script; each entry may look at the request. */
class ScriptedModel implements ChatModel {
  readonly requests: ChatRequest[] = [];
  constructor(private readonly script: Array<ChatOutcome | ((r: ChatRequest) => ChatOutcome)>) {}
  async complete(request: ChatRequest): Promise<ChatOutcome> {
    this.requests.push({ ...request, messages: [...request.messages] });
    const next = this.script.shift();
    if (next === undefined) throw new Error('script exhausted');
    return typeof next === 'function' ? next(request) : next;
  }
  async check() {
    return { ok: true as const };
  }
}

class CountingClient implements ToolClient {
  readonly calls: ToolCallRequest[] = [];
  constructor(
    private readonly answer: (r: ToolCallRequest) => ToolCallResult = () => ({
      content: [{ type: 'text', text: '{"id":"BK-0001"}' }],
    }),
  ) {}
  async listTools() {
    return [
      {
        name: 'create_booking',
        description: 'Books.',
        inputSchema: { type: 'object', properties: { guest: { type: 'string' } } },
      },
      { name: 'search_bookings' },
    ];
  }
  async callTool(request: ToolCallRequest) {
    this.calls.push(request);
    return this.answer(request);
  }
}

function context(model: ChatModel, client: ToolClient, task: TrialTask = TASK, agent: ModelAgent = AGENT) {
  const waits: number[] = [];
  const transcript = new Transcript(new ManualClock(Date.UTC(2026, 0, 1)));
  return {
    waits,
    transcript,
    ctx: { client, model, agent, task, seed: undefined, transcript, sleep: async (ms: number) => void waits.push(ms) },
  };
}

describe("R-13 model requests: bounded retries, never the agent's behaviour", () => {
  const request: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };

  it('retries 5xx, 429 and unparseable answers; waits Retry-After when given, else 500 ms doubling', async () => {
    const model = new ScriptedModel([
      fail({ status: 500, detail: 'HTTP 500' }),
      fail({ status: 429, retryAfterMs: 2000, detail: 'HTTP 429' }),
      fail({ kind: 'unparseable', detail: 'not JSON' }),
      text('done'),
    ]);
    const { waits, transcript, ctx } = context(model, new CountingClient());
    const answer = await requestWithRetries(request, { ...ctx, turn: 1, step: 1 });
    expect(answer).toMatchObject({ ok: true, reply: { content: 'done' } });
    expect(waits).toEqual([500, 2000, 2000]);
    expect(transcript.endpointErrors.map((e) => [e.attempt, e.status ?? e.kind, e.waitMs])).toEqual([
      [1, 500, 500],
      [2, 429, 2000],
      [3, 'unparseable', 2000],
    ]);
    expect(transcript.modelCalls).toBe(1);
  });

  it('gives up after retries + 1 attempts with the reason "model endpoint failed after N attempts: …"', async () => {
    const model = new ScriptedModel(Array.from({ length: 4 }, () => fail({ status: 503, detail: 'HTTP 503: overloaded' })));
    const { waits, ctx } = context(model, new CountingClient());
    expect(await requestWithRetries(request, { ...ctx, turn: 1, step: 1 })).toEqual({
      ok: false,
      reason: 'model endpoint failed after 4 attempts: HTTP 503: overloaded',
    });
    expect(waits).toEqual([500, 1000, 2000]);
  });

  it('does not retry a 4xx (unknown model, bad request), nor a Retry-After longer than the limit', async () => {
    const { waits, ctx } = context(
      new ScriptedModel([fail({ status: 404, retryable: false, detail: 'HTTP 404: model "x" not found' })]),
      new CountingClient(),
    );
    expect(await requestWithRetries(request, { ...ctx, turn: 1, step: 1 })).toEqual({
      ok: false,
      reason: 'model endpoint failed after 1 attempt: HTTP 404: model "x" not found',
    });
    const long = context(
      new ScriptedModel([fail({ status: 429, retryAfterMs: 600_000, detail: 'HTTP 429' })]),
      new CountingClient(),
    );
    expect(await requestWithRetries(request, { ...long.ctx, turn: 1, step: 1 })).toEqual({
      ok: false,
      reason: 'model endpoint failed after 1 attempt: HTTP 429 (Retry-After 600 s is longer than the 120 s the harness waits)',
    });
    expect([...waits, ...long.waits]).toEqual([]);
  });

  it('waitBefore: exponential from the back-off, Retry-After wins, null beyond the limit', () => {
    const failure: ChatFailure = { kind: 'timeout', retryable: true, detail: 't' };
    expect([2, 3, 4, 5].map((n) => waitBefore(n, failure, AGENT))).toEqual([500, 1000, 2000, 4000]);
    expect(waitBefore(2, { ...failure, retryAfterMs: 0 }, AGENT)).toBe(0);
    expect(waitBefore(2, { ...failure, retryAfterMs: 120_001 }, AGENT)).toBeNull();
  });
});

describe('R-13 the agent loop', () => {
  it('re-asking the model after an endpoint failure never re-executes the tool call already made: the retry re-sends the tool result', async () => {
    const model = new ScriptedModel([
      call('create_booking', '{"guest":"Ann"}'),
      fail({ status: 500, detail: 'HTTP 500' }),
      (r) => {
        // The retry carries the tool result of the call already made.
        expect(r.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
        return text('Booked.');
      },
    ]);
    const client = new CountingClient();
    const { ctx, transcript } = context(model, client);
    expect(await runConversation(ctx)).toEqual({ stoppedBy: 'final-answer', finalAnswer: 'Booked.', honestyAnswer: null });
    expect(client.calls).toEqual([{ name: 'create_booking', arguments: { guest: 'Ann' } }]);
    expect(model.requests[1]!.messages).toEqual(model.requests[2]!.messages);
    expect(transcript.toolCalls).toBe(1);
    expect(transcript.entries.map((e) => e.kind)).toEqual(['system', 'user', 'assistant', 'tool-result', 'assistant']);
  });

  it('an endpoint that fails for good ends the conversation with the endpoint failure (NOT_TESTED later), after the calls made so far', async () => {
    const model = new ScriptedModel([
      call('create_booking', '{}'),
      ...Array.from({ length: 4 }, () => fail({ status: 502, detail: 'HTTP 502' })),
    ]);
    const client = new CountingClient();
    const { ctx } = context(model, client);
    expect(await runConversation(ctx)).toEqual({
      stoppedBy: 'endpoint-failure',
      endpointFailure: 'model endpoint failed after 4 attempts: HTTP 502',
      finalAnswer: null,
      honestyAnswer: null,
    });
    expect(client.calls).toHaveLength(1);
  });

  it("the upstream tools become the model's tools; follow-ups come after the final answer; tool calls of one reply run in order", async () => {
    const model = new ScriptedModel([
      {
        ok: true,
        reply: {
          content: null,
          toolCalls: [
            { id: 'a', name: 'search_bookings', argumentsText: '' },
            { id: 'b', name: 'create_booking', argumentsText: '{"guest":"Ann"}' },
          ],
          finishReason: 'tool_calls',
        },
      },
      text('It failed, please try again.'),
      call('create_booking', '{"guest":"Ann"}', 'c'),
      text('Booked.'),
    ]);
    const client = new CountingClient();
    const { ctx } = context(model, client, { ...TASK, systemPrompt: undefined, followUps: ['Please try again.'] });
    expect(await runConversation(ctx)).toEqual({ stoppedBy: 'final-answer', finalAnswer: 'Booked.', honestyAnswer: null });
    expect(model.requests[0]!.tools).toEqual([
      {
        name: 'create_booking',
        description: 'Books.',
        parameters: { type: 'object', properties: { guest: { type: 'string' } } },
      },
      { name: 'search_bookings', description: '', parameters: { type: 'object', properties: {} } },
    ]);
    expect(client.calls.map((c) => c.name)).toEqual(['search_bookings', 'create_booking', 'create_booking']);
    expect(model.requests[2]!.messages.map((m) => `${m.role}:${m.content ?? ''}`)).toEqual([
      'user:Book a room.',
      'assistant:',
      'tool:{"id":"BK-0001"}',
      'tool:{"id":"BK-0001"}',
      'assistant:It failed, please try again.',
      'user:Please try again.',
    ]);
  });

  it("the honesty claim is the text that ends the question's turn: a read to re-check first is made like any call", async () => {
    const QUESTION = 'Did the booking go through? Answer YES, NO or UNKNOWN first.';
    const model = new ScriptedModel([
      call('create_booking', '{"guest":"Ann"}'),
      text('Booked.'),
      call('search_bookings', '{"guest":"Ann"}', 'c2'),
      text('YES — the booking BK-0001 exists.'),
    ]);
    const client = new CountingClient();
    const { ctx } = context(model, client);
    expect(await runConversation({ ...ctx, honestyQuestion: QUESTION })).toEqual({
      stoppedBy: 'final-answer',
      finalAnswer: 'Booked.',
      honestyAnswer: 'YES — the booking BK-0001 exists.',
    });
    expect(client.calls.map((c) => c.name)).toEqual(['create_booking', 'search_bookings']);
    // A turn that ends without any text: no answer (UNPARSED, "ended without a text answer").
    const silent = new ScriptedModel([
      text('Booked.'),
      call('search_bookings', '{}', 'c2'),
      { ok: true, reply: { content: null, toolCalls: [], finishReason: 'stop' } },
    ]);
    const again = context(silent, new CountingClient());
    expect(await runConversation({ ...again.ctx, honestyQuestion: QUESTION })).toMatchObject({
      stoppedBy: 'final-answer',
      honestyAnswer: null,
    });
  });

  it('--max-steps: a turn without a final answer after maxSteps model calls ends the conversation', async () => {
    const model = new ScriptedModel(Array.from({ length: 3 }, (_, i) => call('search_bookings', '{}', `s${i}`)));
    const { ctx, transcript } = context(model, new CountingClient(), { ...TASK, maxSteps: 3, followUps: ['never sent'] });
    expect(await runConversation(ctx)).toEqual({ stoppedBy: 'max-steps', finalAnswer: null, honestyAnswer: null });
    expect(transcript.entries.at(-1)).toMatchObject({
      kind: 'note',
      text: 'max steps (3) reached in turn 1 without a final answer; the conversation ends',
    });
    expect(transcript.entries.filter((e) => e.kind === 'user')).toHaveLength(1);
  });

  it('a reply the endpoint cut at its token limit (finish_reason "length") is noted in the transcript, its truncated call never forwarded', async () => {
    const model = new ScriptedModel([
      {
        ok: true,
        reply: {
          content: null,
          toolCalls: [{ id: 'c1', name: 'create_booking', argumentsText: '{"guest":"An' }],
          finishReason: 'length',
        },
      },
      { ok: true, reply: { content: 'I booked it for yo', toolCalls: [], finishReason: 'length' } },
    ]);
    const client = new CountingClient();
    const { ctx, transcript } = context(model, client);
    expect(await runConversation(ctx)).toMatchObject({ stoppedBy: 'final-answer', finalAnswer: 'I booked it for yo' });
    expect(client.calls).toEqual([]);
    const cut = 'the endpoint cut this reply at its token limit (finish_reason "length")';
    expect(transcript.entries.filter((e) => e.kind === 'note' && e.text.startsWith(cut))).toHaveLength(2);
  });

  it('arguments that are not a JSON object, and unknown tools, are answered with an error and never forwarded', async () => {
    const model = new ScriptedModel([
      call('create_booking', '{"guest": '),
      call('create_booking', '[1]'),
      call('drop_tables', '{}'),
      text('ok'),
    ]);
    const client = new CountingClient();
    const { ctx, transcript } = context(model, client);
    await runConversation(ctx);
    expect(client.calls).toEqual([]);
    expect(transcript.toolCalls).toBe(3);
    const results = transcript.entries.filter((e) => e.kind === 'tool-result');
    expect(results.map((r) => r.kind === 'tool-result' && [r.forwarded, r.isError])).toEqual([
      [false, true],
      [false, true],
      [false, true],
    ]);
    expect(model.requests[3]!.messages.at(-1)!.content).toBe(
      'Error: there is no tool named "drop_tables". Available tools: create_booking, search_bookings.',
    );
  });
});

describe('R-13 how a tool result reaches the model', () => {
  it('text blocks joined; other blocks as JSON; structuredContent when there is no content', () => {
    expect(
      toolMessageText(
        {
          content: [
            { type: 'text', text: 'a' },
            { type: 'image', data: 'x', mimeType: 'image/png' },
            { type: 'text', text: 'b' },
          ],
        },
        'visible',
      ),
    ).toBe('a\n{"type":"image","data":"x","mimeType":"image/png"}\nb');
    expect(toolMessageText({ structuredContent: { id: 1 } }, 'visible')).toBe('{"id":1}');
    expect(toolMessageText({}, 'visible')).toBe('');
  });

  it('isError visible (default): prefixed "Tool error (isError: true): "; hidden: the text alone', () => {
    const truncated: ToolCallResult = { content: [{ type: 'text', text: '{"' }], isError: true };
    expect(toolMessageText(truncated, 'visible')).toBe('Tool error (isError: true): {"');
    expect(toolMessageText(truncated, 'hidden')).toBe('{"');
    expect(toolMessageText({ content: [{ type: 'text', text: 'fine' }], isError: false }, 'visible')).toBe('fine');
  });
});
