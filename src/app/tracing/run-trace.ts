/**
 * A trial (or a replay) in the user's traces (`trial --otel`, `replay --otel`; docs/traces.md): one root
 * span for the command, one `invoke_agent` span per run (the GenAI agent conventions) with the run's
 * facts in `cuonztech.*`, the run's proxy sessions nested under it (their spans are
 * {@link SessionTrace}'s, the same as `proxy --otel`), each model request — the built-in loop's, or an
 * agent program's through the run's model gateway (stub, replay and forward modes) — a GenAI client span
 * `chat {model}`, and the run's verdicts as `gen_ai.evaluation.result` events on its span.
 *
 * Cheap and synchronous like every tracing observer; never throws into a run. Model spans never hold the
 * messages (they are the user's prompts); `--otel-payloads on` concerns the tool calls only.
 */
import type { ChatFailure, ChatModel, ChatModelCheck, ChatOutcome, ChatReply, ChatRequest } from '../../ports/chat-model.port.js';
import type { ModelExchange } from '../../ports/model-gateway.port.js';
import type { Attributes, TraceSpan, Tracer } from '../../ports/tracer.port.js';
import type { RunFacts } from '../../domain/trial/index.js';
import { evaluationEvent } from './evaluation-event.js';
import type { HonestyRecord } from '../trial/run-facts-from-session.js';
import type { SessionReport } from '../trial/run-outcome.js';
import type { RunSpec, TrialAgent } from '../trial/trial-plan.js';

/** Where a run's model answers come from (`cuonztech.model.source`). */
export type ModelSource = 'endpoint' | 'forward' | 'stub' | 'replay';

export interface ModelInfo {
  /** The model named in the request (the built-in loop's `--model`, the program's request). */
  model: string;
  source: ModelSource;
  /** The real endpoint (built-in loop, forward mode): its host and port, and the provider when it is known. */
  baseUrl?: string;
}

/** `gen_ai.provider.name` by the endpoint's host, for the hosts the conventions name; undefined: not known. */
const PROVIDERS: ReadonlyArray<[RegExp, string]> = [
  [/^api\.openai\.com$/, 'openai'],
  [/\.openai\.azure\.com$/, 'azure.ai.openai'],
  [/^api\.anthropic\.com$/, 'anthropic'],
  [/^generativelanguage\.googleapis\.com$/, 'gcp.gemini'],
  [/^api\.mistral\.ai$/, 'mistral_ai'],
  [/^api\.deepseek\.com$/, 'deepseek'],
  [/^api\.groq\.com$/, 'groq'],
  [/^api\.x\.ai$/, 'x_ai'],
  [/^api\.perplexity\.ai$/, 'perplexity'],
  [/^api\.cohere\.(com|ai)$/, 'cohere'],
];

/** The endpoint's attributes: `server.address`, `server.port`, `gen_ai.provider.name` when known (never a path, user or query). */
export function endpointAttributes(baseUrl: string | undefined): Attributes {
  if (baseUrl === undefined) return {};
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return {};
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const provider = PROVIDERS.find(([pattern]) => pattern.test(host))?.[1];
  return { 'server.address': host, 'server.port': port, ...(provider !== undefined ? { 'gen_ai.provider.name': provider } : {}) };
}

/** `gen_ai.provider.name` alone (a run's span: the endpoint's address is its model spans'). */
function providerOf(baseUrl: string | undefined): Attributes {
  const provider = endpointAttributes(baseUrl)['gen_ai.provider.name'];
  return provider !== undefined ? { 'gen_ai.provider.name': provider } : {};
}

/** The model the run's agent asks for and where its answers come from; undefined: the program's own model, unseen. */
export function modelInfoOf(agent: TrialAgent): ModelInfo | undefined {
  if (agent.kind === 'model') return { model: agent.model, source: 'endpoint', baseUrl: agent.baseUrl };
  const gateway = agent.gateway;
  if (gateway === undefined) return undefined;
  if (gateway.kind === 'forward') return { model: gateway.model, source: 'forward', baseUrl: gateway.baseUrl };
  return { model: gateway.model, source: gateway.kind };
}

function usageAttributes(reply: ChatReply | undefined): Attributes {
  const usage = reply?.usage;
  const out: Attributes = {};
  if (usage?.inputTokens !== undefined) out['gen_ai.usage.input_tokens'] = usage.inputTokens;
  if (usage?.outputTokens !== undefined) out['gen_ai.usage.output_tokens'] = usage.outputTokens;
  if (reply?.finishReason != null) out['gen_ai.response.finish_reasons'] = [reply.finishReason];
  return out;
}

/** `error.type` of a failed model request: the HTTP status when there was one, else how it failed. */
function failureType(failure: ChatFailure): string {
  return failure.status !== undefined ? String(failure.status) : failure.kind;
}

/** What a run's span is told at its end: the run file's facts, and the report and honesty they came from. */
export interface RunTraceEnd {
  facts: RunFacts;
  report: SessionReport | null;
  honesty: HonestyRecord | null;
  /** Why the run could not be judged (the agent or the harness failed); null: it ran to its end. */
  failure: string | null;
  executions: number;
  extraExecutions: number;
}

/** The report's effects verdict and why; undefined without a view. */
function effectsOf(report: SessionReport | null): { verdict: string; explanation: string } | undefined {
  const effects = report?.effects;
  if (effects === undefined || typeof effects.verdict !== 'string') return undefined;
  const why = typeof effects.explanation === 'string' ? effects.explanation : effects.reason;
  return { verdict: effects.verdict, explanation: typeof why === 'string' ? why : effects.verdict };
}

function honestyExplanation(record: HonestyRecord): string {
  const claim =
    record.claim === 'UNPARSED' ? `an answer that could not be read (${record.unparsed ?? 'no claim'})` : record.claim;
  return `asked whether the task's write went through, the agent answered ${claim}; it ${record.truth.executed ? 'executed' : 'never executed'} upstream`;
}

export class RunTrace {
  readonly span: TraceSpan;
  private ended = false;
  private readonly model: ModelInfo | undefined;

  constructor(
    private readonly tracer: Tracer,
    parent: TraceSpan,
    spec: RunSpec,
    agent: TrialAgent,
    readonly payloads: boolean,
    private readonly onEnd: (run: RunTrace) => void,
  ) {
    const model = modelInfoOf(agent);
    this.model = model;
    this.span = tracer.startSpan('invoke_agent', {
      kind: 'internal',
      parent,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'cuonztech.run.id': spec.id,
        'cuonztech.run.index': spec.index,
        'cuonztech.scenario': spec.scenarioLabel,
        'cuonztech.task.id': spec.task.id,
        'cuonztech.arm': spec.arm,
        'cuonztech.agent.kind': agent.kind === 'model' ? 'built-in-loop' : 'program',
        ...(model !== undefined ? { 'gen_ai.request.model': model.model, 'cuonztech.model.source': model.source } : {}),
        ...providerOf(model?.baseUrl),
        ...(spec.seed !== undefined ? { 'gen_ai.request.seed': spec.seed } : {}),
      },
    });
  }

  /** What the run's `ProxyService` needs to put its sessions under this run. */
  proxyTracing(): { tracer: Tracer; traceParent: TraceSpan; tracePayloads: boolean } {
    return { tracer: this.tracer, traceParent: this.span, tracePayloads: this.payloads };
  }

  /**
   * The built-in loop's model with a `chat {model}` span around each request (the fault in front included);
   * `replayed`: answered from a recording (`--model-replay`).
   */
  chatModel(inner: ChatModel, replayed: boolean): ChatModel {
    const info = this.model ?? { model: 'unknown', source: 'endpoint' };
    return new TracedChatModel(inner, this, replayed ? { model: info.model, source: 'replay' } : info);
  }

  /** Starts a model request's span. */
  startModel(info: ModelInfo, extra: Attributes = {}, startTime?: number): TraceSpan {
    return this.tracer.startSpan(`chat ${info.model}`, {
      kind: 'client',
      parent: this.span,
      ...(startTime !== undefined ? { startTime } : {}),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': info.model,
        'cuonztech.model.source': info.source,
        ...endpointAttributes(info.baseUrl),
        ...extra,
      },
    });
  }

  /** An agent program's model request through the run's gateway, as the gateway told it (after its answer). */
  modelExchange(exchange: ModelExchange): void {
    const info = this.model ?? { model: exchange.model, source: 'stub' };
    const span = this.startModel({ ...info, model: exchange.model || info.model }, {}, exchange.receivedAt);
    span.setAttributes({ 'cuonztech.model.request': exchange.ordinal, ...usageAttributes(exchange.reply) });
    if (exchange.fault !== undefined) span.setAttributes({ 'cuonztech.model_fault': exchange.fault });
    if (exchange.status >= 400 || exchange.reply === undefined)
      span.fail(exchange.status >= 400 ? String(exchange.status) : '_OTHER', exchange.error);
    span.end(exchange.answeredAt);
  }

  /** The run has ended: its facts and verdicts on its span, which ends. */
  end(end: RunTraceEnd): void {
    if (this.ended) return;
    this.ended = true;
    const { facts } = end;
    const score = end.report?.score?.overall ?? null;
    const effects = effectsOf(end.report);
    this.span.setAttributes({
      'cuonztech.verdict': facts.verdict,
      'cuonztech.executions': end.executions,
      'cuonztech.extra_executions': end.extraExecutions,
      'cuonztech.tool_calls': facts.toolCalls,
      'cuonztech.fault.fired': facts.faultFired,
      ...(score !== null ? { 'cuonztech.score': score } : {}),
      ...(end.report !== null ? { 'cuonztech.session.verdict': end.report.verdict } : {}),
      ...(facts.effects !== undefined ? { 'cuonztech.effects.verdict': facts.effects } : {}),
      ...(facts.honesty !== 'NOT_MEASURED' ? { 'cuonztech.honesty': facts.honesty } : {}),
    });
    evaluationEvent(this.span, 'duplicate_execution', facts.verdict, facts.reason, score);
    if (facts.honesty !== 'NOT_MEASURED')
      evaluationEvent(
        this.span,
        'honesty',
        facts.honesty,
        end.honesty !== null ? honestyExplanation(end.honesty) : `the agent's answer to the honesty question: ${facts.honesty}`,
      );
    for (const source of facts.duplicateSources ?? [])
      evaluationEvent(this.span, 'duplicate_source', source, `a duplicate execution sent again by: ${source}`);
    if (effects !== undefined) evaluationEvent(this.span, 'effects', effects.verdict, effects.explanation);
    if (end.failure !== null) this.span.fail('not_tested', end.failure);
    this.span.end();
    this.onEnd(this);
  }

  /** The trial ended before the run did (an I/O failure, a stop): the span ends, marked so. */
  abandon(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.span.fail('interrupted', reason);
    this.span.end();
  }
}

class TracedChatModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    private readonly run: RunTrace,
    private readonly info: ModelInfo,
  ) {}

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatOutcome> {
    const span = this.run.startModel(this.info, {
      ...(request.temperature !== undefined ? { 'gen_ai.request.temperature': request.temperature } : {}),
      ...(request.seed !== undefined ? { 'gen_ai.request.seed': request.seed } : {}),
    });
    try {
      const outcome = await this.inner.complete(request, signal);
      if (outcome.ok) span.setAttributes(usageAttributes(outcome.reply));
      else {
        if (outcome.failure.modelFault !== undefined) span.setAttributes({ 'cuonztech.model_fault': outcome.failure.modelFault });
        span.fail(failureType(outcome.failure), outcome.failure.detail);
      }
      return outcome;
    } finally {
      span.end();
    }
  }

  check(): Promise<ChatModelCheck> {
    return this.inner.check();
  }
}

/** The trial's (or the replay's) root span and its runs. */
export class TrialTrace {
  readonly span: TraceSpan;
  private readonly open = new Set<RunTrace>();
  private ended = false;

  constructor(
    private readonly tracer: Tracer,
    command: 'trial' | 'replay',
    attributes: Attributes,
    private readonly payloads: boolean,
  ) {
    this.span = tracer.startSpan(`cuonztech.${command}`, { kind: 'internal', attributes });
  }

  /** A run's span, under the trial's. */
  run(spec: RunSpec, agent: TrialAgent): RunTrace {
    const run = new RunTrace(this.tracer, this.span, spec, agent, this.payloads, (r) => this.open.delete(r));
    this.open.add(run);
    return run;
  }

  /** The trial has ended: its figures on its span; runs still open end as interrupted. */
  end(attributes: Attributes, failure?: string): void {
    if (this.ended) return;
    this.ended = true;
    for (const run of this.open) run.abandon(failure ?? 'the trial ended before the run did');
    this.open.clear();
    this.span.setAttributes(attributes);
    if (failure !== undefined) this.span.fail('trial_error', failure);
    this.span.end();
  }
}
