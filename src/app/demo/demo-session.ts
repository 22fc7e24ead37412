/**
 * One demo session: an EvaluationSession fed by the calls the agent declares through `execute_call`,
 * with a simulated backend instead of an upstream. Every declared tool counts as "listed" and is
 * classified once by name (the session's write/read globs, then the default patterns), unless the agent
 * declares its class; a declared class sticks for later calls of that tool.
 */
import { ToolClassifier, type ToolClass, type ToolClassification } from '../../domain/judging/classification.js';
import type { FaultKind } from '../../domain/faults/index.js';
import type { JsonValue } from '../../domain/json.js';
import { KeyFieldMatcher } from '../../domain/judging/key-fields.js';
import { EvaluationSession } from '../../domain/judging/session.js';
import type { Clock } from '../../ports/clock.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { Timer } from '../../ports/timer.port.js';
import type { UpstreamCallOutcome, UpstreamInfo, UpstreamSide } from '../../ports/upstream-side.port.js';
import { CallPipeline } from '../pipeline/call-pipeline.js';
import type { DemoSettings } from './demo-settings.js';

/** What happened to one declared call, told openly to the agent (a demo, not a measurement). */
export interface DemoCallOutcome {
  tool: string;
  toolClass: ToolClass;
  /** Why the tool has its class (`default write pattern`, `declared in execute_call` …). */
  classifiedBy: string;
  fault: FaultKind | null;
  /** Whether the simulated backend executed the call. */
  executedUpstream: boolean;
  /** The backend's simulated answer, when it executed the call. */
  backendResult: JsonValue | null;
  /** The text a real agent behind the proxy would have received. */
  agentSees: string;
  /** Whether that answer was an error result. */
  agentSeesError: boolean;
  /** F6: the write reaches the backend this many ms after its time-out was answered; null otherwise. */
  landsAfterMs: number | null;
}

/** One record of the simulated backend: a write it executed, as `list_records` answers it. */
export interface DemoRecord {
  session_id: string;
  /** The id the backend answered (`demo-1`, `demo-2`, … per session). */
  id: string;
  tool: string;
  arguments: JsonValue;
}

export class DemoSession {
  private evaluation: EvaluationSession;
  private readonly tools = new Map<string, ToolClassification>();
  private readonly keyMatcher: KeyFieldMatcher;
  /** The simulated backend of the current evaluation: `reset` starts a fresh one (ids from `demo-1`, no records). */
  private backend!: DemoBackend;
  private pipeline!: CallPipeline;

  constructor(
    /** The session id given to the agent. */
    readonly id: string,
    /** The settings from `start_session`, kept by `reset`. */
    readonly settings: DemoSettings,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    /** Waits F6's landing time; absent, a late write lands at once. */
    private readonly timer?: Timer,
  ) {
    this.keyMatcher = new KeyFieldMatcher(settings.keyFields);
    this.evaluation = this.freshEvaluation();
  }

  /** The evaluation so far (for the report and the score). */
  get session(): EvaluationSession {
    return this.evaluation;
  }

  /** The classification of every tool declared in this session, in order of first use. */
  toolClassification(): ToolClassification[] {
    return [...this.tools.values()];
  }

  /** What the simulated backend holds: every write it executed, in order (a copy). */
  records(): DemoRecord[] {
    return this.backend.records.map((r) => ({ ...r }));
  }

  /** Clears the history, the violations and the backend's records; the settings stay. */
  reset(): void {
    this.tools.clear();
    this.evaluation = this.freshEvaluation();
  }

  /** Runs one declared call through the proxy's call pipeline and the simulated backend. */
  async execute(tool: string, args: unknown, declared: 'read' | 'write' | undefined): Promise<DemoCallOutcome> {
    const classification = this.classify(tool, declared);
    const backend = this.backend;
    const record = await this.pipeline.run({ name: tool, arguments: args });
    const executedUpstream = record.upstream?.kind === 'result';
    // F6 forwards the write later: told a time-out now, nothing executed yet.
    const landsAfterMs = record.landsAfterMs ?? null;
    const base = { tool, toolClass: classification.class, classifiedBy: classification.reason, fault: record.fault };
    return {
      ...base,
      executedUpstream,
      backendResult: executedUpstream ? backend.lastResult : null,
      agentSees: textOf(record.result),
      agentSeesError: record.result.isError === true,
      landsAfterMs,
    };
  }

  private classify(tool: string, declared: 'read' | 'write' | undefined): ToolClassification {
    if (declared !== undefined) {
      const entry = { name: tool, class: declared, reason: 'declared in execute_call', keyFields: [] };
      this.tools.set(tool, entry);
      return entry;
    }
    const known = this.tools.get(tool);
    if (known !== undefined) return known;
    const [entry] = new ToolClassifier(this.settings.rules, this.keyMatcher).classifyListed([{ name: tool }]);
    this.tools.set(tool, entry!);
    return entry!;
  }

  private freshEvaluation(): EvaluationSession {
    const catalog = {
      classOf: (name: string): ToolClass => this.tools.get(name)?.class ?? 'unclassified',
      acceptsKey: (): boolean => false,
    };
    const session = new EvaluationSession(
      { scenario: this.settings.scenario, keyFields: this.settings.keyFields },
      catalog,
      this.clock,
      this.random,
    );
    this.backend = new DemoBackend(this.id, (name) => this.tools.get(name)?.class === 'write');
    this.pipeline = new CallPipeline({
      session,
      upstream: this.backend,
      callTimeoutMs: DEMO_TIMEOUT_MS,
      outputSchemaTools: new Set(),
      publish: null,
      ...(this.timer !== undefined ? { timer: this.timer } : {}),
    });
    return session;
  }
}

/** The wait the demo announces for a call, as the proxy's default. */
const DEMO_TIMEOUT_MS = 60_000;

/**
 * The demo backend behind the pipeline: every call executes; a write gets a new id and is kept as a
 * record, anything else a generic ok.
 */
class DemoBackend implements UpstreamSide {
  private executedWrites = 0;
  /** Every write it executed, in order. */
  readonly records: DemoRecord[] = [];

  constructor(
    private readonly sessionId: string,
    private readonly isWrite: (tool: string) => boolean,
  ) {}

  /** The simulated answer of the last executed call. */
  lastResult: JsonValue = null;

  async connect(): Promise<UpstreamInfo> {
    return {};
  }

  async listTools(): Promise<ToolDescriptor[]> {
    return [];
  }

  async callTool(request: ToolCallRequest): Promise<UpstreamCallOutcome> {
    // The session classified the call; the backend only needs to know which declared calls are writes.
    let result: JsonValue = { ok: true };
    if (this.isWrite(request.name)) {
      const id = `demo-${++this.executedWrites}`;
      result = { ok: true, id };
      this.records.push({
        session_id: this.sessionId,
        id,
        tool: request.name,
        arguments: (request.arguments ?? {}) as JsonValue,
      });
    }
    this.lastResult = result;
    return { kind: 'result', result: { content: [{ type: 'text', text: JSON.stringify(result) }] } };
  }

  onExit(): void {}

  async close(): Promise<void> {}
}

/** The text blocks of a result, joined. */
function textOf(result: ToolCallResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  return blocks
    .map((block) => (typeof block === 'object' && block !== null && 'text' in block ? String(block.text) : ''))
    .join('\n');
}
