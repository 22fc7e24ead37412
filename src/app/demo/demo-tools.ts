/**
 * The tools of the demo MCP server: R-12's seven and `list_records` (R-15.1: the records its simulated
 * backend holds, for an effects view). Their input schemas are plain JSON Schema without
 * `$schema`, `pattern`, `format` or `propertyNames` (some clients reject those keywords, R-12), and
 * every schema forbids unknown properties so a typo (`args` for `arguments`) is refused, not ignored.
 */
import { parameterFlags, scenarioIds } from '../../domain/faults/index.js';
import { parameterField } from './demo-settings.js';
import type { ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';

/** The names of the demo tools, in the order they are listed. */
export const DEMO_TOOL_NAMES = [
  'start_session',
  'execute_call',
  'get_report',
  'get_score',
  'list_scenarios',
  'reset_session',
  'delete_session',
  'list_records',
] as const;

/** One demo tool name. */
export type DemoToolName = (typeof DEMO_TOOL_NAMES)[number];

/** True when `name` is exactly one of the demo tools (case-sensitive, no trimming). */
export function isDemoToolName(name: string): name is DemoToolName {
  return (DEMO_TOOL_NAMES as readonly string[]).includes(name);
}

const sessionId = { type: 'string', description: 'The id returned by start_session.' };
const globList = (what: string) => ({ type: 'array', items: { type: 'string' }, minItems: 1, description: what });

function objectSchema(properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

function annotations(title: string, readOnly: boolean, destructive: boolean): Record<string, unknown> {
  return { title, readOnlyHint: readOnly, destructiveHint: destructive, idempotentHint: readOnly, openWorldHint: false };
}

const START_SCHEMA = objectSchema({
  scenario: {
    type: 'string',
    enum: [...scenarioIds(), 'none'],
    description: `Deterministic scenario ${scenarioIds().join(', ')}, or none (baseline). Not with mode chaos.`,
  },
  mode: { type: 'string', enum: ['deterministic', 'chaos'], description: 'deterministic (default) or chaos.' },
  error_rate: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    description: 'Chaos only (required there): probability 0–1 that a call fails.',
  },
  ...Object.fromEntries(
    parameterFlags().map((flag) => [
      parameterField(flag),
      {
        type: flag.parameter.integer ? 'integer' : 'number',
        minimum: flag.parameter.min,
        maximum: flag.parameter.max,
        description: `${flag.scenarios.join(' or ')} only: ${flag.parameter.description} (default ${flag.parameter.default}).`,
      },
    ]),
  ),
  key_fields: globList('Argument names that carry an idempotency key (default idempotency_key).'),
  write_tools: globList('Glob patterns (*) of write tools; replace the default write patterns.'),
  read_tools: globList('Glob patterns (*) of additional read tools.'),
});

/** The tool descriptors served by `tools/list`. */
export const DEMO_TOOLS: readonly ToolDescriptor[] = [
  {
    name: 'start_session',
    description:
      'Start a demo session with a fault scenario. Returns session_id. A demo, not a measurement: there is no real backend.',
    inputSchema: START_SCHEMA,
    annotations: annotations('Start demo session', false, false),
  },
  {
    name: 'execute_call',
    description:
      'Declare one tool call of your agent. The demo classifies it (read/write), simulates the backend and tells you openly which fault was injected and what a real agent would have seen.',
    inputSchema: objectSchema(
      {
        session_id: sessionId,
        tool: { type: 'string', minLength: 1, description: 'The name of the tool your agent calls, e.g. create_booking.' },
        arguments: { type: 'object', description: 'The arguments of that call.' },
        class: { type: 'string', enum: ['read', 'write'], description: 'Classify the tool yourself (otherwise by name).' },
      },
      ['session_id', 'tool'],
    ),
    annotations: annotations('Execute a call', false, false),
  },
  {
    name: 'get_report',
    description:
      'The evaluation of a demo session (verdict, operations, violations). Also writes .cuonztech/audit-report.json in the current folder.',
    inputSchema: objectSchema(
      { session_id: sessionId, format: { type: 'string', enum: ['text', 'json'], description: 'text (default) or json.' } },
      ['session_id'],
    ),
    annotations: annotations('Demo report', false, false),
  },
  {
    name: 'get_score',
    description: 'The 0–100 score of a demo session and the prompt patches for observed misbehaviour.',
    inputSchema: objectSchema({ session_id: sessionId }, ['session_id']),
    annotations: annotations('Demo score', true, false),
  },
  {
    name: 'list_scenarios',
    description: `The fault scenarios ${scenarioIds().join(', ')} and chaos mode, and when each one fails.`,
    inputSchema: objectSchema({}),
    annotations: annotations('Scenarios', true, false),
  },
  {
    name: 'reset_session',
    description: 'Clear the history and violations of a demo session (same settings).',
    inputSchema: objectSchema({ session_id: sessionId }, ['session_id']),
    annotations: annotations('Reset demo session', false, true),
  },
  {
    name: 'delete_session',
    description: 'Remove a demo session.',
    inputSchema: objectSchema({ session_id: sessionId }, ['session_id']),
    annotations: annotations('Delete demo session', false, true),
  },
  {
    name: 'list_records',
    description:
      'The records the simulated backend holds: one per write it executed ({session_id, id, tool, arguments}), of one session or of all. A read for an effects view: proxy --effects-tool list_records --effect-key tool,arguments.',
    inputSchema: objectSchema({
      session_id: { type: 'string', description: "Only this session's records (default: every session's)." },
    }),
    annotations: annotations('Backend records', true, false),
  },
];
