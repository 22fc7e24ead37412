/**
 * One agent session behind the proxy, with its own evaluation and report: the call pipeline of
 * docs/architecture.md. Each call is judged, forwarded (or answered with an injected fault), the report
 * is published BEFORE the agent gets its answer, then the answer goes out.
 */
import type { ToolClassification } from '../../domain/classification.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { ReportWriter, type ReportStatus } from '../../domain/report-document.js';
import { EvaluationSession, type ToolCatalog } from '../../domain/session.js';
import type { AgentCloseReason, AgentSessionHandler } from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/mcp-shapes.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import type { UpstreamSide } from '../../ports/upstream-side.port.js';
import { AUDIT_TOOLS, answerAuditTool, isAuditTool } from './audit-tools.js';
import { ReportPublisher } from './report-publisher.js';
import { judgeUpstreamAnswer } from './upstream-answer.js';

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
  sink: ReportSink | null;
  clock: Clock;
  random: RandomSource;
  logger: Logger;
  /** The report could not be written: the proxy must stop with exit 1. */
  onFatal(message: string): void;
  /** The upstream sent an answer over the size limit, so its connection is being closed (`detail` says why). */
  onUpstreamTooLarge(detail: string): void;
  onClosed(reason: AgentCloseReason): void;
}

/** A promise that never settles: the agent must not get an answer after the report failed. */
const never = new Promise<never>(() => undefined);

export class JudgedSession implements AgentSessionHandler {
  readonly evaluation: EvaluationSession;
  private readonly outputSchemaTools: ReadonlySet<string>;
  private readonly listed: ToolDescriptor[];
  private inFlight = 0;
  private idle: Array<() => void> = [];
  private ended: Promise<void> | null = null;
  private failed = false;
  private status: ReportStatus = 'running';
  private readonly publisher: ReportPublisher | null;

  constructor(private readonly ctx: JudgedSessionContext) {
    this.evaluation = new EvaluationSession({ scenario: ctx.scenario, keyFields: ctx.keyFields }, ctx.catalog, ctx.clock, ctx.random);
    this.outputSchemaTools = new Set(ctx.upstreamTools.filter((t) => t.outputSchema !== undefined).map((t) => t.name));
    const upstream = ctx.auditTools ? ctx.upstreamTools.filter((t) => !isAuditTool(t.name)) : ctx.upstreamTools;
    this.listed = ctx.auditTools ? [...upstream, ...AUDIT_TOOLS] : [...upstream];
    const writer = new ReportWriter(this.evaluation);
    this.publisher = ctx.sink === null ? null : new ReportPublisher(ctx.sink, () => writer.document({
      kind: 'proxy', harnessVersion: ctx.harnessVersion, status: this.status, toolClassification: ctx.classification,
    }));
  }

  async listTools(): Promise<ToolDescriptor[]> {
    return this.listed;
  }

  async callTool(request: ToolCallRequest, context: { signal: AbortSignal }): Promise<ToolCallResult> {
    const session = this.evaluation;
    if (this.ctx.auditTools && isAuditTool(request.name)) {
      return answerAuditTool(request.name, request.arguments, session, this.ctx.classification);
    }
    const decision = session.receive(request.name, request.arguments);
    let answer: ToolCallResult;
    if (!decision.forward) answer = decision.injected!;
    else {
      session.forwarded(decision.attemptId);
      answer = await this.forward(request, decision.attemptId, context.signal);
    }
    // The answer is decided: record it as delivered so the published report is the state the agent is
    // about to see, publish, then answer. An answer that arrives while the session is ending is
    // published after end()'s final report (end() resumes first), so it must stay marked as final.
    session.delivered(decision.attemptId);
    await this.publish();
    return answer;
  }

  closed(reason: AgentCloseReason): void {
    this.ctx.onClosed(reason);
  }

  /** Publishes the report of a session that has just opened. */
  publishRunning(): Promise<void> {
    return this.publish();
  }

  /** Ends the session: waits up to `drainMs` for calls in flight, finishes the evaluation, final report. */
  end(drainMs: number): Promise<void> {
    this.ended ??= (async () => {
      await this.settle(drainMs);
      this.evaluation.finish();
      this.status = 'finished';
      if (!this.failed) await Promise.race([this.publish(true), delay(drainMs)]);
    })();
    return this.ended;
  }

  private async forward(request: ToolCallRequest, attemptId: number, signal: AbortSignal): Promise<ToolCallResult> {
    this.inFlight++;
    try {
      const outcome = await this.ctx.upstream.callTool(request, { timeoutMs: this.ctx.callTimeoutMs, signal });
      const judged = judgeUpstreamAnswer(outcome, this.outputSchemaTools.has(request.name), this.ctx.callTimeoutMs / 1000);
      if (outcome.kind !== 'result') this.ctx.logger.warn({ tool: request.name, outcome: outcome.kind }, 'no usable answer from the upstream');
      if (outcome.kind === 'too-large') this.ctx.onUpstreamTooLarge(outcome.detail);
      return this.evaluation.upstreamAnswered(attemptId, judged.verdict) ?? judged.result;
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Publishes the report (coalesced with other answers of this turn, or at once); fatal on failure. */
  private async publish(immediately = false): Promise<void> {
    if (this.failed) return never;
    if (this.publisher === null) return;
    try {
      // With no other call waiting for the upstream, no other answer can join this write: write it now.
      await (immediately ? this.publisher.now() : this.publisher.request(this.inFlight === 0));
    } catch (error) {
      this.failed = true;
      this.ctx.onFatal(error instanceof Error ? error.message : String(error));
      return never;
    }
  }

  /** Resolves when no forwarded call is waiting for the upstream, or after `maxMs`. */
  private settle(maxMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
