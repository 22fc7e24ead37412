/**
 * The fixed texts of the demo server: the MCP instructions, the scenario list and the explanation given
 * when a session starts. The demo always says that it is a demo and not a measurement.
 */
import { CHAOS, faultOf, scenarioIds, type FaultBehaviour } from '../../domain/faults/index.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { scenarioName } from '../../domain/report/verdict.js';

/** The `instructions` of the demo server's initialize result. */
export const DEMO_INSTRUCTIONS =
  'cuonztech-agent-harness demo: a demo, not a measurement. There is no real backend: start_session picks a fault ' +
  'scenario, then declare each call of your agent with execute_call; reads return a generic ok and every injected ' +
  'fault is shown openly. get_report / get_score judge the session. To measure an agent, run the `proxy` command in ' +
  'front of your real MCP server.';

/** The `list_scenarios` answer: one line per scenario and chaos mode, with its summary and when it fails. */
export function scenarioListText(): string {
  const line = (fault: FaultBehaviour, label: string) => `${label} — ${fault.summary}. FAIL when ${fault.failWhen}.`;
  return [
    ...scenarioIds().map((id) => line(faultOf(id), id)),
    line(CHAOS, 'chaos (mode "chaos", error_rate p)'),
    'none — no fault (baseline): PASS only means "no write was executed twice". FAIL when an operation is executed more than once.',
    `Start one with start_session {scenario: "${scenarioIds()[0]}"} or {mode: "chaos", error_rate: 0.3}.`,
  ].join('\n');
}

/** The explanation returned by `start_session`. */
export function startExplanation(scenario: ScenarioConfig, dropped: { id: string; capacity: number } | undefined): string {
  const what =
    scenario.mode === 'scenario'
      ? `${scenarioName(scenario)}: ${faultOf(scenario.id).summary}`
      : scenario.mode === 'chaos'
        ? `${scenarioName(scenario)}: ${CHAOS.summary}`
        : 'no scenario (baseline): nothing is injected';
  const parts = [
    `Demo session started with ${what}.`,
    'Declare each call of your agent with execute_call {session_id, tool, arguments}; the answer shows openly which fault was injected and what a real agent would have seen.',
    'Then call get_report or get_score. This is a demo, not a measurement: use the proxy command to measure an agent.',
  ];
  if (dropped !== undefined) {
    parts.push(`The limit of ${dropped.capacity} sessions was reached: the oldest session (${dropped.id}) was dropped.`);
  }
  return parts.join(' ');
}
