/**
 * The settings of a demo session, validated like the proxy's flags (R-8.1): a scenario or chaos, never
 * both; `error_rate` only (and always) with chaos; a fault's own parameters (F2's `retry_after`, default 60,
 * max 86400) only with a scenario that declares them; key fields and write/read globs as non-empty lists.
 */
import type { ClassificationRules } from '../../domain/judging/classification.js';
import { parameterFlags, scenarioIds, type ParameterFlag } from '../../domain/faults/index.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { DEFAULT_KEY_FIELDS } from '../../domain/judging/key-fields.js';
import { ArgumentError, ToolArguments } from './tool-arguments.js';

/** Everything a demo session is configured with; `reset_session` keeps it. */
export interface DemoSettings {
  scenario: ScenarioConfig;
  keyFields: readonly string[];
  rules: ClassificationRules;
}

/** The `start_session` field of a fault's parameter: its flag in snake_case (`retry_after`). */
export const parameterField = (flag: ParameterFlag): string => flag.parameter.flag.replaceAll('-', '_');

/** The fields `start_session` accepts. */
export const START_FIELDS: readonly string[] = [
  'scenario',
  'mode',
  'error_rate',
  ...parameterFlags().map(parameterField),
  'key_fields',
  'write_tools',
  'read_tools',
];

const SCENARIO_CHOICES = [...scenarioIds(), 'none'] as const;

/** Parses `start_session` arguments; throws an ArgumentError with one clear sentence. */
export function parseDemoSettings(raw: unknown): DemoSettings {
  const args = ToolArguments.read(raw, START_FIELDS);
  const writeTools = args.stringList('write_tools');
  const readTools = args.stringList('read_tools');
  return {
    scenario: parseScenario(args),
    keyFields: args.stringList('key_fields') ?? DEFAULT_KEY_FIELDS,
    rules: { ...(writeTools !== undefined ? { writeTools } : {}), ...(readTools !== undefined ? { readTools } : {}) },
  };
}

function parseScenario(args: ToolArguments): ScenarioConfig {
  const scenario = args.choice('scenario', SCENARIO_CHOICES);
  const mode = args.choice('mode', ['deterministic', 'chaos'] as const) ?? 'deterministic';
  const errorRate = args.number('error_rate', 0, 1, false);
  const given = parameterFlags().flatMap((flag) => {
    const { min, max, integer } = flag.parameter;
    const value = args.number(parameterField(flag), min, max, integer);
    return value === undefined ? [] : [{ flag, value }];
  });
  const refuseParameters = (id: string | undefined) => {
    const stray = given.find(({ flag }) => id === undefined || !flag.scenarios.includes(id));
    if (stray !== undefined)
      throw new ArgumentError(`${parameterField(stray.flag)} is only used with scenario ${stray.flag.scenarios.join(' or ')}`);
  };
  if (mode === 'chaos') {
    if (scenario !== undefined) throw new ArgumentError('scenario cannot be used with mode chaos (chaos injects its own faults)');
    refuseParameters(undefined);
    if (errorRate === undefined) throw new ArgumentError('mode chaos needs error_rate (a probability from 0 to 1)');
    return { mode: 'chaos', errorRate };
  }
  if (errorRate !== undefined) throw new ArgumentError('error_rate is only used with mode chaos');
  refuseParameters(scenario === 'none' ? undefined : scenario);
  if (scenario === undefined || scenario === 'none') return { mode: 'none' };
  if (given.length === 0) return { mode: 'scenario', id: scenario };
  return {
    mode: 'scenario',
    id: scenario,
    parameters: Object.fromEntries(given.map(({ flag, value }) => [flag.parameter.name, value])),
  };
}
