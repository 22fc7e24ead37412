/**
 * The config file of `trial` (`trial --config harness.yaml`, YAML or JSON; docs/config.md): every key is
 * one `trial` flag, given the value the flag would be given. {@link TRIAL_CONFIG_KEYS} is the one table
 * (key → flag → value type); the zod schema, its JSON Schema (`docs/schemas/trial-config.schema.json`) and
 * the translation into flag values ({@link configFlagValues}) are all built from it, so a new flag becomes
 * a config key by one more line there.
 *
 * Two keys have no flag of their own: `tasks` (the task file's list, inline) and `model.stub` given as the
 * script itself rather than a file; they are handed over as {@link InlineValue}s in the place of
 * `--task-file` and `--stub-model`.
 */
import { z } from 'zod';
import { parameterFlags, scenarioIds } from '../../domain/faults/index.js';
import { PATCH_TEXTS } from '../../domain/report/patches.js';
import { LOG_LEVELS } from '../logging/log-levels.js';
import { STUB_SCRIPT_SCHEMA } from '../files/stub-model-file.js';

/** A value given inline (no flag can carry it): the flag it stands for reads it instead of a file. */
export interface InlineValue {
  inline: unknown;
}

/** How one key's value is checked and turned into the values of its flag. */
interface Codec {
  schema: z.ZodType;
  flagValues(value: never): string[] | InlineValue;
}

/** One key of the config file. */
export interface ConfigKey {
  /** The key's path, dotted: `upstream.command`. */
  key: string;
  /** The `trial` flag it stands for, without `--`. */
  flag: string;
  codec: Codec;
  description: string;
}

const nonEmpty = (value: string) => value.trim() !== '';
const TEXT = z.string({ error: 'must be a text' }).refine(nonEmpty, 'must be a non-empty text');
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const text: Codec = { schema: TEXT, flagValues: (v: string) => [v] };

function choice(values: readonly [string, ...string[]]): Codec {
  return { schema: z.enum(values, { error: `must be ${values.join(' or ')}` }), flagValues: (v: string) => [v] };
}

function numberIn(min: number, max: number, integer = false): z.ZodNumber {
  const message = `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`;
  const n = z.number({ error: message }).min(min, message).max(max, message);
  return integer ? n.int(message) : n;
}

function num(min: number, max: number): Codec {
  return { schema: numberIn(min, max), flagValues: (v: number) => [String(v)] };
}

function int(min: number, max: number): Codec {
  return { schema: numberIn(min, max, true), flagValues: (v: number) => [String(v)] };
}

/** A list given to a repeatable flag: one flag value per item (items may hold commas). */
const repeated: Codec = { schema: z.array(TEXT, { error: 'must be a list of texts' }), flagValues: (v: string[]) => v };

/** A list given to a comma-separated flag: a list of items without commas, or the flag's own comma text. */
function commaList(item: z.ZodType<string> = TEXT): Codec {
  const noComma = item.refine((v) => !v.includes(','), 'an item must not contain a comma');
  return {
    schema: z.union([z.array(noComma).min(1, 'must name at least one item'), TEXT], {
      error: 'must be a list (or a comma-separated text)',
    }),
    flagValues: (v: string[] | string) => [Array.isArray(v) ? v.join(',') : v],
  };
}

/** `KEY: value` pairs given to a repeatable `KEY=VALUE` flag (numbers and booleans written as YAML writes them). */
const envMap: Codec = {
  schema: z.record(
    z.string().regex(ENV_NAME, 'must be an environment variable name (letters, digits, _)'),
    z.union([z.string(), z.number(), z.boolean()], { error: 'must be a text, a number or true/false' }),
    { error: 'must be a map of NAME: value' },
  ),
  flagValues: (v: Record<string, string | number | boolean>) => Object.entries(v).map(([key, value]) => `${key}=${value}`),
};

const headerMap: Codec = {
  schema: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name'), TEXT, {
    error: 'must be a map of Header-Name: value',
  }),
  flagValues: (v: Record<string, string>) => Object.entries(v).map(([name, value]) => `${name}: ${value}`),
};

const headerEnvMap: Codec = {
  schema: z.record(
    z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name'),
    z.string().regex(ENV_NAME, 'must be the NAME of an environment variable'),
    { error: 'must be a map of Header-Name: ENV_VAR' },
  ),
  flagValues: (v: Record<string, string>) => Object.entries(v).map(([name, variable]) => `${name}=${variable}`),
};

const onOff: Codec = {
  schema: z.union([z.boolean(), z.enum(['on', 'off'])], { error: 'must be true or false (or on / off)' }),
  flagValues: (v: boolean | 'on' | 'off') => [v === true ? 'on' : v === false ? 'off' : v],
};

// The faults registered when this module loads: the built-in ones (`src/domain/faults/`).
const SCENARIO_IDS = scenarioIds() as [string, ...string[]];
const scenarios: Codec = commaList(z.enum(SCENARIO_IDS, { error: `must be one of ${SCENARIO_IDS.join(', ')}` }));

const patch: Codec = {
  schema: z.union(
    [
      z.literal('auto'),
      z
        .array(
          z.enum([...PATCH_TEXTS.keys()] as [string, ...string[]], {
            error: `must be one of ${[...PATCH_TEXTS.keys()].join(', ')}`,
          }),
        )
        .min(1),
    ],
    { error: `must be auto or a list of patch ids (${[...PATCH_TEXTS.keys()].join(', ')})` },
  ),
  flagValues: (v: 'auto' | string[]) => [Array.isArray(v) ? v.join(',') : v],
};

const latency: Codec = {
  schema: z.union([numberIn(0, 3_600_000, true), z.string().regex(/^\d+(:\d+)?$/)], {
    error: 'must be milliseconds (an integer) or "MS:JITTER_MS"',
  }),
  flagValues: (v: number | string) => [String(v)],
};

const modelFault: Codec = {
  schema: z.union([z.literal(500), z.literal(429), TEXT], { error: 'must be 500, 429[:SECONDS], timeout[:MS] or cut' }),
  flagValues: (v: number | string) => [String(v)],
};

const modelFaultOn: Codec = {
  schema: z.union([z.literal('after-write'), numberIn(1, 1_000_000, true)], {
    error: 'must be after-write or a request number from 1',
  }),
  flagValues: (v: number | string) => [String(v)],
};

const shard: Codec = {
  schema: z.string({ error: 'must be a text i/n' }).regex(/^\d{1,6}\/\d{1,6}$/, 'must be i/n, e.g. "2/5"'),
  flagValues: (v: string) => [v],
};

const task = z.union(
  [
    TEXT,
    z.strictObject({
      id: TEXT.optional(),
      task: TEXT,
      follow_ups: z.array(TEXT).optional(),
      system_prompt: TEXT.optional(),
      max_steps: numberIn(1, 1000, true).optional(),
    }),
  ],
  { error: 'must be a text or an object with "task"' },
);

/** `tasks`: the task file's list, written in the config itself. */
const tasks: Codec = {
  schema: z.array(task, { error: 'must be a list of tasks' }).min(1, 'must hold at least one task'),
  flagValues: (v: unknown[]) => ({ inline: v }),
};

/** `model.stub`: a script file, or the script itself (the keys of docs/model-gateway.md). */
const stub: Codec = {
  schema: z.union([TEXT, STUB_SCRIPT_SCHEMA]),
  flagValues: (v: string | object) => (typeof v === 'string' ? [v] : { inline: v }),
};

/**
 * Every key, with the flag it stands for. A new `trial` flag is one more line here (a test fails while
 * a trial flag has no key); its value type is one of the codecs above.
 */
export const TRIAL_CONFIG_KEYS: readonly ConfigKey[] = [
  {
    key: 'upstream.command',
    flag: 'upstream-command',
    codec: text,
    description: 'The command that starts the upstream MCP server',
  },
  { key: 'upstream.args', flag: 'upstream-arg', codec: repeated, description: "The upstream command's arguments, one item each" },
  { key: 'upstream.cwd', flag: 'upstream-cwd', codec: text, description: 'Working directory of the upstream process' },
  {
    key: 'upstream.env',
    flag: 'upstream-env-var',
    codec: envMap,
    description: 'Environment variables of the upstream process, NAME: value',
  },
  {
    key: 'upstream.url',
    flag: 'upstream-url',
    codec: text,
    description: 'URL of a remote upstream (Streamable HTTP) instead of a command',
  },
  {
    key: 'upstream.headers',
    flag: 'upstream-header',
    codec: headerMap,
    description: 'With url: HTTP headers sent to the upstream, Name: value',
  },
  {
    key: 'upstream.header_env',
    flag: 'upstream-header-env',
    codec: headerEnvMap,
    description: 'With url: headers taken from environment variables, Name: ENV_VAR',
  },
  {
    key: 'upstream.replay',
    flag: 'upstream-replay',
    codec: text,
    description: 'A recording (cassette.jsonl) served instead of the upstream, nothing live (docs/replay.md)',
  },
  {
    key: 'upstream.allow_redacted',
    flag: 'allow-redacted',
    codec: onOff,
    description: 'With upstream.replay: replay a recording made with redact',
  },
  {
    key: 'redact',
    flag: 'redact',
    codec: commaList(),
    description: 'Field names whose values are replaced by "[REDACTED]" in every run\'s recording',
  },
  {
    key: 'upstream.timeout',
    flag: 'upstream-timeout',
    codec: num(0.001, 3600),
    description: 'Seconds to wait for an upstream answer (default 60)',
  },
  {
    key: 'agent.command',
    flag: 'agent-command',
    codec: text,
    description: 'Your agent program, started once per run (this or model.name)',
  },
  { key: 'agent.args', flag: 'agent-arg', codec: repeated, description: "The agent program's arguments, one item each" },
  {
    key: 'agent.env',
    flag: 'agent-env-var',
    codec: envMap,
    description: 'Environment variables of the agent program, NAME: value (hashed into the provenance)',
  },
  {
    key: 'agent.transport',
    flag: 'agent-transport',
    codec: choice(['stdio', 'http']),
    description: 'How the agent reaches the harness: stdio (default) or http',
  },
  {
    key: 'agent.timeout',
    flag: 'agent-timeout',
    codec: num(0.1, 86_400),
    description: 'Seconds a run of the agent program may take (default 300)',
  },
  {
    key: 'model.name',
    flag: 'model',
    codec: text,
    description: 'The model: the built-in agent loop, or with agent.command the model the gateway forwards to',
  },
  {
    key: 'model.base_url',
    flag: 'base-url',
    codec: text,
    description: 'The OpenAI-compatible endpoint (default http://127.0.0.1:11434/v1 for the built-in loop)',
  },
  {
    key: 'model.api_key_env',
    flag: 'api-key-env',
    codec: text,
    description: 'NAME of the environment variable holding the API key (never the key)',
  },
  {
    key: 'model.stub',
    flag: 'stub-model',
    codec: stub,
    description: "With agent.command: the harness plays the program's model from this script (a file, or the script's keys here)",
  },
  {
    key: 'model.replay',
    flag: 'model-replay',
    codec: text,
    description: "The model's requests answered from this recording (a run's cassette.jsonl), nothing live (docs/replay.md)",
  },
  {
    key: 'model.temperature',
    flag: 'temperature',
    codec: num(0, 2),
    description: "Built-in loop: sampling temperature (default: the endpoint's)",
  },
  {
    key: 'model.retries',
    flag: 'model-retries',
    codec: int(0, 10),
    description: 'Built-in loop: retries of a model request (default 3)',
  },
  {
    key: 'model.timeout',
    flag: 'model-timeout',
    codec: num(0.1, 3600),
    description: 'Built-in loop: seconds one model request may take (default 300)',
  },
  {
    key: 'model.is_error',
    flag: 'is-error',
    codec: choice(['visible', 'hidden']),
    description: 'Built-in loop: how isError reaches the model (default visible)',
  },
  { key: 'system_prompt', flag: 'system-prompt', codec: text, description: 'System prompt: a file path, or the text itself' },
  { key: 'task', flag: 'task', codec: text, description: "The user's first message" },
  { key: 'follow_ups', flag: 'follow-up', codec: repeated, description: "Further user turns after the agent's final answer" },
  {
    key: 'task_file',
    flag: 'task-file',
    codec: text,
    description: 'A JSON or YAML file with several tasks (instead of task / follow_ups / tasks)',
  },
  {
    key: 'tasks',
    flag: 'task-file',
    codec: tasks,
    description:
      'Several tasks, as a task file lists them, written here (instead of task / follow_ups / task_file; what --task-file would read)',
  },
  { key: 'max_steps', flag: 'max-steps', codec: int(1, 1000), description: 'Model calls per user turn (default 10)' },
  { key: 'honesty', flag: 'honesty', codec: onOff, description: 'Ask the honesty question after the task (default true)' },
  { key: 'honesty_question', flag: 'honesty-question', codec: text, description: 'The honesty question' },
  {
    key: 'seed',
    flag: 'model-seed',
    codec: int(0, 4_294_967_295),
    description: 'Seed for the endpoint or your agent (run k gets seed + k - 1)',
  },
  {
    key: 'scenarios',
    flag: 'scenarios',
    codec: scenarios,
    description: `Scenarios ${scenarioIds().join(', ')}, --runs runs each (none: a pass-through baseline)`,
  },
  {
    key: 'faults.mode',
    flag: 'mode',
    codec: choice(['deterministic', 'chaos']),
    description: 'deterministic (default) or chaos (then no scenarios)',
  },
  { key: 'faults.error_rate', flag: 'error-rate', codec: num(0, 1), description: 'chaos only: probability that a call fails' },
  // Each fault's own parameters (`--retry-after` of F2), as the fault declares them: `faults.retry_after`.
  ...parameterFlags().map(({ parameter, scenarios }): ConfigKey => ({
    key: `faults.${parameter.flag.replaceAll('-', '_')}`,
    flag: parameter.flag,
    codec: parameter.integer ? int(parameter.min, parameter.max) : num(parameter.min, parameter.max),
    description: `${scenarios.join(' or ')} only: ${parameter.description} (default ${parameter.default})`,
  })),
  { key: 'faults.tools', flag: 'fault-tool', codec: commaList(), description: 'Aim the scenario at these tools only (globs)' },
  { key: 'faults.on', flag: 'fault-on', codec: int(1, 1_000_000), description: 'Trigger on the N-th matching write (default 1)' },
  {
    key: 'faults.latency',
    flag: 'latency',
    codec: latency,
    description: 'Milliseconds added to every forwarded call, or "MS:JITTER_MS"',
  },
  {
    key: 'faults.hold',
    flag: 'hold',
    codec: int(1, 3_600_000),
    description: 'F1 only: hold the timeout answer this many ms after the ghost write',
  },
  {
    key: 'faults.model',
    flag: 'model-fault',
    codec: modelFault,
    description: 'A model-side fault once per run: 500, 429[:SECONDS], timeout[:MS] or cut',
  },
  {
    key: 'faults.model_on',
    flag: 'model-fault-on',
    codec: modelFaultOn,
    description: 'Which model request faults.model hits: after-write (default) or N',
  },
  {
    key: 'tools.write',
    flag: 'write-tools',
    codec: commaList(),
    description: 'Write tool globs; replaces the default write list',
  },
  { key: 'tools.read', flag: 'read-tools', codec: commaList(), description: 'Extra read tool globs' },
  {
    key: 'tools.key_fields',
    flag: 'key-fields',
    codec: commaList(),
    description: 'Argument names that carry the idempotency key (default idempotency_key)',
  },
  {
    key: 'tools.idempotent_hint',
    flag: 'idempotent-hint',
    codec: choice(['honour', 'ignore']),
    description: 'honour (default) or ignore idempotentHint: true',
  },
  {
    key: 'effects.tool',
    flag: 'effects-tool',
    codec: text,
    description: 'R-15: a read tool that lists the records, TOOL or TOOL={json arguments} (docs/effects.md)',
  },
  {
    key: 'effects.command',
    flag: 'effects-command',
    codec: text,
    description: 'R-15: instead of effects.tool, a program that prints the records',
  },
  { key: 'effects.args', flag: 'effects-arg', codec: repeated, description: "The effects command's arguments, one item each" },
  { key: 'effects.path', flag: 'effects-path', codec: text, description: 'Where the records are inside the answer, a.b' },
  {
    key: 'effects.key',
    flag: 'effect-key',
    codec: commaList(),
    description: 'The record fields that make two records the same effect (required with a view)',
  },
  {
    key: 'effects.expect',
    flag: 'expect-effect',
    codec: repeated,
    description: "Effects every run should create, each 'FIELD=VALUE,…' over the key fields",
  },
  { key: 'runs', flag: 'runs', codec: int(1, 100_000), description: 'Runs per scenario and task (default 5)' },
  { key: 'concurrency', flag: 'concurrency', codec: int(1, 64), description: 'Runs at the same time (default 1)' },
  { key: 'reset_command', flag: 'reset-command', codec: text, description: 'Shell command run before each run' },
  { key: 'patch', flag: 'patch', codec: patch, description: 'A/B of the prompt patches: auto, or a list of patch ids' },
  {
    key: 'patch_file',
    flag: 'patch-file',
    codec: text,
    description: 'A/B: a file whose text is appended to the system prompt of the second arm',
  },
  { key: 'shard', flag: 'shard', codec: shard, description: 'i/n: run only the i-th of n shares of the runs' },
  { key: 'out', flag: 'out', codec: text, description: 'Output folder (default .cuonztech/trials/<time>/)' },
  {
    key: 'otel.enabled',
    flag: 'otel',
    codec: onOff,
    description:
      'Export OpenTelemetry traces of the runs (OTLP/HTTP): a span per run, its sessions, tool calls and model requests (docs/traces.md); nothing is sent without it',
  },
  {
    key: 'otel.endpoint',
    flag: 'otel-endpoint',
    codec: text,
    description: 'With otel.enabled: the OTLP/HTTP endpoint, e.g. http://localhost:4318 (/v1/traces is added unless given)',
  },
  {
    key: 'otel.payloads',
    flag: 'otel-payloads',
    codec: onOff,
    description: "With otel.enabled: also put the tool calls' arguments and answers in the spans (they may hold personal data)",
  },
  {
    key: 'log_level',
    flag: 'log-level',
    codec: choice(LOG_LEVELS),
    description: 'Log records on stderr, as plain lines like every notice (default silent)',
  },
];

/**
 * Flags of the command line with no key of their own: another spelling of a key's flag (a comma list, or
 * `--scenario` for one scenario). On the command line they replace that key of the file.
 */
export const FLAG_SPELLINGS: ReadonlyMap<string, string> = new Map([
  ['upstream-args', 'upstream-arg'],
  ['upstream-env', 'upstream-env-var'],
  ['scenario', 'scenarios'],
  // --model-seed's older name (issue 37 §3).
  ['seed', 'model-seed'],
]);

const GROUPS: Readonly<Record<string, string>> = {
  upstream: 'The MCP server under test: command (with args, cwd, env) or url (with headers)',
  agent: 'Your agent program (or model.name alone for the built-in agent loop)',
  model: "The model's side: the built-in loop's model, forward mode, or the stub model",
  faults: 'The injected faults beyond the scenario list: tool side and model side',
  tools: 'How tools are classified',
  effects: 'R-15: the effects view, snapshotted per run (docs/effects.md)',
  otel: 'OpenTelemetry traces of the runs (docs/traces.md)',
};

function buildSchema(): z.ZodObject {
  const top: Record<string, z.ZodType | null> = {
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors; ignored by the harness.'),
  };
  const groups: Record<string, Record<string, z.ZodType>> = {};
  for (const { key, flag, codec, description } of TRIAL_CONFIG_KEYS) {
    const said = description.includes('--') ? `${description}.` : `${description} (--${flag}).`;
    const field = codec.schema.nullable().optional().describe(said);
    const [group, name] = key.includes('.') ? (key.split('.') as [string, string]) : [null, key];
    if (group === null) top[name] = field;
    else {
      // The group takes its place in the table's order (editors list the keys in this order).
      if (!Object.hasOwn(top, group)) top[group] = null;
      (groups[group] ??= {})[name] = field;
    }
  }
  for (const [group, shape] of Object.entries(groups))
    top[group] = z
      .strictObject(shape)
      .nullable()
      .optional()
      .describe(GROUPS[group] ?? group);
  return z
    .strictObject(top as Record<string, z.ZodType>)
    .describe('The config file of trial (docs/config.md): every key is one trial flag.');
}

export const trialConfigSchema = buildSchema();

/** A key of the file, the flag it sets and that flag's values. */
export interface ConfigSetting {
  key: string;
  path: readonly string[];
  flag: string;
  values: string[] | InlineValue;
}

/** The settings of a file that passed {@link trialConfigSchema}, in table order; a key without a value is absent. */
export function configSettings(config: Record<string, unknown>): ConfigSetting[] {
  const out: ConfigSetting[] = [];
  for (const { key, flag, codec } of TRIAL_CONFIG_KEYS) {
    const path = key.split('.');
    let value: unknown = config;
    for (const part of path)
      value =
        typeof value === 'object' && value !== null && Object.hasOwn(value, part)
          ? (value as Record<string, unknown>)[part]
          : undefined;
    if (value === undefined || value === null) continue;
    out.push({ key, path, flag, values: codec.flagValues(value as never) });
  }
  return out;
}
