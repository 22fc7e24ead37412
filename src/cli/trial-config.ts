/**
 * `trial --config FILE`: the file's keys become the flags they stand for (each flag's spec names its key:
 * `trial-config-keys.ts`), and the flags of the command line override them, so the
 * file and the command line go through the one flag parser (`trial-flags.ts`) and give the same plan.
 * An error of that parser about a flag the file set names the file, the line and the key.
 */
import { errorMessage } from '../domain/error-message.js';
import { resolve } from 'node:path';
import { readTrialConfig } from '../adapters/files/config-file.js';
import type { InlineValue } from '../adapters/schemas/trial-config.schema.js';
import { FLAG_SPELLINGS, TRIAL_CONFIG } from './trial-config-keys.js';
import type { UpstreamSettings } from '../app/trial/trial-settings.js';
import { single, type FlagValues } from './argv.js';
import { UsageError } from './errors.js';
import type { TrialFlags, TrialInline } from './trial-flags.js';

/** Where the settings came from (summary.json, `provenance.config`). */
export interface SettingsSource {
  /** The config file, resolved; null without `--config`. */
  file: string | null;
  /** The file's text as read, for its hash. */
  fileText: string | null;
  /** The file's keys that were used (not overridden), in the order of docs/config.md. */
  fromFile: string[];
  /** The flags given on the command line (names only: a value may be a secret). */
  fromCommandLine: string[];
}

export interface ResolvedFlags {
  values: FlagValues;
  inline: TrialInline;
  source: SettingsSource;
  /** Rewrites an error of the flag parser to name the file's key and line when the file set that flag. */
  locate(error: unknown): unknown;
}

/**
 * A flag on the command line replaces these flags of the file besides its own: the other way of giving
 * the same thing (the upstream by command or by URL, the tasks one by one or as a list, the patches by
 * id or by file, the model played or forwarded to).
 */
const REPLACES: ReadonlyMap<string, readonly string[]> = new Map([
  ['upstream-url', ['upstream-command', 'upstream-arg', 'upstream-cwd', 'upstream-env-var']],
  ['upstream-command', ['upstream-url', 'upstream-header', 'upstream-header-env']],
  ['task', ['task-file']],
  ['follow-up', ['task-file']],
  ['task-file', ['task', 'follow-up']],
  ['patch', ['patch-file']],
  ['patch-file', ['patch']],
  ['stub-model', ['model', 'base-url', 'api-key-env', 'model-replay']],
  ['model', ['stub-model', 'model-replay']],
  ['base-url', ['stub-model', 'model-replay']],
  ['model-replay', ['model', 'base-url', 'api-key-env', 'stub-model']],
]);

/** The file's flag for a flag of the command line (`--scenario` and `--scenarios` set the same key). */
const canonical = (flag: string) => FLAG_SPELLINGS.get(flag) ?? flag;

/** The command line's values with `--config FILE` read into them (without `--config`: unchanged). */
export async function resolveTrialFlags(values: FlagValues, cwd: string): Promise<ResolvedFlags> {
  const configName = single(values, 'config');
  const { config: _config, ...commandLine } = values;
  const fromCommandLine = Object.keys(commandLine);
  if (configName === undefined)
    return {
      values: commandLine,
      inline: {},
      source: { file: null, fileText: null, fromFile: [], fromCommandLine },
      locate: (error) => error,
    };
  const path = resolve(cwd, configName);
  let config;
  try {
    config = await readTrialConfig(path, configName, TRIAL_CONFIG);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const replaced = new Set<string>();
  for (const flag of fromCommandLine) {
    replaced.add(canonical(flag));
    for (const other of REPLACES.get(canonical(flag)) ?? []) replaced.add(other);
  }
  const merged: Record<string, readonly string[]> = {};
  const inline: TrialInline = {};
  /** The file's key (and its line) behind each flag it set. */
  const origin = new Map<string, { key: string; line: number | undefined }>();
  const fromFile: string[] = [];
  for (const setting of config.settings) {
    if (replaced.has(setting.flag)) continue;
    if (origin.has(setting.flag)) {
      const first = origin.get(setting.flag)!;
      const line = config.lineOf(setting.key);
      throw new UsageError(
        `${configName}${line === undefined ? '' : `:${line}`}: ${setting.key}: give ${first.key} or ${setting.key}, not both`,
      );
    }
    origin.set(setting.flag, { key: setting.key, line: config.lineOf(setting.key) });
    fromFile.push(setting.key);
    if (isInline(setting.values)) {
      if (setting.flag === 'task-file') inline.tasks = setting.values.inline;
      else inline.stubScript = setting.values.inline;
      // The flag is set (so every rule about it holds); its reader takes the inline value instead.
      merged[setting.flag] = [`${configName}#${setting.key}`];
    } else if (setting.values.length > 0) merged[setting.flag] = setting.values;
  }
  for (const [flag, list] of Object.entries(commandLine)) merged[flag] = list;
  const locate = (error: unknown): unknown => {
    if (!(error instanceof UsageError)) return error;
    for (const match of error.message.matchAll(/--([a-z][a-z-]*)/g)) {
      const found = origin.get(match[1]!);
      if (found === undefined) continue;
      return new UsageError(`${configName}${found.line === undefined ? '' : `:${found.line}`}: ${found.key}: ${error.message}`);
    }
    return error;
  };
  return {
    values: merged,
    inline,
    source: { file: path, fileText: config.text, fromFile, fromCommandLine },
    locate,
  };
}

function isInline(values: string[] | InlineValue): values is InlineValue {
  return !Array.isArray(values);
}

/** The upstream as the runs start it, for the settings hash (header values only inside the hash). */
export function upstreamSettings(flags: TrialFlags): UpstreamSettings {
  const p = flags.proxy;
  return {
    command: p.upstreamCommand ?? null,
    args: p.upstreamArgs,
    cwd: p.upstreamCwd ?? null,
    env: p.upstreamEnv,
    url: p.upstreamUrl?.href ?? null,
    headers: p.upstreamHeaderFlags,
    headerEnv: p.upstreamHeaderEnvFlags,
  };
}
