/**
 * The `trial` flags: its own (agent, conversation, runs) plus the upstream, scenario and classification
 * flags of `proxy`, parsed by `parseProxyFlags` itself so both commands accept exactly the same values.
 * One clear line (UsageError) for anything wrong, before any run. Which flags there are and their help:
 * `trial-flag-help.ts`; the files the flags name: `trial-input-files.ts`.
 */
import { resolve } from 'node:path';
import { errorMessage } from '../domain/error-message.js';
import type { ScenarioConfig } from '../domain/faults/fault-plan.js';
import { parameterFlags } from '../domain/faults/index.js';
import {
  DEFAULT_HONESTY_QUESTION,
  type ForwardGateway,
  type IsErrorMode,
  type TrialAgent,
  type TrialPlan,
} from '../app/trial/trial-plan.js';
import { commaList, httpUrl, keyValue, onOff, repeated, single, type FlagValues } from './argv.js';
import { numberFlag } from './flag-spec.js';
import { UsageError } from './errors.js';
import { parseModelFaultKind, parseModelFaultOn, type ModelFault } from '../domain/faults/model-fault.js';
import { STUB_MODEL_NAME } from '../ports/shapes/stub-script.js';
import { parseEffectsFlags } from './effects-flags.js';
import { parseOtelFlags, type OtelSettings } from './otel-flags.js';
import { parseProxyFlags, PROXY_FLAGS, type ProxyFlags } from './proxy-flags.js';
import { TRIAL_FLAGS, TRIAL_REFUSED_FLAGS } from './trial-flag-help.js';
import {
  inputSettingFiles,
  readModelReplay,
  readPatch,
  readStubGateway,
  readSystemPrompt,
  readTasks,
} from './trial-input-files.js';

/** What the file gives that no flag value can carry: the tasks' list, the stub model's script. */
export interface TrialInline {
  tasks?: unknown;
  stubScript?: unknown;
}

/** The built-in loop's model name in the run files when `--model-replay` answers it. */
export const REPLAYED_MODEL = '(replayed)';

/** The built-in loop's own flags: forward mode passes every request as the program sent it, and retries nothing. */
const LOOP_ONLY = ['max-steps', 'temperature', 'is-error', 'model-retries', 'model-timeout'];
/** With --agent-command: forward mode (--model NAME --base-url URL [--api-key-env VAR]). */
const FORWARD_FLAGS = ['base-url', 'api-key-env'];
const AGENT_ONLY = ['agent-arg', 'agent-env-var', 'agent-transport', 'agent-timeout', 'stub-model'];
/** The honesty question needs the model's side: the built-in loop, or an agent program behind the model gateway. */
const HONESTY_FLAGS = ['honesty', 'honesty-question'];

export interface TrialFlags {
  plan: TrialPlan;
  proxy: ProxyFlags;
  apiKey: string | undefined;
  modelTimeoutMs: number;
  out: string;
  /** `--otel` (docs/traces.md); null without it. */
  otel: OtelSettings | null;
}

function has(values: FlagValues, flag: string): boolean {
  return Object.hasOwn(values, flag);
}

/**
 * Validates every flag; reads the system prompt and task files. `inline`: the tasks or the stub script a
 * config file holds itself, read in the place of the file `--task-file` / `--stub-model` would name.
 */
export async function parseTrialFlags(
  values: FlagValues,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  now: Date,
  inline: TrialInline = {},
): Promise<TrialFlags> {
  // A flag trial does not declare is refused before (readArgv and cac); the proxy's flags it declares
  // but does not use are refused here, with the reason.
  for (const flag of Object.keys(values)) {
    const why = TRIAL_REFUSED_FLAGS.get(flag);
    if (why !== undefined) throw new UsageError(`flag --${flag} is not used by trial: ${why}`);
  }
  const get = (flag: string) => single(values, flag);
  const model = get('model');
  const agentCommand = get('agent-command');
  const modelReplay = get('model-replay');
  if (modelReplay !== undefined) {
    for (const flag of ['model', 'base-url', 'stub-model', 'api-key-env'])
      if (has(values, flag))
        throw new UsageError(`give --model-replay (the model answered from a recording) or --${flag}, not both`);
    // A program's gateway cuts the model's own answer, which a recording does not hold (only that it was cut).
    if (agentCommand !== undefined && get('model-fault')?.trim() === 'cut')
      throw new UsageError(
        "--model-fault cut cannot be replayed through an agent program's gateway: it cuts the model's own answer, which the recording does not hold (500, 429 and timeout can be replayed)",
      );
  }
  if (model === undefined && agentCommand === undefined && modelReplay === undefined)
    throw new UsageError('give --model NAME (the built-in agent loop) or --agent-command CMD (your own agent program)');
  // A control character (a line feed) would cut or forge the one-line error that quotes the model id.
  if (model !== undefined && (model.trim() === '' || /[\u0000-\u001f\u007f-\u009f]/.test(model)))
    throw new UsageError(`flag --model takes a model name without control characters, got ${JSON.stringify(model)}`);
  /** The built-in loop: --model alone. With --agent-command, --model is forward mode: the model the gateway serves. */
  const builtIn = agentCommand === undefined;
  const stubFile = get('stub-model');
  if (!builtIn) {
    if (stubFile !== undefined && has(values, 'base-url'))
      throw new UsageError(
        'give --stub-model (the harness plays the model) or --base-url (the gateway forwards to a real endpoint), not both',
      );
    if (stubFile !== undefined && model !== undefined)
      throw new UsageError(
        'give --stub-model (the harness plays the model, cuonztech-stub) or --model with --base-url (forward mode), not both',
      );
    if (model === undefined)
      for (const flag of FORWARD_FLAGS)
        if (has(values, flag))
          throw new UsageError(`flag --${flag} with --agent-command is forward mode: it needs --model NAME (the model served)`);
    if (model !== undefined && !has(values, 'base-url'))
      throw new UsageError('--model with --agent-command (forward mode) needs --base-url URL, the real endpoint to forward to');
  }
  for (const flag of builtIn ? AGENT_ONLY : LOOP_ONLY) {
    if (has(values, flag))
      throw new UsageError(
        `flag --${flag} is for ${builtIn ? '--agent-command' : 'the built-in agent loop (--model without --agent-command)'} only`,
      );
  }
  if (model === undefined && stubFile === undefined && modelReplay === undefined) {
    for (const flag of HONESTY_FLAGS)
      if (has(values, flag))
        throw new UsageError(`flag --${flag} needs the model's side: --model, or --agent-command with --stub-model`);
  }
  if (model === undefined && stubFile === undefined && modelReplay === undefined && has(values, 'model-fault'))
    throw new UsageError(
      "flag --model-fault needs the model's side: --model, or --agent-command with --stub-model, --model or --model-replay",
    );
  if (has(values, 'model-fault-on') && !has(values, 'model-fault'))
    throw new UsageError('flag --model-fault-on says which request --model-fault hits: give --model-fault KIND too');
  const modelFault = readModelFault(get('model-fault'), get('model-fault-on'));
  if (has(values, 'scenario') && has(values, 'scenarios')) throw new UsageError('give --scenario or --scenarios, not both');
  // The trial's own flags of the same name (--base-url: the model's endpoint) are not the proxy's.
  const proxyValues = Object.fromEntries(
    Object.entries(values).filter(([f]) => PROXY_FLAGS.includes(f) && !TRIAL_FLAGS.includes(f) && f !== 'seed'),
  );
  // With --scenarios, a fault's parameter (--retry-after) belongs to the scenarios that declare it: it is
  // checked per scenario below.
  const matrix = has(values, 'scenarios');
  const parameterFlagNames = new Set(parameterFlags().map((f) => f.parameter.flag));
  const baseValues = matrix
    ? Object.fromEntries(Object.entries(proxyValues).filter(([f]) => !parameterFlagNames.has(f)))
    : proxyValues;
  const proxy = parseProxyFlags(baseValues);
  // Before anything starts: a recording that cannot answer the model is one line, exit 1.
  const replay = modelReplay === undefined ? undefined : await readModelReplay(modelReplay, cwd, proxy.allowRedacted, modelFault);
  const scenarios = matrix ? scenarioMatrix(single(values, 'scenarios')!, baseValues, proxyValues) : [proxy.scenario];
  // --seed is --model-seed's older name (issue 37 §3), accepted for a release; both: one line.
  if (has(values, 'seed') && has(values, 'model-seed'))
    throw new UsageError('give --model-seed or its older name --seed, not both');
  const seedFlag = has(values, 'seed') ? 'seed' : 'model-seed';
  const seedText = get(seedFlag);
  const seed = numberFlag(seedText, 'model-seed', { spelled: seedFlag });
  const prompt = await readSystemPrompt(get('system-prompt'), cwd);
  const systemPrompt = prompt?.text;
  const maxSteps = numberFlag(get('max-steps'), 'max-steps');
  const tasks = await readTasks(values, get, systemPrompt, maxSteps, cwd, builtIn, inline.tasks);
  const runs = numberFlag(get('runs'), 'runs');
  const concurrency = numberFlag(get('concurrency'), 'concurrency');
  const resetCommand = get('reset-command');
  // the effects view, snapshotted per run ({run}/{run_dir} filled in for each run).
  const effects = parseEffectsFlags(values, 'expand');
  if (effects !== null && proxy.upstreamReplay !== undefined)
    throw new UsageError('an effects view reads a live backend: a recording (--upstream-replay) has none to read');
  if (effects !== null && concurrency > 1 && proxy.upstreamUrl !== undefined)
    throw new UsageError(
      'an effects view with --upstream-url and --concurrency > 1 would mix the runs in one backend: use --concurrency 1 (or an --upstream-command, one backend per run)',
    );
  if (resetCommand !== undefined && concurrency > 1)
    throw new UsageError('--reset-command resets one shared upstream, so it needs --concurrency 1');
  let agent: TrialAgent;
  let apiKey: string | undefined;
  if (model !== undefined) {
    const keyVar = get('api-key-env');
    if (keyVar !== undefined) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyVar))
        throw new UsageError(`flag --api-key-env takes the NAME of an environment variable, got "${keyVar}"`);
      apiKey = env[keyVar]?.trim();
      if (apiKey === undefined || apiKey === '')
        throw new UsageError(`environment variable ${keyVar} (named by --api-key-env) is not set`);
      // Never quoted: the message names the variable only.
      if (!/^[\x20-\x7e]+$/.test(apiKey))
        throw new UsageError(
          `the value of ${keyVar} (named by --api-key-env) is not an API key: it has characters an HTTP header cannot carry`,
        );
    }
  }
  if ((model !== undefined || modelReplay !== undefined) && builtIn) {
    const temperature = get('temperature');
    agent = {
      kind: 'model',
      model: model ?? REPLAYED_MODEL,
      baseUrl: baseUrl(get('base-url') ?? 'http://127.0.0.1:11434/v1'),
      temperature: numberFlag(temperature, 'temperature'),
      seed,
      isError: oneOf(get('is-error') ?? 'visible', 'is-error', ['visible', 'hidden']) as IsErrorMode,
      retries: numberFlag(get('model-retries'), 'model-retries'),
      backoffMs: 500,
      maxRetryAfterMs: 120_000,
      requestTimeoutMs: Math.round(numberFlag(get('model-timeout'), 'model-timeout') * 1000),
      ...(replay !== undefined ? { replay } : {}),
    };
  } else {
    agent = {
      kind: 'command',
      command: agentCommand!,
      args: repeated(values, 'agent-arg'),
      transport: oneOf(get('agent-transport') ?? 'stdio', 'agent-transport', ['stdio', 'http']) as 'stdio' | 'http',
      timeoutMs: Math.round(numberFlag(get('agent-timeout'), 'agent-timeout') * 1000),
      seed,
      ...(stubFile !== undefined ? { gateway: await readStubGateway(stubFile, cwd, inline.stubScript) } : {}),
      ...(model !== undefined ? { gateway: forwardGateway(get('base-url')!, model, get('api-key-env')) } : {}),
      ...(replay !== undefined ? { gateway: { kind: 'replay' as const, ...replay, model: STUB_MODEL_NAME } } : {}),
      env: agentEnv(repeated(values, 'agent-env-var')),
    };
  }
  const honestyQuestion =
    model === undefined && stubFile === undefined && modelReplay === undefined
      ? undefined
      : readHonesty(get('honesty'), get('honesty-question'));
  const patch = await readPatch(get('patch'), get('patch-file'), cwd);
  const shard = parseShard(get('shard'), scenarios.length * tasks.length * runs);
  // Every shard must run the same treatment; with auto each shard would collect its own patches.
  if (shard !== undefined && patch?.kind === 'auto')
    throw new UsageError(
      '--shard needs the patches named (--patch IDS or --patch-file): with --patch auto each shard would collect its own',
    );
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-');
  return {
    plan: {
      agent,
      honestyQuestion,
      patch,
      scenarios,
      tasks,
      runs,
      concurrency,
      resetCommand,
      shard,
      ...(effects !== null ? { effects } : {}),
      keyFields: proxy.keyFields,
      idempotentHint: proxy.idempotentHint,
      classification: proxy.classification,
      callTimeoutMs: proxy.upstreamTimeoutMs,
      ...(modelFault !== undefined ? { modelFault } : {}),
      ...(proxy.upstreamReplay !== undefined ? { replayed: true as const } : {}),
      settingFiles: inputSettingFiles(tasks, prompt, get('task-file'), get('patch-file')),
    },
    proxy,
    apiKey,
    modelTimeoutMs: Math.round(numberFlag(get('model-timeout'), 'model-timeout') * 1000),
    out: resolve(cwd, get('out') ?? `.cuonztech/trials/${stamp}`),
    otel: parseOtelFlags(values, env),
  };
}

/** `--model-fault KIND [--model-fault-on WHEN]`; undefined without it. */
function readModelFault(kind: string | undefined, on: string | undefined): ModelFault | undefined {
  if (kind === undefined) return undefined;
  const fault = parseModelFaultKind(kind);
  if ('error' in fault) throw new UsageError(fault.error);
  const when = parseModelFaultOn(on ?? 'after-write');
  if ('error' in when) throw new UsageError(when.error);
  return { fault, on: when };
}

/** `--agent-command … --model NAME --base-url URL [--api-key-env VAR]`: forward mode. */
function forwardGateway(url: string, model: string, keyVariable: string | undefined): ForwardGateway {
  return { kind: 'forward', baseUrl: baseUrl(url), model, ...(keyVariable !== undefined ? { keyVariable } : {}) };
}

/** `--agent-env-var KEY=VALUE`, repeatable; a name given twice is refused (which value would count?). */
function agentEnv(pairs: readonly string[]): Record<string, string> {
  const env = Object.create(null) as Record<string, string>;
  for (const pair of pairs) {
    const [key, value] = keyValue(pair, 'agent-env-var');
    if (Object.hasOwn(env, key)) throw new UsageError(`flag --agent-env-var sets ${key} twice`);
    if (key.startsWith('CUONZTECH_'))
      throw new UsageError(`flag --agent-env-var cannot set ${key}: the harness sets the CUONZTECH_ variables of each run`);
    env[key] = value;
  }
  return { ...env };
}

/** `--honesty on|off`, `--honesty-question TEXT`: the question, or undefined when off. */
function readHonesty(mode: string | undefined, question: string | undefined): string | undefined {
  const on = onOff(mode, 'honesty', true);
  if (!on) {
    if (question !== undefined) throw new UsageError('--honesty-question is not asked with --honesty off');
    return undefined;
  }
  if (question !== undefined && question.trim() === '') throw new UsageError('flag --honesty-question must not be empty');
  return question ?? DEFAULT_HONESTY_QUESTION;
}

/** `--shard i/n`: 1 ≤ i ≤ n ≤ the trial's number of runs (an empty shard would be a job that measures nothing). */
export function parseShard(value: string | undefined, totalRuns: number): { index: number; count: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*$/.exec(value);
  if (match === null)
    throw new UsageError(`flag --shard takes i/n (e.g. 2/5: the second of five shares of the runs), got "${value}"`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || index < 1 || index > count)
    throw new UsageError(`flag --shard ${value}: i must be 1 … n, got ${index} of ${count}`);
  if (count > totalRuns)
    throw new UsageError(
      `flag --shard ${value}: the trial has ${totalRuns} run${totalRuns === 1 ? '' : 's'}, so at most ${totalRuns} shards`,
    );
  return { index, count };
}

function oneOf(value: string, flag: string, allowed: string[]): string {
  const v = value.toLowerCase();
  if (!allowed.includes(v)) throw new UsageError(`flag --${flag} must be ${allowed.join(' or ')}, got "${value}"`);
  return v;
}

function baseUrl(value: string): string {
  httpUrl(value, 'base-url', 'api-key-env');
  return value.replace(/\/+$/, '');
}

/**
 * `--scenarios F1,F3`: each parsed as `proxy --scenario` would parse it, with the fault parameters it declares
 * (F2 with --retry-after when given); a parameter none of the listed scenarios declares is refused.
 */
function scenarioMatrix(list: string, baseValues: FlagValues, proxyValues: FlagValues): ScenarioConfig[] {
  const seen = new Set<string>();
  const given = parameterFlags().filter((flag) => proxyValues[flag.parameter.flag] !== undefined);
  const scenarios = commaList(list, 'scenarios').map((item) => {
    const id = item.toUpperCase();
    if (seen.has(id)) throw new UsageError(`flag --scenarios names ${id} twice`);
    seen.add(id);
    try {
      return parseProxyFlags({
        ...baseValues,
        scenario: [id],
        ...Object.fromEntries(
          given
            .filter((flag) => flag.scenarios.includes(id))
            .map((flag) => [flag.parameter.flag, proxyValues[flag.parameter.flag]!]),
        ),
      }).scenario;
    } catch (error) {
      throw new UsageError(errorMessage(error).replace('flag --scenario ', 'flag --scenarios '));
    }
  });
  const stray = given.find((flag) => !flag.scenarios.some((id) => seen.has(id)));
  if (stray !== undefined)
    throw new UsageError(`--${stray.parameter.flag} is for --scenario ${stray.scenarios.join(' or ')} only`);
  return scenarios;
}
