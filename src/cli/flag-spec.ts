/**
 * One spec per flag (issue 37 §3), read here for every command: cac's options and the help
 * (`declareFlags`, `help.ts`), the parsers' numbers (`numberFlag`), the refusals and older names, and the
 * trial config file's keys (`trial-config-keys.ts`) all come from the table (`flag-table.ts`, in the shape
 * of `flag-types.ts`); where one command differs (`benchmark --runs`, `replay --upstream-command`), its
 * `commands` entry says how. A fault's own parameters (`--retry-after`) have their spec in the fault
 * registry (`faultParameterSpec`), so a fault stays one file. test/cli/flag-spec.test.ts compares every
 * command's options and help, the parsers' bounds and the config file's keys and bounds with it.
 */
import { parameterFlags } from '../domain/faults/index.js';
import { numberIn } from './argv.js';
import { FLAG_SPECS } from './flag-table.js';
import type { FlagSpec, HelpGroup, NumberSpec } from './flag-types.js';

export { FLAG_SPECS, holdScenarios } from './flag-table.js';
export { HELP_GROUPS, MAX_WAIT_MS } from './flag-types.js';
export type { CommandFlagSpec, ConfigSpec, FlagSpec, HelpGroup, NumberSpec } from './flag-types.js';

export type FlagName = keyof typeof FLAG_SPECS;

const SPECS: Readonly<Record<string, FlagSpec>> = FLAG_SPECS;

/**
 * A fault's own parameter as a flag (`--retry-after <s>` of F2): its spec is the fault's, so a fault
 * registered in one file brings its flag, its help and its bounds with it (docs/adding-a-fault.md).
 */
function faultParameterSpec(flag: string): FlagSpec | undefined {
  const found = parameterFlags().find(({ parameter }) => parameter.flag === flag);
  if (found === undefined) return undefined;
  const { parameter, scenarios } = found;
  return {
    value: parameter.unit,
    group: 'faults',
    help: `${scenarios.join(' or ')} only: ${parameter.description} (default ${parameter.default}, max ${parameter.max})`,
    config: { key: `faults.${parameter.flag.replaceAll('-', '_')}` },
  };
}

/** The spec of a flag; undefined for a name that is none (a typo, `--__proto__`). */
export function flagSpec(flag: string): FlagSpec | undefined {
  return Object.hasOwn(SPECS, flag) ? SPECS[flag] : faultParameterSpec(flag);
}

/** The spec of a flag the caller names as one (a command's list): a name without a spec is a bug, said so. */
function specOf(flag: string): FlagSpec {
  const spec = flagSpec(flag);
  if (spec === undefined) throw new Error(`--${flag} has no entry in FLAG_SPECS`);
  return spec;
}

/** The flags of every fault's parameters (`retry-after`, `land-after`), in the registry's order. */
export function faultParameterFlags(): string[] {
  return parameterFlags().map(({ parameter }) => parameter.flag);
}

/**
 * A flag as cac declares it: `--report-file <file>`; a switch `--otel [on|off]` (its value may be left out).
 */
export function withValue(flag: string): string {
  const spec = specOf(flag);
  return isSwitch(spec) ? `--${flag} [${spec.value}]` : `--${flag} <${spec.value}>`;
}

/** Whether a flag is a switch: bare is on, or on/off after it. */
export function isSwitch(spec: FlagSpec): boolean {
  return spec.value === 'on|off';
}

/**
 * A flag's help line in `command`: the command's own where it has one, else the flag's. A flag the command
 * refuses says why ("Not used by trial: …"), an older name says which flag it stands for; neither is shown
 * in `--help`, but cac keeps a description for every option.
 */
export function helpOf(command: string, flag: string): string {
  const spec = specOf(flag);
  const refused = spec.refused?.[command];
  if (refused !== undefined) return `Not used by ${command}: ${refused}`;
  const newer = spec.olderNameOf?.[command];
  if (newer !== undefined) return `The older name of --${newer}`;
  return spec.commands?.[command]?.help ?? spec.help;
}

/** The group of a command's flag; undefined: a flag of no spec (the last section, "Options"). */
export function groupOf(command: string, flag: string): HelpGroup | undefined {
  const spec = flagSpec(flag);
  return spec?.commands?.[command]?.group ?? spec?.group;
}

/** Where a flag comes in its group's list: its place in {@link FLAG_SPECS}, a fault's parameters after `--error-rate`. */
export function flagRank(flag: string): number {
  const order = flagOrder();
  const rank = order.indexOf(flag);
  return rank === -1 ? order.length : rank;
}
function flagOrder(): string[] {
  const names = Object.keys(FLAG_SPECS);
  const at = names.indexOf('error-rate') + 1;
  return [...names.slice(0, at), ...faultParameterFlags(), ...names.slice(at)];
}

/** The flags `command` refuses, each with its reason, in spec order. */
export function refusedBy(command: string): ReadonlyMap<string, string> {
  return new Map(
    Object.entries(SPECS).flatMap(([flag, spec]) =>
      spec.refused?.[command] !== undefined ? [[flag, spec.refused[command]]] : [],
    ),
  );
}

/** The older names `command` accepts, each with the flag it stands for (`probe`: hold → gap). */
export function olderNamesIn(command: string): ReadonlyMap<string, string> {
  return new Map(
    Object.entries(SPECS).flatMap(([flag, spec]) =>
      spec.olderNameOf?.[command] !== undefined ? [[flag, spec.olderNameOf[command]]] : [],
    ),
  );
}

/** The number spec of a command's flag (the command's own where it differs). */
export function numberSpecOf(flag: NumberFlag, command?: string): NumberSpec {
  const spec = SPECS[flag]!;
  return (command === undefined ? undefined : spec.commands?.[command]?.number) ?? spec.number!;
}

type Specs = typeof FLAG_SPECS;
/** The flags that take a number. */
export type NumberFlag = { [K in FlagName]: Specs[K] extends { number: NumberSpec } ? K : never }[FlagName];
/** The number flags with a default: read, they always give a number. */
type DefaultedFlag = { [K in NumberFlag]: Specs[K] extends { number: { default: number } } ? K : never }[NumberFlag];

/**
 * A number flag's value as typed, checked against its spec ("flag --runs must be an integer from 1 to
 * 1000"); not given: its default (undefined for a flag without one). `spelled` names the flag in the
 * refusal as the user typed it (an older name: `--seed` for `--model-seed`); `command` picks that
 * command's own spec where it differs.
 */
export function numberFlag(text: string, flag: NumberFlag, options?: NumberFlagOptions): number;
export function numberFlag<F extends NumberFlag>(
  text: string | undefined,
  flag: F,
  options?: NumberFlagOptions,
): F extends DefaultedFlag ? number : number | undefined;
export function numberFlag(text: string | undefined, flag: NumberFlag, options: NumberFlagOptions = {}): number | undefined {
  const spec = numberSpecOf(flag, options.command);
  const value =
    text === undefined ? spec.default : numberIn(text, options.spelled ?? flag, spec.min, spec.max, spec.integer === true);
  return value;
}

interface NumberFlagOptions {
  command?: string;
  spelled?: string;
}
