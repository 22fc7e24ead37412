/**
 * When a fault applies (the envelope's trigger): every scenario triggers on the agent's write calls,
 * never on a fixed call number. The decision is taken synchronously when a call arrives, so of
 * two parallel writes exactly one is "the first", and a scenario is consumed only by a call it
 * was applied to: a tool the upstream does not list is unclassified and never reaches the plan.
 */
import type { RandomSource } from '../time-and-chance.js';
import type { FaultBehaviour, FaultKind, ScenarioId } from './fault.js';
import { FAULTS } from './index.js';

/** What the user configured: nothing, one deterministic scenario, or chaos. */
export type ScenarioConfig =
  | { mode: 'none' }
  | { mode: 'scenario'; id: ScenarioId; retryAfterSeconds: number }
  | { mode: 'chaos'; errorRate: number };

/** The plan as readers see it (deciding is the session's). */
export type PlanView = Pick<FaultPlan, 'config' | 'triggered' | 'appliedCount'>;

export class FaultPlan {
  private writesSeen = 0;
  private applied = 0;

  constructor(
    readonly config: ScenarioConfig,
    private readonly random: RandomSource,
  ) {}

  /** Decides the fault for a classified call as it arrives; `null` means forward untouched. */
  decide(toolClass: 'read' | 'write'): FaultKind | null {
    const fault = this.pick(toolClass);
    if (fault !== null) this.applied++;
    return fault;
  }

  /** Whether the configured scenario was applied to at least one call. */
  get triggered(): boolean {
    return this.applied > 0;
  }

  /** How many calls a fault (or F4's pass-through) was applied to. */
  get appliedCount(): number {
    return this.applied;
  }

  private pick(toolClass: 'read' | 'write'): FaultKind | null {
    const config = this.config;
    if (config.mode === 'none') return null;
    const fault: FaultBehaviour = config.mode === 'chaos' ? FAULTS.chaos : FAULTS[config.id];
    const trigger = fault.trigger;
    if (trigger.kind === 'chance') {
      const rate = config.mode === 'chaos' ? config.errorRate : 0;
      // Strictly below p: p = 0 never fires, p = 1 always does (toxiproxy #603: 0 must mean never).
      return this.random.next() < rate ? fault.kind : null;
    }
    if (toolClass !== 'write') return null;
    const index = this.writesSeen++;
    return index < trigger.count ? fault.kind : null;
  }
}
