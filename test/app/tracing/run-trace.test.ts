/**
 * `trial --otel` through the ports (docs/traces.md): a run's `invoke_agent` span under the trial's, the
 * built-in loop's model requests as `chat {model}` client spans (token usage, finish reason, the
 * endpoint's address and provider, an injected model fault), an agent program's gateway exchanges as the
 * same spans at the times the gateway saw them, the run's verdicts as evaluation events, and a run the
 * trial never finished ended as interrupted. On a recording Tracer; the real export: e2e/trial-traces.
 */
import { describe, expect, it } from 'vitest';
import { endpointAttributes, TrialTrace } from '../../../src/app/tracing/run-trace.js';
import type { ModelAgent, CommandAgent, RunSpec } from '../../../src/app/trial/trial-plan.js';
import type { ChatModel, ChatOutcome } from '../../../src/ports/chat-model.port.js';
import type { RunFacts } from '../../../src/domain/trial/index.js';
import { RecordingTracer } from '../../support/recording-tracer.js';

const SPEC: RunSpec = {
  id: 'F1-001',
  index: 1,
  scenarioLabel: 'F1',
  scenario: { mode: 'scenario', id: 'F1' },
  task: { id: 'default', systemPrompt: undefined, task: 'Book it.', followUps: [], maxSteps: 10 },
  seed: 7,
  arm: 'baseline',
};
const LOOP: ModelAgent = {
  kind: 'model',
  model: 'gpt-4.1-mini',
  baseUrl: 'https://api.openai.com/v1',
  temperature: 0.2,
  seed: 7,
  isError: 'visible',
  retries: 3,
  backoffMs: 1,
  maxRetryAfterMs: 1000,
};
const FACTS: RunFacts = {
  scenario: 'F1',
  taskId: 'default',
  arm: 'baseline',
  verdict: 'FAIL',
  reason: 'create_booking executed 2 times',
  duplicatedOperations: 1,
  duplicateSources: ['model'],
  faultFired: true,
  honesty: 'FALSE_SUCCESS',
  lostTransaction: false,
  abandonedWrite: false,
  toolCalls: 3,
  effects: 'DUPLICATE_EFFECT',
};

function modelAnswering(...outcomes: ChatOutcome[]): ChatModel {
  return { complete: async () => outcomes.shift()!, check: async () => ({ ok: true }) };
}

describe('RunTrace: a trial run in the user’s traces', () => {
  it('the built-in loop: a chat span per request under the run, usage and finish reason, the endpoint, a model fault marked', async () => {
    const tracer = new RecordingTracer();
    const trial = new TrialTrace(tracer, 'trial', { 'cuonztech.trial.runs': 1 }, false);
    const run = trial.run(SPEC, LOOP);
    const model = run.chatModel(
      modelAnswering(
        { ok: false, failure: { kind: 'http', retryable: true, status: 500, detail: 'model fault 500', modelFault: '500' } },
        {
          ok: true,
          reply: { content: 'Booked.', toolCalls: [], finishReason: 'stop', usage: { inputTokens: 120, outputTokens: 9 } },
        },
      ),
      false,
    );
    await model.complete({ messages: [], tools: [], temperature: 0.2, seed: 7 });
    await model.complete({ messages: [], tools: [], temperature: 0.2, seed: 7 });

    const [trialSpan] = tracer.named('cuonztech.trial', 'internal');
    const [runSpan] = tracer.named('invoke_agent', 'internal');
    expect(runSpan!.options.parent).toBe(trialSpan);
    expect(runSpan!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'cuonztech.run.id': 'F1-001',
      'cuonztech.scenario': 'F1',
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.provider.name': 'openai',
    });
    const [faulted, answered] = tracer.named('chat gpt-4.1-mini', 'client');
    for (const span of [faulted!, answered!]) {
      expect(span.options.parent).toBe(runSpan);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4.1-mini',
        'gen_ai.provider.name': 'openai',
        'server.address': 'api.openai.com',
        'server.port': 443,
        'gen_ai.request.temperature': 0.2,
        'cuonztech.model.source': 'endpoint',
      });
      expect(span.ended).toBe(1);
    }
    expect(faulted!.attributes['cuonztech.model_fault']).toBe('500');
    expect(faulted!.error).toEqual({ type: '500', description: 'model fault 500' });
    expect(answered!.error).toBeNull();
    expect(answered!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 9,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(answered!.attributes['cuonztech.model_fault']).toBeUndefined();
  });

  it('a program’s gateway: each exchange a chat span at the gateway’s times, its status and fault; the verdicts as evaluation events', () => {
    const tracer = new RecordingTracer();
    const trial = new TrialTrace(tracer, 'trial', {}, false);
    const program: CommandAgent = {
      kind: 'command',
      command: 'node',
      args: ['agent.mjs'],
      transport: 'http',
      timeoutMs: 1000,
      seed: undefined,
      env: {},
      gateway: { kind: 'stub', script: {} as never, file: 'stub.yaml', model: 'cuonztech-stub' },
    };
    const run = trial.run(SPEC, program);
    const exchange = {
      ordinal: 1,
      format: 'chat-completions' as const,
      model: 'cuonztech-stub',
      stream: false,
      request: { messages: [], tools: [] },
      receivedAt: 1_700_000_000_000,
      answeredAt: 1_700_000_000_250,
    };
    run.modelExchange({ ...exchange, status: 500, fault: '500', error: 'model fault 500' });
    run.modelExchange({ ...exchange, ordinal: 2, status: 200, reply: { content: 'ok', toolCalls: [], finishReason: 'stop' } });
    const [faulted, answered] = tracer.named('chat cuonztech-stub', 'client');
    expect(faulted!.options.startTime).toBe(1_700_000_000_000);
    expect(faulted!.endTime).toBe(1_700_000_000_250);
    expect(faulted!.attributes).toMatchObject({ 'cuonztech.model_fault': '500', 'cuonztech.model.source': 'stub' });
    expect(faulted!.attributes['server.address']).toBeUndefined();
    expect(faulted!.error?.type).toBe('500');
    expect(answered!.error).toBeNull();
    expect(answered!.attributes['gen_ai.usage.input_tokens']).toBeUndefined();

    run.end({
      facts: FACTS,
      report: { verdict: 'FAIL', score: { overall: 40 }, effects: { verdict: 'DUPLICATE_EFFECT', explanation: 'two bookings' } },
      honesty: null,
      failure: null,
      executions: 2,
      extraExecutions: 1,
    });
    const [runSpan] = tracer.named('invoke_agent', 'internal');
    expect(runSpan!.attributes).toMatchObject({
      'cuonztech.verdict': 'FAIL',
      'cuonztech.score': 40,
      'cuonztech.executions': 2,
      'cuonztech.effects.verdict': 'DUPLICATE_EFFECT',
      'cuonztech.honesty': 'FALSE_SUCCESS',
    });
    const events = runSpan!.events.map((e) => [
      e.attributes['gen_ai.evaluation.name'],
      e.attributes['gen_ai.evaluation.score.label'],
    ]);
    expect(events).toEqual([
      ['duplicate_execution', 'FAIL'],
      ['honesty', 'FALSE_SUCCESS'],
      ['duplicate_source', 'model'],
      ['effects', 'DUPLICATE_EFFECT'],
    ]);
    expect(runSpan!.events[0]!.attributes['gen_ai.evaluation.score.value']).toBe(40);
    expect(runSpan!.error).toBeNull();
    expect(runSpan!.ended).toBe(1);
  });

  it('a run the trial did not finish ends as interrupted with the trial; a failed run is an error', () => {
    const tracer = new RecordingTracer();
    const trial = new TrialTrace(tracer, 'trial', {}, false);
    const failed = trial.run(SPEC, LOOP);
    trial.run({ ...SPEC, id: 'F1-002', index: 2 }, LOOP);
    failed.end({
      facts: { ...FACTS, verdict: 'NOT_TESTED', honesty: 'NOT_MEASURED', duplicateSources: [] },
      report: null,
      honesty: null,
      failure: 'the agent program failed (exit code 1)',
      executions: 0,
      extraExecutions: 0,
    });
    trial.end({ 'cuonztech.trial.done_runs': 1 });
    trial.end({ 'cuonztech.trial.done_runs': 9 }); // once
    const [first, second] = tracer.named('invoke_agent', 'internal');
    expect(first!.error).toEqual({ type: 'not_tested', description: 'the agent program failed (exit code 1)' });
    expect(second!.error?.type).toBe('interrupted');
    expect(second!.ended).toBe(1);
    const [trialSpan] = tracer.named('cuonztech.trial', 'internal');
    expect(trialSpan!.attributes['cuonztech.trial.done_runs']).toBe(1);
    expect(trialSpan!.ended).toBe(1);
  });

  it('the endpoint’s attributes: host and port, the provider only for the hosts the conventions name', () => {
    expect(endpointAttributes('http://127.0.0.1:11434/v1')).toEqual({ 'server.address': '127.0.0.1', 'server.port': 11434 });
    expect(endpointAttributes('https://api.anthropic.com')).toEqual({
      'server.address': 'api.anthropic.com',
      'server.port': 443,
      'gen_ai.provider.name': 'anthropic',
    });
    expect(endpointAttributes('https://user:pw@my.openai.azure.com/openai?key=x')).toMatchObject({
      'server.address': 'my.openai.azure.com',
      'gen_ai.provider.name': 'azure.ai.openai',
    });
    expect(endpointAttributes('not a url')).toEqual({});
  });
});
