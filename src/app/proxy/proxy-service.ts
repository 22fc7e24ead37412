/**
 * The `proxy` use case: connect the upstream, classify its tools, print the start-up lines, serve the
 * agent, publish the report, and shut down in order. Transport-agnostic: it sees only the ports.
 */
import { ToolClassifier, formatClassificationLines, type ClassificationRules, type ToolClassification } from '../../domain/classification.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { KeyFieldMatcher } from '../../domain/key-fields.js';
import { serializeDocument, startingDocument, startupErrorDocument, type ReportStatus } from '../../domain/report-document.js';
import { EvaluationSession } from '../../domain/session.js';
import type { AgentCloseReason, AgentSide } from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolDescriptor } from '../../ports/mcp-shapes.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import type { UpstreamExit, UpstreamSide } from '../../ports/upstream-side.port.js';
import { ProxySession } from './proxy-session.js';

export interface ProxyConfig {
  scenario: ScenarioConfig;
  keyFields: readonly string[];
  classification: ClassificationRules;
  auditTools: boolean;
  callTimeoutMs: number;
  /** How long answers of calls still in flight may take once the agent has gone (R-8.8: ~2 s). */
  drainMs: number;
  harnessVersion: string;
  serverName: string;
}

export interface ProxyDeps {
  upstream: UpstreamSide;
  agentSide: AgentSide;
  sink: ReportSink | null;
  clock: Clock;
  random: RandomSource;
  logger: Logger;
  /** One line of human start-up output (stderr). */
  notice(line: string): void;
}

/** Why the proxy stopped and with which exit code (never the verdict, R-8.9). */
export interface ProxyExit {
  code: 0 | 1;
  reason: string;
}

export class ProxyService {
  private session: ProxySession | null = null;
  private evaluation: EvaluationSession | null = null;
  private classification: ToolClassification[] = [];
  private stopping: Promise<ProxyExit> | null = null;
  private fatal = false;
  private resolveDone!: (exit: ProxyExit) => void;
  /** Resolves when the proxy has stopped. */
  readonly done: Promise<ProxyExit> = new Promise((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly deps: ProxyDeps,
    private readonly config: ProxyConfig,
  ) {}

  /** Starts everything; rejects with a one-line Error when the upstream cannot be started (exit 1). */
  async start(): Promise<void> {
    await this.deps.sink?.publish(startingDocument(this.config.harnessVersion));
    let tools: ToolDescriptor[];
    let instructions: string | undefined;
    try {
      ({ instructions } = await this.deps.upstream.connect());
      tools = await this.deps.upstream.listTools();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.deps.upstream.close();
      await this.deps.sink?.publish(startupErrorDocument(this.config.harnessVersion, message)).catch(() => undefined);
      throw new Error(message);
    }
    this.classify(tools);
    this.deps.upstream.onExit((exit) => this.upstreamExited(exit));
    const evaluation = new EvaluationSession(
      { scenario: this.config.scenario, keyFields: this.config.keyFields },
      this.catalog(),
      this.deps.clock,
      this.deps.random,
    );
    this.evaluation = evaluation;
    await this.deps.agentSide.serve(
      () => {
        this.session = new ProxySession({
          session: evaluation, upstream: this.deps.upstream, upstreamTools: tools, classification: this.classification,
          auditTools: this.config.auditTools, callTimeoutMs: this.config.callTimeoutMs, logger: this.deps.logger,
          publish: () => this.publish('running'),
          onClosed: (reason) => void this.stop(describeClose(reason)),
        });
        return this.session;
      },
      { serverName: this.config.serverName, serverVersion: this.config.harnessVersion, ...(instructions !== undefined ? { instructions } : {}) },
    );
    await this.publish('running');
  }

  /**
   * Stops in order: wait briefly for answers still in flight (they still count), end the evaluation
   * (calls still open are EXECUTION_UNKNOWN), write the final report, end the upstream.
   */
  stop(reason: string): Promise<ProxyExit> {
    this.stopping ??= (async () => {
      this.deps.logger.info({ reason }, 'stopping');
      await this.session?.settle(this.config.drainMs);
      this.evaluation?.finish();
      if (!this.fatal) await this.publish('finished');
      await this.deps.agentSide.close().catch(() => undefined);
      await this.deps.upstream.close();
      const exit: ProxyExit = { code: this.fatal ? 1 : 0, reason };
      this.resolveDone(exit);
      return exit;
    })();
    return this.stopping;
  }

  private classify(tools: readonly ToolDescriptor[]): void {
    const classifier = new ToolClassifier(this.config.classification, new KeyFieldMatcher(this.config.keyFields));
    this.classification = classifier.classifyListed(tools.map((t) => ({ name: t.name, annotations: t.annotations, inputSchema: t.inputSchema })));
    this.classifier = classifier;
    for (const line of formatClassificationLines(this.classification)) this.deps.notice(line);
  }

  private classifier: ToolClassifier | null = null;

  private catalog() {
    const classifier = this.classifier!;
    const keyed = new Set(this.classification.filter((t) => t.keyFields.length > 0).map((t) => t.name));
    return { classOf: (name: string) => classifier.classOf(name), acceptsKey: (name: string) => keyed.has(name) };
  }

  /** Publishes the report. On failure: one line, exit 1 at once, the agent gets no answer (R-9.3). */
  private async publish(status: ReportStatus): Promise<void> {
    const sink = this.deps.sink;
    const evaluation = this.evaluation;
    if (sink === null || evaluation === null || this.fatal) {
      if (this.fatal) await new Promise<never>(() => undefined);
      return;
    }
    const json = serializeDocument(evaluation, {
      kind: 'proxy', harnessVersion: this.config.harnessVersion, status, toolClassification: this.classification,
    });
    try {
      await sink.publish(json);
    } catch (error) {
      this.fatal = true;
      this.deps.notice(`error: the report file could not be written: ${error instanceof Error ? error.message : String(error)}. Exiting without answering the agent; do not use the verdict in the file.`);
      void this.stop('report file not writable');
      await new Promise<never>(() => undefined);
    }
  }

  private upstreamExited(exit: UpstreamExit): void {
    if (exit.expected || this.stopping !== null) return;
    const how = exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
    this.deps.notice(`upstream crashed (${how}); later calls get UPSTREAM_UNAVAILABLE (no reconnect).`);
    const tail = exit.stderrTail.trimEnd();
    if (tail !== '') for (const line of tail.split('\n')) this.deps.notice(`  upstream stderr: ${line}`);
  }
}

function describeClose(reason: AgentCloseReason): string {
  switch (reason.kind) {
    case 'message-too-large':
      return 'the agent sent a message over the 10 MB limit; session ended';
    case 'output-closed':
      return 'the agent stopped reading (output closed)';
    case 'transport-error':
      return `agent transport error${reason.detail ? `: ${reason.detail}` : ''}`;
    default:
      return 'the agent disconnected';
  }
}
