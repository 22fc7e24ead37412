/**
 * The settings of a demo session, validated like the proxy's flags: a scenario or chaos, never
 * both; `error_rate` only (and always) with chaos; `retry_after` only with F2 (default 60, max 86400);
 * key fields and write/read globs as non-empty lists.
 */
import type { ClassificationRules } from '../../domain/classification.js';
import { SCENARIO_IDS } from '../../domain/faults/index.js';
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { DEFAULT_KEY_FIELDS } from '../../domain/key-fields.js';
import { ArgumentError, ToolArguments } from './tool-arguments.js';

/** Everything a demo session is configured with; `reset_session` keeps it. */
export interface DemoSettings {
  scenario: ScenarioConfig;
  keyFields: readonly string[];
  rules: ClassificationRules;
}

/** The announced retry_after of F2 when none is given, in seconds (as in the proxy). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;
/** The largest retry_after accepted, in seconds. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/** The fields `start_session` accepts. */
export const START_FIELDS = ['scenario', 'mode', 'error_rate', 'retry_after', 'key_fields', 'write_tools', 'read_tools'] as const;

const SCENARIO_CHOICES = [...SCENARIO_IDS, 'none'] as const;

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
  const retryAfter = args.number('retry_after', 1, MAX_RETRY_AFTER_SECONDS, true);
  if (mode === 'chaos') {
    if (scenario !== undefined) throw new ArgumentError('scenario cannot be used with mode chaos (chaos injects its own faults)');
    if (retryAfter !== undefined) throw new ArgumentError('retry_after is only used with scenario F2');
    if (errorRate === undefined) throw new ArgumentError('mode chaos needs error_rate (a probability from 0 to 1)');
    return { mode: 'chaos', errorRate };
  }
  if (errorRate !== undefined) throw new ArgumentError('error_rate is only used with mode chaos');
  if (retryAfter !== undefined && scenario !== 'F2') throw new ArgumentError('retry_after is only used with scenario F2');
  if (scenario === undefined || scenario === 'none') return { mode: 'none' };
  return { mode: 'scenario', id: scenario, retryAfterSeconds: retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS };
}
