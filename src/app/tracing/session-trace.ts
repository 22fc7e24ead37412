/**
 * One agent session in the user's traces (`--otel`, `docs/traces.md`): a span for the session and, for
 * each of its tool calls, a server span (what the agent's request got from the proxy) and a client span
 * (the request the proxy sent on to the upstream), named and attributed by the OpenTelemetry MCP
 * conventions (`{mcp.method.name} {gen_ai.tool.name}`: `tools/call create_booking`), with the harness's
 * own facts in `cuonztech.*` (the fault, whether the upstream executed the call, the operation, the
 * attempt). When the session ends, its verdicts are the GenAI conventions' evaluation events
 * (`gen_ai.evaluation.result`) on the session span, so the viewer tells the report's story.
 *
 * Context: a `traceparent` in the agent's `_meta` makes the call's server span its child (the session span
 * becomes a link); a malformed one is ignored and the call nests under the session span. The client
 * span's own context goes to the upstream in `_meta` ({@link upstreamMeta}).
 *
 * It is an observer of the call pipeline (a {@link CallEventSink}): cheap, synchronous, never throws into
 * a call. Arguments and answers are never put in a span unless `payloads` is on (`--otel-payloads on`).
 */
import { canonicalJson } from '../../domain/json.js';
import type { EvaluationSession } from '../../domain/judging/session.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { evaluate, violationsOf } from '../../domain/report/report.js';
import type { EffectsReport } from '../../domain/effects/effects-report.js';
import type { CallEvent, CallEventSink, UpstreamVerdict } from '../../ports/call-events.port.js';
import type { Attributes, TraceSpan, Tracer } from '../../ports/tracer.port.js';
import type { ForwardedAnswer } from '../../ports/agent-side.port.js';
import { evaluationEvent } from './evaluation-event.js';

/** The longest argument or answer text put in a span with `--otel-payloads on`. */
export const PAYLOAD_LIMIT = 8_192;

export interface SessionTraceInfo {
  /** The MCP session id (Streamable HTTP); absent over stdio, which has none. */
  mcpSessionId?: string;
  /** The session's number in the proxy's run (from 1). */
  ordinal: number;
  scenario: ScenarioConfig;
  /** `pipe` for stdio, `tcp` for HTTP (the conventions' `network.transport`); absent: no agent transport (probe). */
  transport?: 'pipe' | 'tcp';
  /** Put the calls' arguments and answers in the spans (`--otel-payloads on`). */
  payloads: boolean;
  /** The span the session belongs under (a trial run's `invoke_agent`, a probe); absent: a root. */
  parent?: TraceSpan;
}

interface CallSpans {
  server: TraceSpan;
  client: TraceSpan | null;
  /** The agent has its answer (the server span has ended). */
  delivered: boolean;
  /** Nothing more will reach the upstream: injected, answered, or never sent. */
  settled: boolean;
}

/** `cuonztech.executed`: whether the upstream executed the call, as far as the proxy knows. */
function executedOf(upstream: UpstreamVerdict | null | undefined): 'true' | 'false' | 'unknown' {
  if (upstream === 'executed') return 'true';
  if (upstream === 'rejected' || upstream === 'unavailable' || upstream === null) return 'false';
  return 'unknown';
}

function payloadText(value: unknown): string {
  const text = canonicalJson(value);
  return text.length > PAYLOAD_LIMIT ? `${text.slice(0, PAYLOAD_LIMIT)}…` : text;
}

const MCP_CALL = 'tools/call';

export class SessionTrace implements CallEventSink {
  private readonly span: TraceSpan;
  private readonly calls = new Map<number, CallSpans>();
  private finished = false;

  constructor(
    private readonly tracer: Tracer,
    private readonly info: SessionTraceInfo,
  ) {
    this.span = tracer.startSpan('cuonztech.session', {
      kind: 'internal',
      ...(info.parent !== undefined ? { parent: info.parent } : {}),
      attributes: {
        // The fault's id, or the mode without one (`chaos`, `none`).
        'cuonztech.scenario': info.scenario.mode === 'scenario' ? info.scenario.id : info.scenario.mode,
        'cuonztech.session.ordinal': info.ordinal,
        ...(info.mcpSessionId !== undefined ? { 'mcp.session.id': info.mcpSessionId } : {}),
      },
    });
  }

  /** The session's span. */
  get sessionSpan(): TraceSpan {
    return this.span;
  }

  callEvent(event: CallEvent): void {
    switch (event.step) {
      case 'received':
        return this.received(event);
      case 'injected':
        return this.injected(event);
      case 'forwarded':
        return this.forwarded(event);
      case 'answered':
        return this.answered(event);
      case 'delivered':
        return this.delivered(event);
    }
  }

  /** The `_meta` fields that carry the client span of `attempt` to the upstream; undefined: none. */
  upstreamMeta(attempt: number): Record<string, string> | undefined {
    return this.calls.get(attempt)?.client?.context();
  }

  /**
   * a request that is not a tool call (resources, prompts, completions, ping), forwarded as it came:
   * its server span (parented by the agent's `_meta.traceparent`, else the session span) and its client
   * span. Returns the params the upstream gets (the client span's context in `_meta`, the rest as they
   * came) and the end of both spans with the answer.
   */
  forwarding(
    method: string,
    params: Record<string, unknown>,
  ): { params: Record<string, unknown>; done(answer?: ForwardedAnswer): void } {
    const meta = params['_meta'];
    const agentMeta =
      typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
    const attributes: Attributes = { 'mcp.method.name': method };
    if (this.info.mcpSessionId !== undefined) attributes['mcp.session.id'] = this.info.mcpSessionId;
    const uri = params['uri'];
    if (method.startsWith('resources/') && typeof uri === 'string') attributes['mcp.resource.uri'] = uri;
    const prompt = params['name'];
    const promptName = method === 'prompts/get' && typeof prompt === 'string' ? prompt : undefined;
    if (promptName !== undefined) attributes['gen_ai.prompt.name'] = promptName;
    // The resource's URI stays out of the name (the conventions: a low-cardinality name).
    const name = promptName === undefined ? method : `${method} ${promptName}`;
    const server = this.tracer.startSpan(name, {
      kind: 'server',
      parent: this.span,
      ...(agentMeta !== undefined ? { remoteParent: agentMeta } : {}),
      attributes: { ...attributes, ...this.transport() },
    });
    const client = this.tracer.startSpan(name, { kind: 'client', parent: server, attributes });
    return {
      params: { ...params, _meta: { ...agentMeta, ...client.context() } },
      done: (answer) => {
        for (const span of [client, server]) {
          if (answer === undefined) span.fail('_OTHER', 'no answer');
          else if ('error' in answer) {
            span.setAttributes({ 'rpc.response.status_code': String(answer.error.code) });
            span.fail(String(answer.error.code), answer.error.message);
          }
          span.end();
        }
      },
    };
  }

  private transport(): Attributes {
    return this.info.transport !== undefined ? { 'network.transport': this.info.transport } : {};
  }

  private common(event: CallEvent): Attributes {
    const attributes: Attributes = {
      'mcp.method.name': MCP_CALL,
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': event.tool,
      'cuonztech.attempt': event.attempt,
      'cuonztech.call.class': event.callClass,
    };
    if (this.info.mcpSessionId !== undefined) attributes['mcp.session.id'] = this.info.mcpSessionId;
    if (event.operation !== null) attributes['cuonztech.operation.id'] = event.operation;
    if (event.fault !== null) attributes['cuonztech.fault'] = event.fault;
    return attributes;
  }

  private received(event: CallEvent): void {
    const attributes = this.common(event);
    Object.assign(attributes, this.transport());
    if (event.requestId !== undefined) attributes['jsonrpc.request.id'] = String(event.requestId);
    if (this.info.payloads && event.arguments !== undefined)
      attributes['gen_ai.tool.call.arguments'] = payloadText(event.arguments);
    const server = this.tracer.startSpan(`${MCP_CALL} ${event.tool}`, {
      kind: 'server',
      parent: this.span,
      ...(event.meta !== undefined ? { remoteParent: event.meta } : {}),
      attributes,
    });
    // who sent this write again.
    if (event.source !== undefined) server.addEvent('cuonztech.repeat', { 'cuonztech.repeat.source': event.source });
    this.calls.set(event.attempt, { server, client: null, delivered: false, settled: false });
  }

  private injected(event: CallEvent): void {
    const call = this.calls.get(event.attempt);
    if (call === undefined) return;
    call.settled = true;
    call.server.setAttributes({ 'cuonztech.injected': true, 'cuonztech.executed': 'false' });
  }

  private forwarded(event: CallEvent): void {
    const call = this.calls.get(event.attempt);
    if (call === undefined) return;
    call.client = this.tracer.startSpan(`${MCP_CALL} ${event.tool}`, {
      kind: 'client',
      parent: call.server,
      attributes: this.common(event),
    });
  }

  private answered(event: CallEvent): void {
    const call = this.calls.get(event.attempt);
    if (call === undefined) return;
    const executed = executedOf(event.upstream);
    const facts: Attributes = { 'cuonztech.executed': executed, 'cuonztech.upstream.outcome': event.upstream ?? 'unknown' };
    if (event.replaced === true) facts['cuonztech.answer.replaced'] = true;
    call.server.setAttributes(facts);
    const client = call.client;
    if (client !== null) {
      client.setAttributes(facts);
      if (this.info.payloads && event.result !== undefined)
        client.setAttributes({ 'gen_ai.tool.call.result': payloadText(event.result) });
      if (event.upstream === 'unknown') client.fail(event.reason ?? 'unknown', 'the upstream gave no usable answer');
      else if (event.result?.isError === true) client.fail('tool_error');
      else if (event.upstream === 'unavailable') client.fail('unavailable', 'the upstream was not reachable');
      client.end();
    }
    call.settled = true;
    if (call.delivered) this.calls.delete(event.attempt);
  }

  private delivered(event: CallEvent): void {
    const call = this.calls.get(event.attempt);
    if (call === undefined) return;
    const server = call.server;
    // A late write (F6's land-after) is told its time-out before it is forwarded: it reaches the upstream
    // later. Any other call has been forwarded (its client span), injected or answered by now.
    const lands = call.client === null && !call.settled;
    server.setAttributes({
      'cuonztech.agent.told': event.told ?? 'answer',
      ...(lands ? {} : { 'cuonztech.executed': executedOf(event.upstream) }),
    });
    if (event.told === 'timeout') server.fail('timeout', 'the agent was told the call timed out');
    else if (event.told === 'error') server.fail('tool_error');
    else if (event.told === 'cancelled') server.fail('cancelled', 'the agent cancelled the call');
    server.end();
    call.delivered = true;
    if (!lands) {
      call.client?.end();
      this.calls.delete(event.attempt);
    }
  }

  /**
   * The session has ended: its verdicts as evaluation events and attributes on the session span, then the
   * spans still open (calls the end cut short) and the session span end.
   */
  ended(session: EvaluationSession, effects: EffectsReport | undefined, reportError?: string): void {
    if (this.finished) return;
    this.finished = true;
    for (const call of this.calls.values()) {
      call.client?.setAttributes({ 'cuonztech.executed': 'unknown' });
      call.client?.end();
      call.server.end();
    }
    this.calls.clear();
    if (reportError !== undefined) {
      this.span.fail('report_error', reportError);
      this.span.end();
      return;
    }
    const { verdict, score, patches } = evaluate(session);
    this.span.setAttributes({
      'cuonztech.verdict': verdict.verdict,
      ...(score.overall !== null ? { 'cuonztech.score': score.overall } : {}),
      ...(patches.length > 0 ? { 'cuonztech.patches': patches.map((p) => p.id) } : {}),
    });
    this.evaluation('duplicate_execution', verdict.verdict, verdict.reason, score.overall);
    const sources = new Set<string>();
    for (const v of violationsOf(session.violating)) if (v.duplicate !== undefined) sources.add(v.duplicate.source ?? 'unknown');
    for (const source of sources) this.evaluation('duplicate_source', source, `a duplicate execution sent again by: ${source}`);
    if (effects !== undefined) this.evaluation('effects', effects.verdict, effects.explanation ?? effects.reason);
    this.span.end();
  }

  private evaluation(name: string, label: string, explanation: string, score: number | null = null): void {
    evaluationEvent(this.span, name, label, explanation, score);
  }
}
