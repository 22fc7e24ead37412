/**
 * When a fault applies (the envelope's trigger): every scenario triggers on the agent's write calls,
 * never on a fixed call number. The decision is taken synchronously when a call arrives, so of
 * two parallel writes exactly one is "the first", and a scenario is consumed only by a call it
 * was applied to: a tool the upstream does not list is unclassified and never reaches the plan.
 */
import { globMatch } from '../text/glob.js';
import type { RandomSource } from '../time-and-chance.js';
import type { FaultBehaviour, FaultKind, FaultParameterValues, FaultSettings, ScenarioId } from './fault.js';
import { CHAOS, faultOf } from './index.js';

/**
 * Where a scenario is aimed (opt-in): only at calls of tools matching one of `tools` (globs;
 * null: every tool), and from the `on`-th such write (1: the first, the description's default). Calls of other tools
 * are judged as usual and do not count.
 */
export interface FaultAim {
  tools: readonly string[] | null;
  on: number;
}

/** Latency added to every forwarded call: `ms` ± `jitterMs`, drawn per call from the seeded source. */
export interface LatencyConfig {
  ms: number;
  jitterMs: number;
}

/**
 * Timing and aim, all opt-in; absent fields keep the description's defaults: the first write,
 * no latency, F1's timeout answered at once. `seed` is only recorded (the report's configuration block), so
 * a run can be repeated exactly.
 */
export interface TimingAndAim {
  aim?: FaultAim;
  latency?: LatencyConfig;
  /** F1: how long the agent's answer (the timeout) is held after the ghost write executed, in ms. */
  holdMs?: number;
  seed?: number;
}

/**
 * What the user configured: nothing, one deterministic scenario (with the values of the parameters it
 * declares that were given; absent ones take the fault's defaults), or chaos; with its timing and aim.
 */
export type ScenarioConfig = (
  | { mode: 'none' }
  | { mode: 'scenario'; id: ScenarioId; parameters?: FaultParameterValues }
  | { mode: 'chaos'; errorRate: number }
) &
  TimingAndAim;

/** What the configured fault knows when it decides what the agent sees: its parameters, defaults filled in, and `--hold`. */
export function faultSettingsOf(config: ScenarioConfig): FaultSettings {
  const parameters: Record<string, number> = {};
  if (config.mode === 'scenario') {
    for (const parameter of faultOf(config.id).parameters)
      parameters[parameter.name] = config.parameters?.[parameter.name] ?? parameter.default;
  }
  return { parameters, ...(config.holdMs !== undefined ? { holdMs: config.holdMs } : {}) };
}

/** The default aim: every tool, from the first write. */
export const DEFAULT_AIM: FaultAim = Object.freeze({ tools: null, on: 1 });

/** The plan as readers see it (deciding is the session's). */
export type PlanView = Pick<FaultPlan, 'config' | 'triggered' | 'appliedCount'>;

export class FaultPlan {
  private writesSeen = 0;
  private applied = 0;
  /** Slots of leading-write faults given back by calls that never reached the upstream. */
  private returned = 0;

  constructor(
    readonly config: ScenarioConfig,
    private readonly random: RandomSource,
  ) {}

  /** Decides the fault for a classified call as it arrives; `null` means forward untouched. */
  decide(toolClass: 'read' | 'write', tool: string): FaultKind | null {
    const fault = this.pick(toolClass, tool);
    if (fault !== null) this.applied++;
    return fault;
  }

  /**
   * A forwarding fault (F1, F4) was decided for a call that then never reached the upstream (the upstream
   * was gone, or the call was cancelled before it was sent): it was not applied, so it is not consumed and
   * the next matching write gets it (R-4.1 "only a call the scenario was actually applied to consumes it").
   */
  release(): void {
    this.applied--;
    this.returned++;
  }

  /** Whether the configured scenario was applied to at least one call. */
  get triggered(): boolean {
    return this.applied > 0;
  }

  /** How many calls a fault (or F4's pass-through) was applied to. */
  get appliedCount(): number {
    return this.applied;
  }

  private pick(toolClass: 'read' | 'write', tool: string): FaultKind | null {
    const config = this.config;
    if (config.mode === 'none') return null;
    const fault: FaultBehaviour = config.mode === 'chaos' ? CHAOS : faultOf(config.id);
    const trigger = fault.trigger;
    const aim = config.aim ?? DEFAULT_AIM;
    // A tool the aim does not match is never faulted and does not count as a write of the scenario.
    if (aim.tools !== null && !aim.tools.some((pattern) => globMatch(pattern, tool))) return null;
    if (trigger.kind === 'chance') {
      const rate = config.mode === 'chaos' ? config.errorRate : 0;
      // Strictly below p: p = 0 never fires, p = 1 always does (toxiproxy #603: 0 must mean never).
      return this.random.next() < rate ? fault.kind : null;
    }
    if (toolClass !== 'write') return null;
    if (this.returned > 0) {
      this.returned--;
      return fault.kind;
    }
    // The N-th matching write and the `count - 1` after it (F4: two); counted on arrival, so of two
    // parallel writes exactly one is the N-th.
    const index = this.writesSeen++ - (aim.on - 1);
    return index >= 0 && index < trigger.count ? fault.kind : null;
  }
}
