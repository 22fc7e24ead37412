/**
 * The `proxy` flags, validated strictly: one clear line and exit 1 for anything unknown, empty,
 * missing, out of range or contradictory.
 */
import { normalize } from 'node:path';
import {
  IDEMPOTENT_HINT_POLICIES,
  type ClassificationRules,
  type IdempotentHintPolicy,
} from '../domain/judging/classification.js';
import type { ScenarioConfig } from '../domain/faults/fault-plan.js';
import { faultOf, isScenarioId, parameterFlags, scenarioIds } from '../domain/faults/index.js';
import { DEFAULT_KEY_FIELDS } from '../domain/judging/key-fields.js';
import { LOG_LEVELS, type LogLevel } from '../adapters/logging/log-levels.js';
import { commaList, httpUrl, keyValue, numberIn, onOff, repeated, single, type FlagValues } from './argv.js';
import { faultParameterFlags, holdScenarios, MAX_WAIT_MS, numberFlag } from './flag-spec.js';
import { UsageError } from './errors.js';

export interface ProxyFlags {
  /** Exactly one of `upstreamCommand` (stdio), `upstreamUrl` (Streamable HTTP) and `upstreamReplay` is set. */
  upstreamCommand: string | undefined;
  upstreamUrl: URL | undefined;
  /** `--upstream-replay FILE`: serve this recording instead of a live upstream (docs/replay.md). */
  upstreamReplay: string | undefined;
  /** `--allow-redacted on`: a redacted recording may be replayed. */
  allowRedacted: boolean;
  /** `--redact FIELD,…`: values of these fields are replaced at any depth before a recording is written. */
  redact: string[];
  upstreamHeaderFlags: string[];
  upstreamHeaderEnvFlags: string[];
  upstreamArgs: string[];
  upstreamCwd: string | undefined;
  upstreamEnv: Record<string, string>;
  scenario: ScenarioConfig;
  classification: ClassificationRules;
  keyFields: string[];
  /** `--idempotent-hint`: honour (default) or ignore a write tool's `idempotentHint: true`. */
  idempotentHint: IdempotentHintPolicy;
  auditTools: boolean;
  reportFile: string | undefined;
  reportDir: string | undefined;
  /** `--report-html`: an HTML report of the report file (or folder), written at exit. */
  reportHtml: string | undefined;
  /** `--journal`: one JSON line per call event appended to this file (docs/journal.md). */
  journal: string | undefined;
  /** `--journal-payloads on`: the journal also holds the calls' arguments and results. */
  journalPayloads: boolean;
  /** `--listen host:port` as given; stdio when undefined. */
  listen: string | undefined;
  /** With `--listen`: at most this many agent sessions at once. */
  maxSessions: number;
  /** With `--listen`: a session without a request for this long ends. */
  sessionIdleTimeoutMs: number;
  /**
   * `--model-gateway HOST:PORT --base-url URL`: a model endpoint for the agent run by hand, in
   * front of its real one, so every repeat's source is decided. Undefined: no gateway.
   */
  modelGateway: { listen: string; baseUrl: string } | undefined;
  /** `--probe-results FILE`: a `probe --json` file whose broken idempotentHints the start-up list names. */
  probeResults: string | undefined;
  logLevel: LogLevel;
  seed: number | undefined;
  upstreamTimeoutMs: number;
}

/** How to start or reach a live upstream: the flags `proxy`, `trial` and `probe` share. */
export const LIVE_UPSTREAM_FLAGS: readonly string[] = [
  'upstream-command',
  'upstream-url',
  'upstream-header',
  'upstream-header-env',
  'upstream-arg',
  'upstream-args',
  'upstream-cwd',
  'upstream-env-var',
  'upstream-env',
];

/**
 * The flags of proxy (their help lines, groups and bounds are the spec's, `flag-spec.ts`); each fault's
 * parameters (`--retry-after`) come from the fault registry.
 */
export const PROXY_FLAGS: readonly string[] = [
  ...LIVE_UPSTREAM_FLAGS,
  'upstream-replay',
  'allow-redacted',
  'redact',
  'scenario',
  'scenarios',
  'mode',
  'error-rate',
  ...faultParameterFlags(),
  'fault-tool',
  'fault-on',
  'latency',
  'hold',
  'write-tools',
  'read-tools',
  'key-fields',
  'idempotent-hint',
  'audit-tools',
  'report-file',
  'report-dir',
  'report-html',
  'journal',
  'journal-payloads',
  'listen',
  'max-sessions',
  'session-idle-timeout',
  'log-level',
  'seed',
  'upstream-timeout',
  'model-gateway',
  'probe-results',
  'base-url',
];

/**
 * What `--seed` seeds: each random feature, named as the user turns it on. A seed while none of them is
 * on seeds nothing and is refused, as `--error-rate` outside chaos is. A new random feature (a later
 * `--latency`) is one more line here.
 */
const SEEDED_FEATURES: ReadonlyArray<{ flag: string; on: (flags: Omit<ProxyFlags, 'seed'>) => boolean }> = [
  { flag: '--mode chaos', on: (flags) => flags.scenario.mode === 'chaos' },
  { flag: '--latency', on: (flags) => flags.scenario.latency !== undefined },
];

/** Flags that only mean something with `--listen`. */
const LISTEN_ONLY = ['max-sessions', 'session-idle-timeout'];

/** Validates the raw flag values (see `flagValues`). */
export function parseProxyFlags(values: FlagValues): ProxyFlags {
  const get = (flag: string) => single(values, flag);
  const upstreamCommand = get('upstream-command');
  const upstreamUrl = parseUrl(get('upstream-url'));
  const upstreamReplay = get('upstream-replay');
  if (upstreamCommand === undefined && upstreamUrl === undefined && upstreamReplay === undefined) {
    throw new UsageError(
      'flag --upstream-command is required (the command that starts your MCP server), or --upstream-url for a remote one',
    );
  }
  if (upstreamCommand !== undefined && upstreamUrl !== undefined)
    throw new UsageError('give --upstream-command or --upstream-url, not both');
  if (upstreamReplay !== undefined && (upstreamCommand !== undefined || upstreamUrl !== undefined))
    throw new UsageError(
      `give --upstream-replay (a recording) or --upstream-${upstreamUrl !== undefined ? 'url' : 'command'} (a live server), not both: a replay never reaches a live server`,
    );
  if (get('allow-redacted') !== undefined && upstreamReplay === undefined)
    throw new UsageError('--allow-redacted is for --upstream-replay: give --upstream-replay <recording> too');
  const processOnly = ['upstream-arg', 'upstream-args', 'upstream-cwd', 'upstream-env-var', 'upstream-env'].find((f) =>
    Object.hasOwn(values, f),
  );
  if (upstreamUrl !== undefined && processOnly !== undefined)
    throw new UsageError(`--${processOnly} is for --upstream-command, not --upstream-url`);
  if (upstreamReplay !== undefined && processOnly !== undefined)
    throw new UsageError(`--${processOnly} is for --upstream-command, not --upstream-replay`);
  const httpOnly = ['upstream-header', 'upstream-header-env'].find((f) => Object.hasOwn(values, f));
  if (upstreamUrl === undefined && httpOnly !== undefined) throw new UsageError(`--${httpOnly} is for --upstream-url only`);
  const upstreamArgsList = get('upstream-args');
  const upstreamArgs = [
    ...(upstreamArgsList === undefined ? [] : commaList(upstreamArgsList, 'upstream-args')),
    ...repeated(values, 'upstream-arg'),
  ];
  const upstreamEnv: Record<string, string> = Object.create(null) as Record<string, string>;
  const envList = get('upstream-env');
  for (const pair of envList === undefined ? [] : commaList(envList, 'upstream-env')) {
    const [key, value] = keyValue(pair, 'upstream-env');
    upstreamEnv[key] = value;
  }
  for (const pair of repeated(values, 'upstream-env-var')) {
    const [key, value] = keyValue(pair, 'upstream-env-var');
    upstreamEnv[key] = value;
  }
  const writeTools = get('write-tools');
  const readTools = get('read-tools');
  const keyFields = get('key-fields');
  const logLevel = (get('log-level') ?? 'silent').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`flag --log-level must be one of ${LOG_LEVELS.join(', ')}`);
  if (get('report-file') !== undefined && get('report-dir') !== undefined)
    throw new UsageError('give --report-file or --report-dir, not both');
  const listen = get('listen');
  if (get('report-html') !== undefined && get('report-file') === undefined && get('report-dir') === undefined) {
    throw new UsageError('--report-html is built from the report: give --report-file (or --report-dir) too');
  }
  if (sameFileName(get('report-html'), get('report-file')))
    throw new UsageError('--report-html must name its own file: it would replace the report file it is built from');
  if (listen !== undefined && get('report-file') !== undefined) {
    throw new UsageError('with --listen each agent session gets its own report: use --report-dir instead of --report-file');
  }
  if (listen !== undefined && get('report-dir') === undefined) {
    throw new UsageError(
      "--listen needs --report-dir <folder>: each agent session's verdict is written there (one file per session)",
    );
  }
  if (get('journal-payloads') !== undefined && get('journal') === undefined)
    throw new UsageError('--journal-payloads is for --journal: give --journal <file> too');
  const journalFile = get('journal');
  if (sameFileName(journalFile, get('report-file')) || sameFileName(journalFile, get('report-html')))
    throw new UsageError('--journal must name its own file, not the report file or the HTML report');
  const listenOnly = LISTEN_ONLY.find((f) => Object.hasOwn(values, f));
  if (listen === undefined && listenOnly !== undefined) throw new UsageError(`--${listenOnly} is for --listen only`);
  const modelGateway = get('model-gateway');
  const modelBaseUrl = get('base-url');
  if (modelGateway !== undefined && modelBaseUrl === undefined)
    throw new UsageError('--model-gateway needs --base-url <the real model endpoint> to forward to');
  if (modelGateway === undefined && modelBaseUrl !== undefined)
    throw new UsageError('--base-url is for --model-gateway: give --model-gateway 127.0.0.1:PORT too');
  if (modelGateway !== undefined && listen !== undefined)
    throw new UsageError(
      '--model-gateway is for a proxy over stdio (one agent); with --listen several agents would share one model side',
    );
  const maxSessions = get('max-sessions');
  const idleTimeout = get('session-idle-timeout');
  const seed = get('seed');
  const timeout = get('upstream-timeout');
  const flags: Omit<ProxyFlags, 'seed'> = {
    upstreamCommand,
    upstreamUrl,
    upstreamReplay,
    allowRedacted: onOff(get('allow-redacted'), 'allow-redacted', false),
    redact: get('redact') === undefined ? [] : commaList(get('redact')!, 'redact'),
    upstreamHeaderFlags: repeated(values, 'upstream-header'),
    upstreamHeaderEnvFlags: repeated(values, 'upstream-header-env'),
    upstreamArgs,
    upstreamCwd: get('upstream-cwd'),
    upstreamEnv: { ...upstreamEnv },
    scenario: withTimingAndAim(parseScenario(get), get),
    classification: {
      ...(writeTools !== undefined ? { writeTools: commaList(writeTools, 'write-tools') } : {}),
      ...(readTools !== undefined ? { readTools: commaList(readTools, 'read-tools') } : {}),
    },
    keyFields: keyFields === undefined ? [...DEFAULT_KEY_FIELDS] : commaList(keyFields, 'key-fields'),
    idempotentHint: parseIdempotentHint(get('idempotent-hint')),
    auditTools: onOff(get('audit-tools'), 'audit-tools', true),
    reportFile: get('report-file'),
    reportDir: get('report-dir'),
    reportHtml: get('report-html'),
    journal: get('journal'),
    journalPayloads: onOff(get('journal-payloads'), 'journal-payloads', false),
    listen,
    probeResults: get('probe-results'),
    modelGateway: modelGateway === undefined ? undefined : { listen: modelGateway, baseUrl: modelEndpoint(modelBaseUrl!) },
    maxSessions: numberFlag(maxSessions, 'max-sessions'),
    sessionIdleTimeoutMs: Math.round(numberFlag(idleTimeout, 'session-idle-timeout') * 1000),
    logLevel,
    upstreamTimeoutMs: Math.round(numberFlag(timeout, 'upstream-timeout') * 1000),
  };
  if (seed !== undefined && !SEEDED_FEATURES.some((feature) => feature.on(flags))) {
    throw new UsageError(`--seed seeds nothing here: it is for ${SEEDED_FEATURES.map((f) => f.flag).join(' or ')}`);
  }
  return { ...flags, seed: numberFlag(seed, 'seed') };
}

function parseScenario(get: (flag: string) => string | undefined): ScenarioConfig {
  // One idea, one pair of names in every command (issue 37 §3): `--scenarios F1` is `--scenario F1`; a
  // matrix of several is trial's.
  const single = get('scenario');
  const list = get('scenarios');
  if (single !== undefined && list !== undefined) throw new UsageError('give --scenario or --scenarios, not both');
  if (list !== undefined && list.includes(','))
    throw new UsageError(
      `the proxy runs one scenario per start, got --scenarios ${list}: give one (a matrix of scenarios: trial --scenarios)`,
    );
  const scenario = single ?? list;
  const mode = (get('mode') ?? 'deterministic').toLowerCase();
  const errorRate = get('error-rate');
  // Each fault's own parameters (F2's --retry-after), refused for a scenario that does not declare them.
  const given = parameterFlags().flatMap((flag) => {
    const value = get(flag.parameter.flag);
    return value === undefined ? [] : [{ flag, value }];
  });
  const refuseParameters = (id: string | undefined) => {
    const stray = given.find(({ flag }) => id === undefined || !flag.scenarios.includes(id));
    if (stray !== undefined)
      throw new UsageError(`--${stray.flag.parameter.flag} is for --scenario ${stray.flag.scenarios.join(' or ')} only`);
  };
  if (mode !== 'deterministic' && mode !== 'chaos')
    throw new UsageError(`flag --mode must be deterministic or chaos, got "${mode}"`);
  if (mode === 'chaos') {
    if (scenario !== undefined) throw new UsageError('--scenario cannot be combined with --mode chaos');
    refuseParameters(undefined);
    if (errorRate === undefined) throw new UsageError('--mode chaos needs --error-rate (a probability from 0 to 1)');
    return { mode: 'chaos', errorRate: numberFlag(errorRate, 'error-rate') };
  }
  if (errorRate !== undefined) throw new UsageError('--error-rate is for --mode chaos only');
  if (scenario === undefined) {
    refuseParameters(undefined);
    return { mode: 'none' };
  }
  const id = scenario.toUpperCase();
  if (!isScenarioId(id)) throw new UsageError(`flag --scenario must be one of ${scenarioIds().join(', ')}, got "${scenario}"`);
  refuseParameters(id);
  if (given.length === 0) return { mode: 'scenario', id };
  const parameters = Object.fromEntries(
    given.map(({ flag: { parameter }, value }) => [
      parameter.name,
      numberIn(value, parameter.flag, parameter.min, parameter.max, parameter.integer),
    ]),
  );
  return { mode: 'scenario', id, parameters };
}

/** `--fault-tool`, `--fault-on`, `--latency`, `--hold`: all opt-in, absent when not given. */
function withTimingAndAim(scenario: ScenarioConfig, get: (flag: string) => string | undefined): ScenarioConfig {
  const faultTool = get('fault-tool');
  const faultOn = get('fault-on');
  const latency = get('latency');
  const hold = get('hold');
  if (faultTool !== undefined && scenario.mode === 'none')
    throw new UsageError('--fault-tool aims a fault: give --scenario or --mode chaos too');
  if (faultOn !== undefined && scenario.mode !== 'scenario') {
    throw new UsageError(
      `--fault-on is for a deterministic --scenario (${scenario.mode === 'chaos' ? 'chaos picks calls by chance' : 'no scenario given'})`,
    );
  }
  if (hold !== undefined && !(scenario.mode === 'scenario' && faultOf(scenario.id).holdsReplacement === true)) {
    throw new UsageError(`--hold is for --scenario ${holdScenarios()} only (it holds the timeout answer of the ghost write)`);
  }
  const on = numberFlag(faultOn, 'fault-on');
  const tools = faultTool === undefined ? null : commaList(faultTool, 'fault-tool');
  return {
    ...scenario,
    ...(faultTool !== undefined || faultOn !== undefined ? { aim: { tools, on } } : {}),
    ...(latency !== undefined ? { latency: parseLatency(latency) } : {}),
    ...(hold !== undefined ? { holdMs: numberFlag(hold, 'hold') } : {}),
  };
}

/** `MS[:JITTER_MS]`: whole milliseconds, the jitter no larger than the latency (a delay is never negative). */
function parseLatency(value: string): { ms: number; jitterMs: number } {
  const [msText = '', jitterText, ...rest] = value.split(':');
  if (rest.length > 0) throw new UsageError(`flag --latency must be MS or MS:JITTER_MS, got "${value}"`);
  const ms = numberIn(msText, 'latency', 0, MAX_WAIT_MS, true);
  const jitterMs = jitterText === undefined ? 0 : numberIn(jitterText, 'latency (jitter)', 0, MAX_WAIT_MS, true);
  if (jitterMs > ms)
    throw new UsageError(`flag --latency: the jitter (${jitterMs} ms) must not exceed the latency (${ms} ms), got "${value}"`);
  return { ms, jitterMs };
}

/** `--base-url` of the model gateway: an http(s) URL with no key in it (the agent sends its own key through). */
function modelEndpoint(value: string): string {
  if (URL.canParse(value) && (new URL(value).username !== '' || new URL(value).password !== ''))
    throw new UsageError('flag --base-url must not contain credentials: your agent sends its own key through the gateway');
  return httpUrl(value, 'base-url', 'base-url').href;
}

function parseUrl(value: string | undefined): URL | undefined {
  return value === undefined ? undefined : httpUrl(value, 'upstream-url', 'upstream-header-env');
}

function parseIdempotentHint(value: string | undefined): IdempotentHintPolicy {
  if (value === undefined) return 'honour';
  const policy = IDEMPOTENT_HINT_POLICIES.find((p) => p === value.toLowerCase());
  if (policy === undefined) throw new UsageError(`flag --idempotent-hint must be honour or ignore, got "${value}"`);
  return policy;
}

/** Two flag values that name the same file as written (`r.json`, `./r.json`); links are caught when written. */
function sameFileName(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && normalize(a) === normalize(b);
}
