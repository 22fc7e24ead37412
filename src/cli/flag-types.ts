/**
 * The shape of a flag's spec (the table is `flag-table.ts`, what reads it `flag-spec.ts`): its placeholder,
 * help line, help group, refusals, older names, number bounds and config key.
 */
import type { ConfigCodecName } from '../adapters/schemas/trial-config.schema.js';

/** What a flag is for: the groups of a command's help, in the order they are printed. */
export const HELP_GROUPS = [
  ['agent', 'Agent'],
  ['model', 'Model'],
  ['faults', 'Faults'],
  ['upstream', 'Upstream'],
  ['tools', 'Write tools and keys'],
  ['effects', 'Effects (what the backend holds)'],
  ['probes', 'Probes'],
  ['gates', 'Gates'],
  ['runs', 'Runs'],
  ['output', 'Output'],
] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number][0];

/** A number flag's range (inclusive), whether it is an integer, and its value when not given. */
export interface NumberSpec {
  min: number;
  max: number;
  integer?: boolean;
  default?: number;
}

/** How one command takes a flag differently from the others. */
export interface CommandFlagSpec {
  group?: HelpGroup;
  number?: NumberSpec;
  /** Its help line in that command (`replay --upstream-command` is the live upstream of a replay). */
  help?: string;
}

export interface FlagSpec {
  /**
   * The placeholder after the flag (`file` → `--json <file>`). `on|off`: a switch, in one style for every
   * command: bare is on (`--otel`), or `on`/`off` after it (`--audit-tools off`, `--otel=off`).
   */
  value: string;
  group: HelpGroup;
  /** The help line, in every command that shows the flag (unless `commands` gives that command its own). */
  help: string;
  number?: NumberSpec;
  /**
   * A switch whose word after it, other than on/off, is an argument of the command (`replay --live-upstream
   * runs/a`, `init --force x.yaml`): those switches were bare before they took on/off. Without it the word
   * after a switch is its value, so `--honesty maybe` is refused as no on/off.
   */
  wordAfterIsArgument?: true;
  /**
   * The commands that declare the flag (they take the other flags of its family) only to refuse it, each
   * with why and what to give instead: "flag --journal is not used by trial: each run's calls are in …".
   * Such a flag stays out of that command's `--help`.
   */
  refused?: Readonly<Record<string, string>>;
  /**
   * The commands where the flag is the older name of another, accepted for a release and left out of the
   * help (`probe --hold` for `--gap`: `--hold` is F1's held answer in proxy and trial).
   */
  olderNameOf?: Readonly<Record<string, string>>;
  /** Where a command takes the flag differently: its group, its number or its help line, by command name. */
  commands?: Readonly<Record<string, CommandFlagSpec>>;
  /**
   * Its key in trial's config file (docs/config.md), or its keys where the file gives the same thing two
   * ways (`task_file`, and `tasks` written inline). The file's value is read as the flag's spec says (a
   * text; a number within its bounds; on/off for a switch; one of the words of `a|b`) unless `codec`
   * names another kind (`repeated`: a list, one flag value per item; `env`: a map `NAME: value`, …).
   */
  config?: ConfigSpec | readonly ConfigSpec[];
  /** Another spelling of that flag, with no key of its own in the config file (`--upstream-args`). */
  sameKeyAs?: string;
}

/** A key of trial's config file. */
export interface ConfigSpec {
  /** Its dotted path: `upstream.command`. */
  key: string;
  /** How its value is read, where the flag's spec does not say it (`CONFIG_CODECS`). */
  codec?: ConfigCodecName;
  /** Its own description, where it gives the flag's value another way (`tasks`); else the flag's help line. */
  help?: string;
}

/** The longest wait a flag can ask for (`--hold`, `--latency`, `--gap`): one hour, in ms. */
export const MAX_WAIT_MS = 3_600_000;
