/**
 * The demo MCP server: an AgentSessionHandler serving the seven demo tools. No real backend:
 * the agent declares its calls through `execute_call`, each session judges them with its own
 * EvaluationSession, and every injected fault is shown openly. `get_report` also publishes the full
 * report document (`kind: "demo"`) through the ReportSink; a failed write is an `isError` answer, the
 * server keeps running. `list_records` lists what the simulated backend holds (every write it executed), so
 * the proxy's effects view can read it like any backend's list tool. Every failure becomes an `isError` result; nothing the agent sends can crash it.
 */
import { errorMessage } from '../../domain/error-message.js';
import { formatReportText, formatScoreAnswer } from '../../domain/report/format.js';
import { faultOf } from '../../domain/faults/index.js';
import { isPlainObject } from '../../domain/json.js';
import { serializeDocument } from '../../domain/report/report-document.js';
import { buildReport, evaluate } from '../../domain/report/report.js';
import { scenarioName } from '../../domain/report/verdict.js';
import type { AgentSessionHandler } from '../../ports/agent-side.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Timer } from '../../ports/timer.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import { DemoSession } from './demo-session.js';
import { parseDemoSettings } from './demo-settings.js';
import { DemoSessions, MAX_DEMO_SESSIONS } from './demo-sessions.js';
import { scenarioListText, startExplanation } from './demo-texts.js';
import { DEMO_TOOLS, DEMO_TOOL_NAMES, isDemoToolName, type DemoToolName } from './demo-tools.js';
import { ArgumentError, ToolArguments } from './tool-arguments.js';

/** What the demo server needs from the outside. */
export interface DemoServerDeps {
  clock: Clock;
  /**
   * Waits F6's `--land-after` (`land_after` in `start_session`) before a late write reaches the demo
   * backend; absent, such a write lands as soon as its time-out has been answered.
   */
  timer?: Timer;
  /** Chaos faults and the random part of session ids. */
  random: RandomSource;
  /** Where `get_report` writes the full report document. */
  reportSink: ReportSink;
  /** How the report file is named to the agent, e.g. `.cuonztech/audit-report.json`. */
  reportFileLabel: string;
  harnessVersion: string;
  /** The most sessions kept at once (default {@link MAX_DEMO_SESSIONS}). */
  maxSessions?: number;
}

type Answer = ToolCallResult | Promise<ToolCallResult>;

/** Creates the handler of one connected agent; each agent has its own sessions. */
export function createDemoHandler(deps: DemoServerDeps): AgentSessionHandler {
  return new DemoServer(deps);
}

class DemoServer implements AgentSessionHandler {
  private readonly sessions: DemoSessions<DemoSession>;
  private startedCount = 0;
  private readonly tools: Record<DemoToolName, (raw: unknown) => Answer> = {
    start_session: (raw) => this.start(raw),
    execute_call: (raw) => this.execute(raw),
    get_report: (raw) => this.report(raw),
    get_score: (raw) => this.score(raw),
    list_scenarios: (raw) => this.scenarios(raw),
    reset_session: (raw) => this.reset(raw),
    delete_session: (raw) => this.remove(raw),
    list_records: (raw) => this.records(raw),
  };

  constructor(private readonly deps: DemoServerDeps) {
    this.sessions = new DemoSessions(deps.maxSessions ?? MAX_DEMO_SESSIONS);
  }

  async listTools(): Promise<ToolDescriptor[]> {
    return structuredClone([...DEMO_TOOLS]);
  }

  async callTool(request: ToolCallRequest): Promise<ToolCallResult> {
    const name = request.name;
    if (!isDemoToolName(name)) {
      return failure(`unknown tool ${JSON.stringify(name.slice(0, 80))}; the demo server has: ${DEMO_TOOL_NAMES.join(', ')}`);
    }
    try {
      return await this.tools[name](request.arguments);
    } catch (error) {
      const message = errorMessage(error);
      return failure(
        error instanceof ArgumentError ? `${name}: ${message}` : `${name}: internal error of the demo server: ${message}`,
      );
    }
  }

  closed(): void {
    this.sessions.clear();
  }

  private start(raw: unknown): ToolCallResult {
    const settings = parseDemoSettings(raw);
    const id = this.newSessionId();
    const dropped = this.sessions.add(id, new DemoSession(id, settings, this.deps.clock, this.deps.random, this.deps.timer));
    return json({
      session_id: id,
      scenario: scenarioName(settings.scenario),
      ...(dropped !== undefined ? { dropped_session: dropped } : {}),
      explanation: startExplanation(
        settings.scenario,
        dropped === undefined ? undefined : { id: dropped, capacity: this.sessions.capacity },
      ),
    });
  }

  private async execute(raw: unknown): Promise<ToolCallResult> {
    const args = ToolArguments.read(raw, ['session_id', 'tool', 'arguments', 'class']);
    const session = this.session(args);
    const tool = args.string('tool');
    const callArgs = args.raw('arguments') ?? {};
    if (!isPlainObject(callArgs)) throw new ArgumentError('arguments must be an object');
    const outcome = await session.execute(tool, callArgs, args.choice('class', ['read', 'write'] as const));
    return json({
      session_id: session.id,
      tool,
      class: outcome.toolClass,
      classifiedBy: outcome.classifiedBy,
      injectedFault: outcome.fault,
      ...(outcome.fault !== null ? { faultSummary: faultOf(outcome.fault).summary } : {}),
      executedUpstream: outcome.executedUpstream,
      ...(outcome.landsAfterMs !== null ? { landsUpstreamAfterMs: outcome.landsAfterMs } : {}),
      backendResult: outcome.backendResult,
      whatTheAgentWouldSee: outcome.agentSees,
      agentWouldSeeError: outcome.agentSeesError,
      verdictSoFar: evaluate(session.session).verdict.verdict,
      ...(outcome.toolClass === 'unclassified'
        ? { note: 'unclassified tool: not judged and triggers no scenario; pass class "read" or "write" to classify it' }
        : {}),
    });
  }

  private async report(raw: unknown): Promise<ToolCallResult> {
    const args = ToolArguments.read(raw, ['session_id', 'format']);
    const session = this.session(args);
    const format = args.choice('format', ['text', 'json'] as const) ?? 'text';
    const evaluation = evaluate(session.session);
    const tools = session.toolClassification();
    const meta = {
      kind: 'demo',
      harnessVersion: this.deps.harnessVersion,
      status: 'running',
      toolClassification: tools,
    } as const;
    try {
      await this.deps.reportSink.publish(serializeDocument(session.session, meta, evaluation));
    } catch (error) {
      const message = errorMessage(error);
      return failure(`get_report: the report could not be written to ${this.deps.reportFileLabel}: ${message}`);
    }
    const report = buildReport(session.session, 'demo', tools, evaluation);
    if (format === 'json') {
      const document = {
        ...report,
        score: evaluation.score,
        patches: evaluation.patches,
        ...(evaluation.findings.length > 0 ? { findings: evaluation.findings } : {}),
      };
      return { content: [{ type: 'text', text: JSON.stringify(document, null, 2) }], structuredContent: document };
    }
    const note = `Report written to ${this.deps.reportFileLabel}. A demo, not a measurement.`;
    return text(`${formatReportText(report, evaluation.score)}\n\n${note}`);
  }

  private score(raw: unknown): ToolCallResult {
    const session = this.session(ToolArguments.read(raw, ['session_id']));
    const evaluation = evaluate(session.session);
    return text(formatScoreAnswer(evaluation.score, evaluation.patches, evaluation.findings));
  }

  private scenarios(raw: unknown): ToolCallResult {
    ToolArguments.read(raw, []);
    return text(scenarioListText());
  }

  private reset(raw: unknown): ToolCallResult {
    const session = this.session(ToolArguments.read(raw, ['session_id']));
    session.reset();
    return text(
      `Session ${session.id} reset: history and violations cleared, settings kept (${scenarioName(session.settings.scenario)}).`,
    );
  }

  private remove(raw: unknown): ToolCallResult {
    const session = this.session(ToolArguments.read(raw, ['session_id']));
    this.sessions.delete(session.id);
    return text(`Session ${session.id} deleted.`);
  }

  private records(raw: unknown): ToolCallResult {
    const args = ToolArguments.read(raw, ['session_id']);
    const sessions = args.raw('session_id') === undefined ? this.sessions.all() : [this.session(args)];
    const records = sessions.flatMap((s) => s.records());
    const document = { records };
    return { content: [{ type: 'text', text: JSON.stringify(document) }], structuredContent: document };
  }

  private session(args: ToolArguments): DemoSession {
    const id = args.string('session_id');
    const session = this.sessions.get(id);
    if (session === undefined) {
      throw new ArgumentError(
        `unknown session_id ${JSON.stringify(id.slice(0, 80))}: never started, deleted, or dropped (at most ${this.sessions.capacity} sessions are kept); start one with start_session`,
      );
    }
    return session;
  }

  /** `demo-session-<n>-<random>`: the counter makes it unique, the random part hard to guess. */
  private newSessionId(): string {
    this.startedCount += 1;
    const random = Math.floor(this.deps.random.next() * 2 ** 32)
      .toString(36)
      .padStart(7, '0');
    return `demo-session-${this.startedCount}-${random}`;
  }
}

function text(value: string): ToolCallResult {
  return { content: [{ type: 'text', text: value }] };
}

function json(value: Record<string, unknown>): ToolCallResult {
  return text(JSON.stringify(value, null, 2));
}

function failure(message: string): ToolCallResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
