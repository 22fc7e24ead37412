/**
 * The two built-in reference agents of the benchmark: deterministic scripts that behave like a
 * careful and a naive LLM agent booking one room. The harness must tell them apart.
 */
import { referenceVerdict, type ScenarioId } from '../../domain/faults/index.js';
import type { Verdict } from '../../domain/verdict.js';
import type { AgentContext } from './agent-context.js';
import { carefulRun } from './careful-agent.js';
import { naiveRun } from './naive-agent.js';

export type AgentId = 'careful' | 'naive';

export interface ReferenceAgent {
  readonly id: AgentId;
  /** `CAREFUL` / `NAIVE`, as printed. */
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

/** Both reference agents, in the order they are run and printed. */
export const REFERENCE_AGENTS: readonly ReferenceAgent[] = [CAREFUL, NAIVE];
