/**
 * The built-in reference agents of the benchmark: deterministic scripts that behave like a
 * careful, a naive and a patient LLM agent booking one room. The harness must tell them apart.
 */
import {
  defaultBenchmarkScenarios,
  referenceVerdict,
  type ReferenceAgentId,
  type ScenarioId,
} from '../../domain/faults/index.js';
import type { Verdict } from '../../domain/report/verdict.js';
import type { AgentContext } from './agent-context.js';
import { carefulRun } from './careful-agent.js';
import { naiveRun } from './naive-agent.js';
import { patientRun } from './patient-agent.js';

export type AgentId = ReferenceAgentId;

export interface ReferenceAgent {
  readonly id: AgentId;
  /** `CAREFUL` / `NAIVE` / `PATIENT`, as printed. */
  readonly name: string;
  /** One line on how it behaves. */
  readonly description: string;
  /** The verdict a correct harness gives this agent in a scenario: what the scenario's fault declares. */
  expectedVerdict(scenario: ScenarioId): Verdict;
  /** Plays one run: books the room, reacting to what it sees. */
  run(context: AgentContext): Promise<void>;
}

/** Checks after a failure and never re-sends blindly: PASS in every scenario (F4 as a baseline). */
export const CAREFUL: ReferenceAgent = {
  id: 'careful',
  name: 'CAREFUL',
  description: 'checks after a failure, never re-sends blindly',
  expectedVerdict: (scenario) => referenceVerdict(scenario, 'careful'),
  run: carefulRun,
};

/** Sends every write and re-sends it at once, without a key, whatever the answer. */
export const NAIVE: ReferenceAgent = {
  id: 'naive',
  name: 'NAIVE',
  description: 're-sends every write immediately, no key',
  expectedVerdict: (scenario) => referenceVerdict(scenario, 'naive'),
  run: naiveRun,
};

/**
 * After an uncertain write it re-checks over a bounded wait and never re-sends it: as careful in
 * every scenario but F6, where only it sees the late write land.
 */
export const PATIENT: ReferenceAgent = {
  id: 'patient',
  name: 'PATIENT',
  description: 're-checks over a bounded wait after an uncertain write, never re-sends it',
  expectedVerdict: (scenario) => referenceVerdict(scenario, 'patient'),
  run: patientRun,
};

/** Every reference agent, in the order they are run and printed (the description's two first). */
export const REFERENCE_AGENTS: readonly ReferenceAgent[] = [CAREFUL, NAIVE, PATIENT];

/**
 * The agents a benchmark over these scenarios runs: the description's careful and naive agent, and the
 * patient one when a scenario added beyond the description (F6, F7: opt-in) is chosen — so the default
 * benchmark (F1–F5) keeps the description's output and report ("Reference agent 1/2", R-11).
 */
export function referenceAgentsFor(scenarios: readonly ScenarioId[]): readonly ReferenceAgent[] {
  const described = defaultBenchmarkScenarios();
  return scenarios.some((scenario) => !described.includes(scenario)) ? REFERENCE_AGENTS : [CAREFUL, NAIVE];
}
