/**
 * One spec per flag (issue 37 §3): what goes after it in the help (`<file>`, `<ms>`; `[on|off]` for a
 * switch), the help group it is listed under, the commands that refuse it and why, and for a number its
 * bounds and its default. cac's options
 * (`withValue`), the help's groups and order (`help.ts`) and the parsers' numbers (`numberFlag`) all read
 * it, in every command that takes the flag; where one command differs (`benchmark --runs`), `commands`
 * says how. The help line itself stays with the command that shows it (a flag's line says what it does
 * there). test/cli/flag-spec.test.ts compares every command's options, the help's defaults and the trial
 * config file's bounds with this table, so a new flag gets its entry here.
 */
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from '../adapters/http-agent/session-limits.js';
import { numberIn } from './argv.js';

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

export interface FlagSpec {
  /**
   * The placeholder after the flag (`file` → `--json <file>`). `on|off`: a switch, in one style for every
   * command: bare is on (`--otel`), or `on`/`off` after it (`--audit-tools off`, `--otel=off`).
   */
  value: string;
  group: HelpGroup;
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
  /** Where a command takes the flag differently: its group or its number, by command name. */
  commands?: Readonly<Record<string, { group?: HelpGroup; number?: NumberSpec }>>;
}

/** The longest wait a flag can ask for (`--hold`, `--latency`, `--gap`): one hour, in ms. */
export const MAX_WAIT_MS = 3_600_000;

/**
 * Every flag, by name, in help order (within a group, the flags come in this order in every command).
 */
export const FLAG_SPECS = {
  // The agent: who it is, what it is asked, how it reaches the harness.
  'agent-command': { value: 'cmd', group: 'agent' },
  'agent-arg': { value: 'arg', group: 'agent' },
  'agent-env-var': { value: 'key=value', group: 'agent' },
  'agent-transport': { value: 'stdio|http', group: 'agent' },
  'agent-timeout': { value: 's', group: 'agent', number: { min: 0.1, max: 86_400, default: 300 } },
  'system-prompt': { value: 'text', group: 'agent' },
  task: { value: 'text', group: 'agent' },
  'follow-up': { value: 'text', group: 'agent' },
  'task-file': { value: 'file', group: 'agent' },
  'max-steps': { value: 'n', group: 'agent', number: { min: 1, max: 1000, integer: true, default: 10 } },
  honesty: { value: 'on|off', group: 'agent' },
  'honesty-question': { value: 'text', group: 'agent' },
  listen: {
    value: 'host:port',
    group: 'agent',
    refused: { trial: 'use --agent-transport http: each run gets its own listener on 127.0.0.1' },
  },
  'max-sessions': {
    value: 'n',
    group: 'agent',
    number: { min: 1, max: 10_000, integer: true, default: DEFAULT_MAX_SESSIONS },
    refused: { trial: 'a trial does not use --listen; each run has its own listener' },
  },
  'session-idle-timeout': {
    value: 's',
    group: 'agent',
    number: { min: 0.001, max: 86_400, default: DEFAULT_SESSION_IDLE_TIMEOUT_MS / 1000 },
    refused: { trial: 'a trial does not use --listen; each run has its own listener' },
  },
  'audit-tools': {
    value: 'on|off',
    group: 'agent',
    refused: { trial: 'the audit tools are always off in a trial (they would tell the agent what really happened)' },
  },
  // The model behind the agent.
  model: { value: 'name', group: 'model' },
  'base-url': { value: 'url', group: 'model' },
  'api-key-env': { value: 'env-var', group: 'model' },
  temperature: { value: 'number', group: 'model', number: { min: 0, max: 2 } },
  'model-seed': { value: 'n', group: 'model', number: { min: 0, max: 4_294_967_295, integer: true } },
  'is-error': { value: 'visible|hidden', group: 'model' },
  'model-retries': { value: 'n', group: 'model', number: { min: 0, max: 10, integer: true, default: 3 } },
  'model-timeout': { value: 's', group: 'model', number: { min: 0.1, max: 3600, default: 300 } },
  'stub-model': { value: 'file', group: 'model' },
  'model-replay': { value: 'file', group: 'model' },
  'model-fault': { value: 'fault', group: 'model' },
  'model-fault-on': { value: 'when', group: 'model' },
  'model-gateway': {
    value: 'host:port',
    group: 'model',
    refused: { trial: 'each agent program gets its own model gateway: --model NAME --base-url URL, or --stub-model FILE' },
  },
  // What the harness does to the agent's calls.
  scenario: { value: 'id', group: 'faults' },
  scenarios: { value: 'list', group: 'faults' },
  mode: { value: 'deterministic|chaos', group: 'faults' },
  'error-rate': { value: '0-1', group: 'faults', number: { min: 0, max: 1 } },
  // Each fault's parameters (F2's --retry-after): their bounds and defaults are the fault's, in its registry.
  'retry-after': { value: 's', group: 'faults' },
  'land-after': { value: 'ms', group: 'faults' },
  'fault-tool': { value: 'globs', group: 'faults' },
  'fault-on': { value: 'n', group: 'faults', number: { min: 1, max: 1_000_000, integer: true, default: 1 } },
  latency: { value: 'ms[:jitter]', group: 'faults' },
  hold: { value: 'ms', group: 'faults', number: { min: 1, max: MAX_WAIT_MS, integer: true } },
  seed: { value: 'n', group: 'faults', number: { min: 0, max: 4_294_967_295, integer: true } },
  // The real MCP server (or its recording).
  'upstream-command': { value: 'cmd', group: 'upstream' },
  'upstream-url': { value: 'url', group: 'upstream' },
  'upstream-header': { value: 'header', group: 'upstream' },
  'upstream-header-env': { value: 'name=env', group: 'upstream' },
  'upstream-arg': { value: 'arg', group: 'upstream' },
  'upstream-args': { value: 'args', group: 'upstream' },
  'upstream-cwd': { value: 'dir', group: 'upstream' },
  'upstream-env-var': { value: 'key=value', group: 'upstream' },
  'upstream-env': { value: 'key=value,…', group: 'upstream' },
  'upstream-replay': { value: 'file', group: 'upstream' },
  'upstream-timeout': { value: 's', group: 'upstream', number: { min: 0.001, max: 3600, default: 60 } },
  'allow-redacted': { value: 'on|off', group: 'upstream', commands: { replay: { group: 'runs' } } },
  'reset-command': { value: 'cmd', group: 'upstream' },
  'live-upstream': { value: 'on|off', group: 'upstream', wordAfterIsArgument: true },
  'allow-command': { value: 'program', group: 'runs' },
  // Which calls are writes and what makes two of them one operation.
  'write-tools': { value: 'globs', group: 'tools' },
  'read-tools': { value: 'globs', group: 'tools' },
  'key-fields': { value: 'fields', group: 'tools' },
  'idempotent-hint': { value: 'honour|ignore', group: 'tools' },
  'probe-results': { value: 'file', group: 'tools', refused: { trial: "the start-up list is the proxy's: give it to proxy" } },
  // probe's own.
  tools: { value: 'globs', group: 'probes' },
  example: { value: 'tool=json', group: 'probes' },
  'example-file': { value: 'file', group: 'probes' },
  'count-with': { value: 'tool[=json]', group: 'probes' },
  gap: { value: 'ms', group: 'probes', number: { min: 0, max: MAX_WAIT_MS, integer: true, default: 0 } },
  // check's: what fails the check.
  'fail-on': { value: 'list', group: 'gates' },
  'min-score': { value: 'n', group: 'gates', number: { min: 0, max: 100 } },
  'min-pass-rate': { value: 'r', group: 'gates' },
  'max-duplicate-rate': { value: 'r', group: 'gates' },
  'max-false-success-rate': { value: 'r', group: 'gates' },
  'max-lost-transaction-rate': { value: 'r', group: 'gates' },
  bound: { value: 'lower|upper', group: 'gates' },
  // the effects view.
  'effects-tool': { value: 'tool[=json]', group: 'effects' },
  'effects-command': { value: 'cmd', group: 'effects' },
  'effects-arg': { value: 'arg', group: 'effects' },
  'effects-path': { value: 'a.b', group: 'effects' },
  'effect-key': { value: 'fields', group: 'effects' },
  'expect-effect': { value: 'field=value', group: 'effects' },
  // How many runs, and how they are split.
  config: { value: 'file', group: 'runs' },
  runs: {
    value: 'n',
    group: 'runs',
    number: { min: 1, max: 100_000, integer: true, default: 5 },
    commands: { benchmark: { number: { min: 1, max: 1000, integer: true, default: 1 } } },
  },
  concurrency: { value: 'n', group: 'runs', number: { min: 1, max: 64, integer: true, default: 1 } },
  shard: { value: 'i/n', group: 'runs' },
  patch: { value: 'auto|ids', group: 'runs' },
  'patch-file': { value: 'file', group: 'runs' },
  jitter: { value: 'ms', group: 'runs', number: { min: 0, max: 60_000, integer: true, default: 0 } },
  // What is written, and where.
  out: { value: 'dir', group: 'output' },
  'report-file': { value: 'file', group: 'output', refused: { trial: 'each run writes runs/<run>/report.json under --out' } },
  'report-dir': { value: 'dir', group: 'output', refused: { trial: 'each run writes runs/<run>/report.json under --out' } },
  'report-html': {
    value: 'file',
    group: 'output',
    refused: { trial: 'check <trial folder> --html FILE builds the HTML of every run' },
  },
  journal: {
    value: 'file',
    group: 'output',
    refused: { trial: "each run's calls are in its run.json (transcript) and report.json" },
  },
  'journal-payloads': {
    value: 'on|off',
    group: 'output',
    refused: { trial: "each run's calls are in its run.json (transcript) and report.json" },
  },
  otel: { value: 'on|off', group: 'output', wordAfterIsArgument: true },
  'otel-endpoint': { value: 'url', group: 'output' },
  'otel-payloads': { value: 'on|off', group: 'output' },
  redact: { value: 'fields', group: 'output' },
  json: { value: 'file', group: 'output' },
  markdown: { value: 'file', group: 'output' },
  html: { value: 'file', group: 'output' },
  junit: { value: 'file', group: 'output' },
  'log-level': { value: 'level', group: 'output' },
  force: { value: 'on|off', group: 'output', wordAfterIsArgument: true },
} as const satisfies Readonly<Record<string, FlagSpec>>;

export type FlagName = keyof typeof FLAG_SPECS;

const SPECS: Readonly<Record<string, FlagSpec>> = FLAG_SPECS;

/** The spec of a flag; undefined for a name that is none (a typo, `--__proto__`). */
export function flagSpec(flag: string): FlagSpec | undefined {
  return Object.hasOwn(SPECS, flag) ? SPECS[flag] : undefined;
}

/**
 * A flag as cac declares it: `--report-file <file>`; a switch `--otel [on|off]` (its value may be left out).
 * A name without a spec shows `<value>`, which test/cli/flag-spec.test.ts refuses: a new flag gets its
 * entry in {@link FLAG_SPECS}.
 */
export function withValue(flag: string): string {
  const spec = flagSpec(flag);
  if (spec === undefined) return `--${flag} <value>`;
  return isSwitch(spec) ? `--${flag} [${spec.value}]` : `--${flag} <${spec.value}>`;
}

/** Whether a flag is a switch: bare is on, or on/off after it. */
export function isSwitch(spec: FlagSpec): boolean {
  return spec.value === 'on|off';
}

/** The group of a command's flag; undefined: a flag of no spec (the last section, "Options"). */
export function groupOf(command: string, flag: string): HelpGroup | undefined {
  const spec = flagSpec(flag);
  return spec?.commands?.[command]?.group ?? spec?.group;
}

/** Where a flag comes in its group's list: its place in {@link FLAG_SPECS}. */
export function flagRank(flag: string): number {
  const rank = FLAG_ORDER.indexOf(flag);
  return rank === -1 ? FLAG_ORDER.length : rank;
}
const FLAG_ORDER: readonly string[] = Object.keys(FLAG_SPECS);

/** The flags `command` refuses, each with its reason, in spec order. */
export function refusedBy(command: string): ReadonlyMap<string, string> {
  return new Map(
    Object.entries(SPECS).flatMap(([flag, spec]) =>
      spec.refused?.[command] !== undefined ? [[flag, spec.refused[command]]] : [],
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
