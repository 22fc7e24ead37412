/**
 * One agent session behind the proxy: the call pipeline of docs/architecture.md. Each call is judged
 * by the session's EvaluationSession, forwarded (or answered with an injected fault), the report is
 * published BEFORE the agent gets its answer, then the answer goes out.
 */
import type { ToolClassification } from '../../domain/classification.js';
import type { EvaluationSession } from '../../domain/session.js';
import type { AgentCloseReason, AgentSessionHandler } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/mcp-shapes.js';
import type { UpstreamSide } from '../../ports/upstream-side.port.js';
import { AUDIT_TOOLS, answerAuditTool, isAuditTool } from './audit-tools.js';
import { judgeUpstreamAnswer } from './upstream-answer.js';

export interface ProxySessionContext {
  session: EvaluationSession;
  upstream: UpstreamSide;
  upstreamTools: readonly ToolDescriptor[];
  classification: readonly ToolClassification[];
  auditTools: boolean;
  callTimeoutMs: number;
  logger: Logger;
  /** Publishes the report; resolves when written. Never resolves when writing failed (fatal). */
  publish(): Promise<void>;
  /** The agent's session ended. */
  onClosed(reason: AgentCloseReason): void;
}

export class ProxySession implements AgentSessionHandler {
  private readonly outputSchemaTools: ReadonlySet<string>;
  private inFlight = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly ctx: ProxySessionContext) {
    this.outputSchemaTools = new Set(ctx.upstreamTools.filter((t) => t.outputSchema !== undefined).map((t) => t.name));
  }

  async listTools(): Promise<ToolDescriptor[]> {
    const upstream = this.ctx.auditTools ? this.ctx.upstreamTools.filter((t) => !isAuditTool(t.name)) : this.ctx.upstreamTools;
    return this.ctx.auditTools ? [...upstream, ...AUDIT_TOOLS] : [...upstream];
  }

  async callTool(request: ToolCallRequest, context: { signal: AbortSignal }): Promise<ToolCallResult> {
    const { session } = this.ctx;
    if (this.ctx.auditTools && isAuditTool(request.name)) {
      return answerAuditTool(request.name, request.arguments, session, this.ctx.classification);
    }
    const decision = session.receive(request.name, request.arguments);
    let answer: ToolCallResult;
    if (!decision.forward) {
      answer = decision.injected!;
    } else {
      session.forwarded(decision.attemptId);
      this.inFlight++;
      try {
        const outcome = await this.ctx.upstream.callTool(request, { timeoutMs: this.ctx.callTimeoutMs, signal: context.signal });
        const judged = judgeUpstreamAnswer(outcome, this.outputSchemaTools.has(request.name), this.ctx.callTimeoutMs / 1000);
        answer = session.upstreamAnswered(decision.attemptId, judged.verdict) ?? judged.result;
        if (judged.verdict.kind !== 'executed' && judged.verdict.kind !== 'rejected') {
          this.ctx.logger.warn({ tool: request.name, outcome: outcome.kind }, 'no usable answer from the upstream');
        }
      } finally {
        this.inFlight--;
        if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      }
    }
    // The answer is decided: record it as delivered first so the published report is the state the agent
    // is about to see, then publish, then answer.
    session.delivered(decision.attemptId);
    await this.ctx.publish();
    return answer;
  }

  closed(reason: AgentCloseReason): void {
    this.ctx.onClosed(reason);
  }

  /** Resolves when no forwarded call is waiting for the upstream, or after `maxMs`. */
  settle(maxMs: number): Promise<void> {
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
