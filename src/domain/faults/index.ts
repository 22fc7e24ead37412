import { chaosError } from './chaos.js';
import type { FaultBehaviour, FaultKind, ScenarioId } from './fault.js';
import { ghostWrite } from './ghost-write.js';
import { passThrough } from './pass-through.js';
import { rateLimit } from './rate-limit.js';
import { serverError } from './server-error.js';
import { truncatedJson } from './truncated-json.js';

export type { FaultBehaviour, FaultKind, FaultSettings, FaultTrigger, InjectedResult, ScenarioId } from './fault.js';

/** Every fault kind and its behaviour; the compiler checks that none is missing. */
export const FAULTS = {
  F1: ghostWrite,
  F2: rateLimit,
  F3: truncatedJson,
  F4: passThrough,
  F5: serverError,
  chaos: chaosError,
} as const satisfies Record<FaultKind, FaultBehaviour>;

/** The scenario ids in order, for flag validation and the benchmark's default. */
export const SCENARIO_IDS = ['F1', 'F2', 'F3', 'F4', 'F5'] as const;

/** The behaviour of a fault applied to a call, or null when none was. */
export function behaviourOf(kind: FaultKind | null): FaultBehaviour | null {
  return kind === null ? null : FAULTS[kind];
}

/** Whether a configured scenario only shows a baseline (nothing injected, F4). */
export function isBaselineScenario(id: ScenarioId): boolean {
  return FAULTS[id].baseline;
}

/** Type guard for user input such as `--scenario f1`. */
export function isScenarioId(value: string): value is (typeof SCENARIO_IDS)[number] {
  return (SCENARIO_IDS as readonly string[]).includes(value);
}
