/**
 * The config file of `trial` (`trial --config harness.yaml`, YAML or JSON; docs/config.md): every key is
 * one `trial` flag, given the value the flag would be given. Which keys there are is the flags' own: each
 * flag's spec names its key (`src/cli/flag-spec.ts`), and the composition root hands the list over
 * ({@link ConfigKey}). Here is what the file format itself knows: how a value of each kind is checked and
 * turned into flag values (the codecs: a text, a list, a map `NAME: value`, a number within bounds …), and
 * how the keys become the zod schema (its JSON Schema is `docs/schemas/trial-config.schema.json`) and the
 * file's settings ({@link trialConfigFormat}).
 *
 * Two keys have no flag of their own: `tasks` (the task file's list, inline) and `model.stub` given as the
 * script itself rather than a file; they are handed over as {@link InlineValue}s in the place of
 * `--task-file` and `--stub-model`.
 */
import { z } from 'zod';
import { scenarioIds } from '../../domain/faults/index.js';
import { PATCH_TEXTS } from '../../domain/report/patches.js';
import { LOG_LEVELS } from '../logging/log-levels.js';
import { STUB_SCRIPT_SCHEMA } from '../files/stub-model-file.js';

/** A value given inline (no flag can carry it): the flag it stands for reads it instead of a file. */
export interface InlineValue {
  inline: unknown;
}

/** How one key's value is checked and turned into the values of its flag. */
export interface Codec {
  schema: z.ZodType;
  /** What the file's value is, in a few words, for the key table of docs/config.md: `list of texts`. */
  says: string;
  flagValues(value: never): string[] | InlineValue;
}

/** One key of the config file. */
export interface ConfigKey {
  /** The key's path, dotted: `upstream.command`. */
  key: string;
  /** The `trial` flag it stands for, without `--`. */
  flag: string;
  codec: Codec;
  /** What it sets, naming its flag: the JSON Schema's description (its flag's help line). */
  description: string;
}

const nonEmpty = (value: string) => value.trim() !== '';
const TEXT = z.string({ error: 'must be a text' }).refine(nonEmpty, 'must be a non-empty text');
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const text: Codec = { schema: TEXT, says: 'text', flagValues: (v: string) => [v] };

/** One of a few words (`stdio` or `http`). */
export function choiceCodec(values: readonly [string, ...string[]]): Codec {
  const words = values.map((value) => `\`${value}\``);
  return {
    schema: z.enum(values, { error: `must be ${values.join(' or ')}` }),
    says: words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`,
    flagValues: (v: string) => [v],
  };
}

function numberIn(min: number, max: number, integer = false): z.ZodNumber {
  const message = `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`;
  const n = z.number({ error: message }).min(min, message).max(max, message);
  return integer ? n.int(message) : n;
}

/** A number within its flag's bounds (an integer where the flag takes one), of `unit` (`seconds`) if it has one. */
export function numberCodec(min: number, max: number, integer: boolean, unit?: string): Codec {
  const kind = [integer ? 'integer' : '', unit ?? ''].filter((word) => word !== '').join(' ');
  return {
    schema: numberIn(min, max, integer),
    says: `${kind === '' ? '' : `${kind}${integer && unit === undefined ? ' ' : ', '}`}${min}–${max}`,
    flagValues: (v: number) => [String(v)],
  };
}

/** A list given to a repeatable flag: one flag value per item (items may hold commas). */
const repeated: Codec = {
  schema: z.array(TEXT, { error: 'must be a list of texts' }),
  says: 'list of texts (an item may hold commas)',
  flagValues: (v: string[]) => v,
};

/** A list given to a comma-separated flag: a list of items without commas, or the flag's own comma text. */
function commaList(item: z.ZodType<string> = TEXT, says = 'list (or one comma-separated text)'): Codec {
  const noComma = item.refine((v) => !v.includes(','), 'an item must not contain a comma');
  return {
    schema: z.union([z.array(noComma).min(1, 'must name at least one item'), TEXT], {
      error: 'must be a list (or a comma-separated text)',
    }),
    says,
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
  says: 'map `NAME: value` (a number or `true` written as text)',
  flagValues: (v: Record<string, string | number | boolean>) => Object.entries(v).map(([key, value]) => `${key}=${value}`),
};

const headerMap: Codec = {
  schema: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name'), TEXT, {
    error: 'must be a map of Header-Name: value',
  }),
  says: 'map `Header-Name: value`',
  flagValues: (v: Record<string, string>) => Object.entries(v).map(([name, value]) => `${name}: ${value}`),
};

const headerEnvMap: Codec = {
  schema: z.record(
    z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name'),
    z.string().regex(ENV_NAME, 'must be the NAME of an environment variable'),
    { error: 'must be a map of Header-Name: ENV_VAR' },
  ),
  says: 'map `Header-Name: ENV_VAR`',
  flagValues: (v: Record<string, string>) => Object.entries(v).map(([name, variable]) => `${name}=${variable}`),
};

const onOff: Codec = {
  schema: z.union([z.boolean(), z.enum(['on', 'off'])], { error: 'must be true or false (or on / off)' }),
  says: '`true` / `false` (or `on` / `off`)',
  flagValues: (v: boolean | 'on' | 'off') => [v === true ? 'on' : v === false ? 'off' : v],
};

// The faults registered when this module loads: the built-in ones (`src/domain/faults/`).
const SCENARIO_IDS = scenarioIds() as [string, ...string[]];
const scenarios: Codec = commaList(
  z.enum(SCENARIO_IDS, { error: `must be one of ${SCENARIO_IDS.join(', ')}` }),
  `list of ${SCENARIO_IDS.map((id) => `\`${id}\``).join(', ')}`,
);

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
  says: '`auto`, or a list of patch ids',
  flagValues: (v: 'auto' | string[]) => [Array.isArray(v) ? v.join(',') : v],
};

const latency: Codec = {
  schema: z.union([numberIn(0, 3_600_000, true), z.string().regex(/^\d+(:\d+)?$/)], {
    error: 'must be milliseconds (an integer) or "MS:JITTER_MS"',
  }),
  says: 'milliseconds, or `"MS:JITTER_MS"`',
  flagValues: (v: number | string) => [String(v)],
};

const modelFault: Codec = {
  schema: z.union([z.literal(500), z.literal(429), TEXT], { error: 'must be 500, 429[:SECONDS], timeout[:MS] or cut' }),
  says: '`500`, `429`, `"429:SECONDS"`, `timeout`, `"timeout:MS"` or `cut`',
  flagValues: (v: number | string) => [String(v)],
};

const modelFaultOn: Codec = {
  schema: z.union([z.literal('after-write'), numberIn(1, 1_000_000, true)], {
    error: 'must be after-write or a request number from 1',
  }),
  says: '`after-write` or a request number',
  flagValues: (v: number | string) => [String(v)],
};

const shard: Codec = {
  schema: z.string({ error: 'must be a text i/n' }).regex(/^\d{1,6}\/\d{1,6}$/, 'must be i/n, e.g. "2/5"'),
  says: '`"i/n"`',
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
  says: "the task file's list, written here: texts, or `{id, task, follow_ups, system_prompt, max_steps}`",
  flagValues: (v: unknown[]) => ({ inline: v }),
};

/** `model.stub`: a script file, or the script itself (the keys of docs/model-gateway.md). */
const stub: Codec = {
  schema: z.union([TEXT, STUB_SCRIPT_SCHEMA]),
  says: "a script file, or the script's keys themselves ([model-gateway.md](model-gateway.md#the-stub-models-script))",
  flagValues: (v: string | object) => (typeof v === 'string' ? [v] : { inline: v }),
};

/**
 * The codecs a flag's spec names by `config.codec` (`src/cli/flag-spec.ts`), where its value in the file is
 * more than a text, a number, a switch or a choice of words (those follow from the flag's spec itself).
 */
export const CONFIG_CODECS = {
  text,
  /** A list given to a repeatable flag: one flag value per item. */
  repeated,
  /** A list given to a comma-separated flag (or the flag's own comma text). */
  list: commaList(),
  /** `NAME: value` pairs of a repeatable `KEY=VALUE` flag. */
  env: envMap,
  headers: headerMap,
  'header-env': headerEnvMap,
  'on-off': onOff,
  scenarios,
  patch,
  latency,
  'model-fault': modelFault,
  'model-fault-on': modelFaultOn,
  shard,
  tasks,
  stub,
  'log-level': choiceCodec(LOG_LEVELS),
} as const satisfies Readonly<Record<string, Codec>>;
export type ConfigCodecName = keyof typeof CONFIG_CODECS;

const GROUPS: Readonly<Record<string, string>> = {
  upstream: 'The MCP server under test: command (with args, cwd, env) or url (with headers)',
  agent: 'Your agent program (or model.name alone for the built-in agent loop)',
  model: "The model's side: the built-in loop's model, forward mode, or the stub model",
  faults: 'The injected faults beyond the scenario list: tool side and model side',
  tools: 'How tools are classified',
  effects: 'R-15: the effects view, snapshotted per run (docs/effects.md)',
  otel: 'OpenTelemetry traces of the runs (docs/traces.md)',
};

function buildSchema(keys: readonly ConfigKey[]): z.ZodObject {
  const top: Record<string, z.ZodType | null> = {
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors; ignored by the harness.'),
  };
  const groups: Record<string, Record<string, z.ZodType>> = {};
  for (const { key, codec, description } of keys) {
    const field = codec.schema.nullable().optional().describe(description);
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

/** A key of the file, the flag it sets and that flag's values. */
export interface ConfigSetting {
  key: string;
  path: readonly string[];
  flag: string;
  values: string[] | InlineValue;
}

/** The config file's format for these keys: its schema, and the settings of a file that passed it. */
export interface TrialConfigFormat {
  keys: readonly ConfigKey[];
  schema: z.ZodObject;
  /** The settings of a file that passed {@link schema}, in the keys' order; a key without a value is absent. */
  settings(config: Record<string, unknown>): ConfigSetting[];
}

export function trialConfigFormat(keys: readonly ConfigKey[]): TrialConfigFormat {
  return { keys, schema: buildSchema(keys), settings: (config) => configSettings(keys, config) };
}

function configSettings(keys: readonly ConfigKey[], config: Record<string, unknown>): ConfigSetting[] {
  const out: ConfigSetting[] = [];
  for (const { key, flag, codec } of keys) {
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
