/**
 * One demo session: an EvaluationSession fed by the calls the agent declares through `execute_call`,
 * with a simulated backend instead of an upstream. Every declared tool counts as "listed" and is
 * classified once by name (the session's write/read globs, then the default patterns), unless the agent
 * declares its class; a declared class sticks for later calls of that tool.
 */
import { ToolClassifier, type ToolClass, type ToolClassification } from '../../domain/classification.js';
import type { FaultKind, InjectedResult } from '../../domain/faults/index.js';
import type { JsonValue } from '../../domain/json.js';
import { KeyFieldMatcher } from '../../domain/key-fields.js';
import { EvaluationSession } from '../../domain/session.js';
import type { Clock } from '../../ports/clock.port.js';
import type { RandomSource } from '../../ports/random.port.js';
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
}

export class DemoSession {
  private evaluation: EvaluationSession;
  private readonly tools = new Map<string, ToolClassification>();
  private readonly keyMatcher: KeyFieldMatcher;
  private executedWrites = 0;

  constructor(
    /** The session id given to the agent. */
    readonly id: string,
    /** The settings from `start_session`, kept by `reset`. */
    readonly settings: DemoSettings,
    private readonly clock: Clock,
    private readonly random: RandomSource,
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

  /** Clears the history and the violations; the settings stay. */
  reset(): void {
    this.tools.clear();
    this.executedWrites = 0;
    this.evaluation = this.freshEvaluation();
  }

  /** Runs one declared call through the session and the simulated backend. */
  execute(tool: string, args: unknown, declared: 'read' | 'write' | undefined): DemoCallOutcome {
    const classification = this.classify(tool, declared);
    const session = this.evaluation;
    const decision = session.receive(tool, args);
    const base = { tool, toolClass: classification.class, classifiedBy: classification.reason, fault: decision.fault };
    if (!decision.forward) {
      session.delivered(decision.attemptId);
      return { ...base, executedUpstream: false, backendResult: null, ...seen(decision.injected) };
    }
    session.forwarded(decision.attemptId);
    const backendResult = this.simulateBackend(decision.callClass);
    const replacement = session.upstreamAnswered(decision.attemptId, { kind: 'executed', answer: backendResult });
    session.delivered(decision.attemptId);
    const agent = replacement !== null ? seen(replacement) : { agentSees: JSON.stringify(backendResult), agentSeesError: false };
    return { ...base, executedUpstream: true, backendResult, ...agent };
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

  /** The demo backend: a write gets a new id, anything else a generic ok. */
  private simulateBackend(callClass: ToolClass): JsonValue {
    if (callClass !== 'write') return { ok: true };
    this.executedWrites += 1;
    return { ok: true, id: `demo-${this.executedWrites}` };
  }

  private freshEvaluation(): EvaluationSession {
    const catalog = {
      classOf: (name: string): ToolClass => this.tools.get(name)?.class ?? 'unclassified',
      acceptsKey: (): boolean => false,
    };
    return new EvaluationSession({ scenario: this.settings.scenario, keyFields: this.settings.keyFields }, catalog, this.clock, this.random);
  }
}

function seen(result: InjectedResult | null): Pick<DemoCallOutcome, 'agentSees' | 'agentSeesError'> {
  return { agentSees: result?.content.map((block) => block.text).join('\n') ?? '', agentSeesError: result !== null };
}
