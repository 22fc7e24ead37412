/**
 * One agent session behind the proxy, with its own evaluation, report and call pipeline
 * (`../pipeline/call-pipeline.ts`: judged, published before forwarding, forwarded or answered
 * with an injected fault, published before the answer, answered). It adds the audit tools, the
 * report's publishing and failure handling, and the ordered end.
 */
import { errorMessage } from '../../domain/error-message.js';
import type { ToolClassification } from '../../domain/judging/classification.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { ReportWriter, type ReportSession, type ReportStatus } from '../../domain/report/report-document.js';
import { evaluate } from '../../domain/report/report.js';
import type { Verdict } from '../../domain/report/verdict.js';
import type { CallEventSink } from '../../ports/call-events.port.js';
import type { ForwardedRequestEvent, JournalSession } from '../../ports/journal.port.js';
import { EvaluationSession } from '../../domain/judging/session.js';
import type { ToolCatalog } from '../../domain/judging/session-state.js';
import type { ModelSide } from '../../domain/judging/attribution.js';
import type {
  AgentCloseReason,
  AgentPeer,
  AgentSessionHandler,
  CallContext,
  ForwardedAnswer,
} from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Timer } from '../../ports/timer.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import type { UpstreamSide } from '../../ports/upstream-side.port.js';
import type { EffectsRun } from '../effects/effects-run.js';
import { executionFactsOf, type EffectsReport } from '../../domain/effects/effects-report.js';
import { AUDIT_TOOLS, answerAuditTool, isAuditTool } from './audit-tools.js';
import { CallPipeline } from '../pipeline/call-pipeline.js';
import { ReportPublisher } from './report-publisher.js';
import { forwardRequest, namedBy } from './forwarded-request.js';
import { budgeted, NotificationBudget, type AgentRelay } from './agent-relay.js';
import type { SessionTrace } from '../tracing/session-trace.js';

export interface JudgedSessionContext {
  sessionId: string;
  scenario: ScenarioConfig;
  keyFields: readonly string[];
  catalog: ToolCatalog;
  upstream: UpstreamSide;
  upstreamTools: readonly ToolDescriptor[];
  classification: readonly ToolClassification[];
  auditTools: boolean;
  callTimeoutMs: number;
  harnessVersion: string;
  /** The upstream is a recording (`--upstream-replay`): the report and `get_report` say `replayed`. */
  replayed?: boolean;
  /** Under `--listen`: the session's id and number, written in its report; absent over stdio. */
  reportSession?: ReportSession;
  sink: ReportSink | null;
  clock: Clock;
  /** Waits for `--latency` and `--hold` (default: the real timer). */
  timer?: Timer;
  random: RandomSource;
  logger: Logger;
  /** Where this session's call events are journaled (`--journal`); null: no journal. */
  journal?: JournalSession | null;
  /** Other observers of the call events (the per-call lines of `--log-level info`). */
  callObservers?: readonly CallEventSink[];
  /** `--otel`: this session's spans (docs/traces.md); absent: no traces. */
  trace?: SessionTrace;
  /** the model's side of the agent, when the harness sees it (a trial run); absent: plain proxy. */
  modelSide?: ModelSide;
  /**
   * the effects of this session (`--effects-tool`): its calls wait for the snapshot before, and its
   * end takes the one after, before the final report. Absent: no effects view.
   */
  effects?: EffectsRun;
  /** The report could not be written: the proxy must stop with exit 1. */
  onFatal(message: string): void;
  /** The upstream sent an answer over the size limit, so its connection is being closed (`detail` says why). */
  onUpstreamTooLarge(detail: string): void;
  onClosed(reason: AgentCloseReason): void;
  /**
   * the proxy's relay of the upstream's messages that belong to no call; the session's agent joins it
   * once initialized and leaves it at the end. Absent: nothing is relayed.
   */
  relay?: AgentRelay;
  /** the upstream sent more notifications than the budget lets through: at the first drop, and at the end. */
  onNotificationsDropped?(dropped: number, ended: boolean): void;
}

/**
 * The answer to a call that arrives while its session ends (the proxy stops on a signal; over `--listen`
 * also a DELETE or the idle time-out): not forwarded and not judged. Forwarded, the upstream could execute
 * it after the report is final, which would then call an executed write unknown.
 */
export const NOT_FORWARDED_SESSION_ENDING: ToolCallResult = {
  content: [
    {
      type: 'text',
      text: 'The evaluation session is ending (the proxy is stopping); the call was not forwarded to the upstream.',
    },
  ],
  isError: true,
};

/** A promise that never settles: the agent must not get an answer after the report failed. */
const never = new Promise<never>(() => undefined);

/** Where a session stands: its verdict and score (for the proxy's end line). */
export interface SessionOutcome {
  verdict: Verdict;
  score: number | null;
  /** the effects, once the session has ended with an effects view. */
  effects?: EffectsReport;
}

export class JudgedSession implements AgentSessionHandler {
  readonly evaluation: EvaluationSession;
  private listed: ToolDescriptor[];
  /** The upstream's classification as it stands (R-17: classified again when the upstream's list changes). */
  private classification: readonly ToolClassification[];
  /** The tools with an output schema, shared with the pipeline (updated in place when the list changes). */
  private readonly outputSchemaTools = new Set<string>();
  /** the upstream's notifications to this session's agent, bounded. */
  private readonly budget: NotificationBudget;
  private readonly pipeline: CallPipeline;
  private ended: Promise<void> | null = null;
  /** While `end` waits for calls in flight: ends that wait after at most `ms`. */
  private shortenDrain: ((ms: number) => void) | null = null;
  private failed = false;
  /** Why the report could not be written (one line), once it could not: the report kept is not the final one. */
  private reportError: string | null = null;
  private status: ReportStatus = 'running';
  private readonly publisher: ReportPublisher | null;
  /** the effects, judged when the session ends (the final report carries them). */
  private effects: EffectsReport | undefined;

  constructor(private readonly ctx: JudgedSessionContext) {
    this.evaluation = new EvaluationSession(
      { scenario: ctx.scenario, keyFields: ctx.keyFields },
      ctx.catalog,
      ctx.clock,
      ctx.random,
      ctx.modelSide ?? null,
    );
    this.listed = this.listOf(ctx.upstreamTools);
    this.classification = ctx.classification;
    for (const tool of ctx.upstreamTools) if (tool.outputSchema !== undefined) this.outputSchemaTools.add(tool.name);
    this.budget = new NotificationBudget(ctx.clock, () => ctx.onNotificationsDropped?.(1, false));
    const writer = new ReportWriter(this.evaluation);
    this.publisher =
      ctx.sink === null
        ? null
        : new ReportPublisher(ctx.sink, () =>
            writer.document({
              kind: 'proxy',
              harnessVersion: ctx.harnessVersion,
              replayed: ctx.replayed === true,
              ...(ctx.reportSession !== undefined ? { session: ctx.reportSession } : {}),
              status: this.status,
              toolClassification: this.classification,
              ...(this.effects !== undefined ? { effects: this.effects } : {}),
            }),
          );
    this.pipeline = new CallPipeline({
      session: this.evaluation,
      upstream: ctx.upstream,
      callTimeoutMs: ctx.callTimeoutMs,
      outputSchemaTools: this.outputSchemaTools,
      publish: this.publisher === null ? null : (soon) => this.publish(false, soon),
      ...(ctx.timer !== undefined ? { timer: ctx.timer } : {}),
      onUpstreamOutcome: (tool, outcome) => {
        if (outcome.kind !== 'result') ctx.logger.warn({ tool, outcome: outcome.kind }, 'no usable answer from the upstream');
        if (outcome.kind === 'too-large') ctx.onUpstreamTooLarge(outcome.detail);
      },
      onBookkeepingError: (error) => ctx.logger.error({ error: errorMessage(error) }, 'the session could not book a step'),
      ...eventsOf(ctx),
      ...(ctx.trace !== undefined ? { upstreamMeta: (attempt: number) => ctx.trace!.upstreamMeta(attempt) } : {}),
    });
  }

  async listTools(): Promise<ToolDescriptor[]> {
    return this.listed;
  }

  /** the upstream's tool list changed and was classified again; later calls and lists use the new one. */
  toolsChanged(tools: readonly ToolDescriptor[], classification: readonly ToolClassification[]): void {
    this.listed = this.listOf(tools);
    this.classification = classification;
    this.outputSchemaTools.clear();
    for (const tool of tools) if (tool.outputSchema !== undefined) this.outputSchemaTools.add(tool.name);
  }

  /** the agent has initialized; the upstream's messages that belong to no call reach it from now on. */
  attach(peer: AgentPeer): void {
    if (this.ended === null) this.ctx.relay?.attach(this, budgeted(peer, this.budget));
  }

  /** `notifications/roots/list_changed` from the agent, passed on to the upstream. */
  notified(method: string, params: Record<string, unknown> | undefined): void {
    void this.ctx.upstream.notify?.(method, params);
  }

  /** The tools the agent is offered: the upstream's (one of the audit tools' names shadowed) and the audit tools. */
  private listOf(tools: readonly ToolDescriptor[]): ToolDescriptor[] {
    if (!this.ctx.auditTools) return [...tools];
    return [...tools.filter((t) => !isAuditTool(t.name)), ...AUDIT_TOOLS];
  }

  async callTool(request: ToolCallRequest, context: CallContext): Promise<ToolCallResult> {
    if (this.ctx.auditTools && isAuditTool(request.name)) {
      return answerAuditTool(request.name, request.arguments, this.evaluation, this.classification, {
        replayed: this.ctx.replayed === true,
      });
    }
    if (this.ended !== null) return NOT_FORWARDED_SESSION_ENDING;
    // the backend's state before the first call is the baseline; calls wait for it (once).
    const effects = this.ctx.effects;
    if (effects !== undefined && !effects.isReady) {
      await effects.ready;
      if (this.ended !== null) return NOT_FORWARDED_SESSION_ENDING;
    }
    const relay = {
      ...(context.progress !== undefined ? { onProgress: context.progress } : {}),
      ...(context.peer !== undefined ? { peer: budgeted(context.peer, this.budget) } : {}),
    };
    return this.pipeline.call(request, context.signal, relay, {
      session: context.mcpSession ?? 1,
      ...(context.requestId !== undefined ? { requestId: context.requestId } : {}),
    });
  }

  /** resources, prompts, completions, logging, ping: forwarded as they are, never judged. */
  forward(
    method: string,
    params: Record<string, unknown>,
    context: { signal: AbortSignal; peer?: AgentPeer },
  ): Promise<ForwardedAnswer> {
    // --otel: its spans, and their context in the upstream's `_meta`; without it the params go as they came.
    const trace = this.ctx.trace?.forwarding(method, params);
    const journal = method === 'ping' ? undefined : (this.ctx.journal ?? undefined);
    const at = journal === undefined ? 0 : this.ctx.clock.now();
    let answer = forwardRequest(this.ctx.upstream, method, trace?.params ?? params, {
      timeoutMs: this.ctx.callTimeoutMs,
      signal: context.signal,
      ...(context.peer !== undefined ? { peer: budgeted(context.peer, this.budget) } : {}),
    });
    // --journal: one `request` line per answered request (pings aside), written before the agent has the answer.
    if (journal !== undefined)
      answer = answer.then((forwarded) => {
        journal.request(requestEvent(method, params, at, this.ctx.clock.now(), context.signal.aborted, forwarded));
        return forwarded;
      });
    if (trace === undefined) return answer;
    return answer.then(
      (forwarded) => {
        trace.done(forwarded);
        return forwarded;
      },
      (error: unknown) => {
        trace.done();
        throw error;
      },
    );
  }

  closed(reason: AgentCloseReason): void {
    this.ctx.onClosed(reason);
  }

  /** Publishes the report of a session that has just opened. */
  publishRunning(): Promise<void> {
    return this.publish();
  }

  /**
   * Ends the session: waits up to `drainMs` for calls in flight, finishes the evaluation, final report.
   * Called again while it waits (the proxy stops during a longer drain), the wait ends after the shorter
   * of what is left and the new `drainMs`.
   */
  end(drainMs: number): Promise<void> {
    if (this.ended !== null) {
      this.shortenDrain?.(drainMs);
      return this.ended;
    }
    let cut!: () => void;
    const cutShort = new Promise<void>((resolve) => (cut = resolve));
    this.shortenDrain = (ms) => void delay(ms).then(cut);
    this.ctx.relay?.detach(this);
    this.ended = (async () => {
      if (this.budget.dropped > 0) this.ctx.onNotificationsDropped?.(this.budget.dropped, true);
      // F6: late writes still waiting land now, before the upstream is closed and the end is judged.
      void this.pipeline.landPending();
      await Promise.race([this.pipeline.drained(drainMs), cutShort]);
      this.shortenDrain = null;
      this.evaluation.finish();
      // what the backend holds now, every call settled (or cut at the drain), before the final report.
      if (this.ctx.effects !== undefined)
        this.effects = await this.ctx.effects.finish(
          executionFactsOf(this.evaluation, evaluate(this.evaluation).verdict.verdict),
        );
      if (this.effects !== undefined)
        this.ctx.journal?.effects?.({
          keyFields: this.effects.view.keyFields,
          verdict: this.effects.verdict,
          reason: this.effects.reason,
          explanation: this.effects.explanation,
          keys: this.effects.keys,
        });
      this.status = 'finished';
      if (!this.failed) await Promise.race([this.publish(true), delay(drainMs)]);
      const outcome = this.outcome();
      // After a report that could not be written, the journal must not claim a verdict no report holds.
      this.ctx.journal?.ended(
        this.reportError === null
          ? { verdict: outcome.verdict, score: outcome.score }
          : { verdict: 'NOT_TESTED', score: null, reportError: this.reportError },
      );
      this.ctx.trace?.ended(this.evaluation, this.effects, this.reportError ?? undefined);
    })();
    return this.ended;
  }

  /** The session's verdict and score as they stand. */
  outcome(): SessionOutcome {
    const { verdict, score } = evaluate(this.evaluation);
    return { verdict: verdict.verdict, score: score.overall, ...(this.effects !== undefined ? { effects: this.effects } : {}) };
  }

  /** Publishes the report (coalesced with other answers of this turn, or at once); fatal on failure. */
  private async publish(immediately = false, soon = this.pipeline.callsInFlight === 0): Promise<void> {
    if (this.failed) return never;
    if (this.publisher === null) return;
    try {
      // With no other call waiting for the upstream, no other answer can join this write: write it now.
      await (immediately ? this.publisher.now() : this.publisher.request(soon));
    } catch (error) {
      this.failed = true;
      this.reportError = errorMessage(error);
      this.ctx.onFatal(this.reportError);
      return never;
    }
  }
}

/** The journal's event for a forwarded request: what it named, how it ended, how long it took. */
function requestEvent(
  method: string,
  params: Record<string, unknown>,
  at: number,
  now: number,
  cancelled: boolean,
  answer: ForwardedAnswer,
): ForwardedRequestEvent {
  const durationMs = Math.round((now - at) * 1000) / 1000;
  const base = { at, method, ...namedBy(method, params), durationMs, params };
  if (cancelled) return { ...base, outcome: 'cancelled' };
  if ('error' in answer) return { ...base, outcome: 'error', code: answer.error.code, answer };
  return { ...base, outcome: 'result', answer };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** The pipeline's call-event observers: the journal first, then the others; nothing when none. */
function eventsOf(ctx: JudgedSessionContext) {
  const sinks: CallEventSink[] = [
    ...(ctx.journal ? [ctx.journal] : []),
    ...(ctx.callObservers ?? []),
    ...(ctx.trace ? [ctx.trace] : []),
  ];
  if (sinks.length === 0) return {};
  const sink: CallEventSink = sinks.length === 1 ? sinks[0]! : { callEvent: (event) => sinks.forEach((s) => s.callEvent(event)) };
  return { events: { sink, clock: ctx.clock } };
}
