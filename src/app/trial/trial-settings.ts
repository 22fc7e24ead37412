/**
 * The settings hash of a trial (summary.json, `provenance.config.settingsHash`; docs/config.md): sha256 of
 * the canonical JSON (`src/domain/json.ts`: keys sorted, no white space) of every resolved setting the
 * trial runs with — the plan (agent, model side, tasks with their texts, scenarios, faults, runs,
 * concurrency, shard, patches, classification) and the upstream as it is started — whether each came
 * from a config file, a flag or a default. So a config file and the flags it stands for give the same
 * hash, and so do `runs: 5` and no `runs` at all.
 *
 * Not in it: where the outputs go (`--out`), the log level, the API key's value (its variable's name is
 * in it), and the names of the files the texts were read from (their texts are in it): a task file and
 * the same tasks written in the config, a stub script file and the same script inline, hash alike.
 *
 * Beside it, `provenance.configurationHash` (measured-settings.ts) is narrower on purpose: what `stats`
 * compares before pooling the folders of several machines, without the upstream's command line.
 */
import { canonicalJson } from '../../domain/json.js';
import type { TrialPlan } from './trial-plan.js';

/** The upstream as each run starts it (placeholders such as `{run_dir}` unexpanded). */
export interface UpstreamSettings {
  command: string | null;
  args: readonly string[];
  cwd: string | null;
  env: Readonly<Record<string, string>>;
  url: string | null;
  /** `--upstream-header` as given (`Name: value`). */
  headers: readonly string[];
  /** `--upstream-header-env` as given (`Name=ENV_VAR`). */
  headerEnv: readonly string[];
}

/** Where the settings came from, recorded beside the hash. */
export interface SettingsOrigin {
  /** The config file (resolved path) and the sha256 of its text; null without `--config`. */
  file: string | null;
  fileSha256: string | null;
  /** The file's keys that were used (a flag on the command line overrides its key). */
  fromFile: readonly string[];
  /** The flags given on the command line, by name. */
  fromCommandLine: readonly string[];
}

/**
 * The object that is hashed: the plan without file names, and the upstream. A `--model-replay` recording
 * is named by its file, not hashed by its contents (its exchanges are the recording, not a setting).
 */
export function resolvedSettings(plan: TrialPlan, upstream: UpstreamSettings): unknown {
  const agent = plan.agent;
  const hashed =
    agent.kind === 'model'
      ? agent.replay === undefined
        ? agent
        : { ...agent, replay: { file: agent.replay.file } }
      : agent.gateway?.kind === 'stub'
        ? { ...agent, gateway: { ...agent.gateway, file: undefined } }
        : agent.gateway?.kind === 'replay'
          ? { ...agent, gateway: { ...agent.gateway, exchanges: undefined } }
          : agent;
  const { settingFiles: _files, ...withoutFiles } = plan;
  return { plan: { ...withoutFiles, agent: hashed }, upstream };
}

/** sha256 (hex) of the canonical JSON of {@link resolvedSettings}. */
export function settingsHash(plan: TrialPlan, upstream: UpstreamSettings, hash: (text: string) => string): string {
  return hash(canonicalJson(resolvedSettings(plan, upstream)));
}
