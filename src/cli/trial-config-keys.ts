/**
 * The keys of trial's config file (docs/config.md), made from the flags' spec: every flag `trial` takes
 * has the key its spec names (`config`), read as its spec says, described by its help line; a flag that is
 * another spelling of one (`--upstream-args`, `--scenario`, the older `--seed`) sets that flag's key. The
 * file format (codecs, schema, settings) is the adapter's, `adapters/schemas/trial-config.schema.ts`.
 */
import {
  choiceCodec,
  CONFIG_CODECS,
  numberCodec,
  trialConfigFormat,
  type Codec,
  type ConfigKey,
} from '../adapters/schemas/trial-config.schema.js';
import type { FileSchema } from '../adapters/schemas/index.js';
import { parameterFlags } from '../domain/faults/index.js';
import {
  flagRank,
  flagSpec,
  helpOf,
  isSwitch,
  numberSpecOf,
  olderNamesIn,
  refusedBy,
  type ConfigSpec,
  type FlagSpec,
  type NumberFlag,
} from './flag-spec.js';
import { TRIAL_COMMAND_FLAGS } from './trial-flag-help.js';

/** The flags trial takes (not those it refuses), in the spec's order: the keys come in this order. */
function trialFlags(): string[] {
  const refused = refusedBy('trial');
  return TRIAL_COMMAND_FLAGS.filter((flag) => !refused.has(flag)).sort((a, b) => flagRank(a) - flagRank(b));
}

/** A number flag's placeholder as a unit (`--agent-timeout <s>`: seconds). */
const UNITS: ReadonlyMap<string, string> = new Map([
  ['s', 'seconds'],
  ['ms', 'milliseconds'],
]);

/** How a key's value is read: the codec its spec names, else what the flag's spec says it takes. */
function codecOf(flag: string, spec: FlagSpec, config: ConfigSpec): Codec {
  if (config.codec !== undefined) return CONFIG_CODECS[config.codec];
  const parameter = parameterFlags().find((p) => p.parameter.flag === flag)?.parameter;
  if (parameter !== undefined) return numberCodec(parameter.min, parameter.max, parameter.integer, UNITS.get(spec.value));
  if (spec.number !== undefined) {
    const number = numberSpecOf(flag as NumberFlag, 'trial');
    return numberCodec(number.min, number.max, number.integer === true, UNITS.get(spec.value));
  }
  if (isSwitch(spec)) return CONFIG_CODECS['on-off'];
  if (spec.value.includes('|')) return choiceCodec(spec.value.split('|') as [string, ...string[]]);
  return CONFIG_CODECS.text;
}

function keysOf(): ConfigKey[] {
  const keys: ConfigKey[] = [];
  for (const flag of trialFlags()) {
    const spec = flagSpec(flag)!;
    const configs: readonly ConfigSpec[] = spec.config === undefined ? [] : 'key' in spec.config ? [spec.config] : spec.config;
    for (const config of configs)
      keys.push({
        key: config.key,
        flag,
        codec: codecOf(flag, spec, config),
        description: config.help ?? `--${flag}: ${helpOf('trial', flag)}`,
      });
  }
  return keys;
}

/** Every key of the file, with the flag it sets. */
export const TRIAL_CONFIG_KEYS: readonly ConfigKey[] = keysOf();

/** The file's format: its schema and its settings, for `readTrialConfig`. */
export const TRIAL_CONFIG = trialConfigFormat(TRIAL_CONFIG_KEYS);

/** Its JSON Schema file, for editors (`npm run schemas` writes it beside the other file schemas). */
export const TRIAL_CONFIG_FILE_SCHEMA: FileSchema = { file: 'trial-config.schema.json', schema: TRIAL_CONFIG.schema };

/**
 * Flags of the command line with no key of their own: another spelling of a key's flag (a comma list,
 * `--scenario` for one scenario, an older name). On the command line they replace that key of the file.
 */
export const FLAG_SPELLINGS: ReadonlyMap<string, string> = new Map([
  ...trialFlags().flatMap((flag) => {
    const same = flagSpec(flag)!.sameKeyAs;
    return same === undefined ? [] : [[flag, same] as const];
  }),
  ...olderNamesIn('trial'),
]);
