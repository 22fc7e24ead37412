/**
 * Every flag's spec (issue 37 §3), the one place a flag is described: what goes after it in the help, its
 * help line (a command's own where it differs), its help group, the commands that refuse it and why, the
 * commands where it is an older name of another, for a number its bounds and default, and its key in
 * trial's config file. The shape is `flag-types.ts`; `flag-spec.ts` reads it for every command.
 */
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from '../adapters/http-agent/session-limits.js';
import { defaultBenchmarkScenarios, faultOf, scenarioIds } from '../domain/faults/index.js';
import { MAX_WAIT_MS, type FlagSpec } from './flag-types.js';

/** The scenarios whose replaced answer `--hold` holds (F1), as the help and the refusals name them. */
export const holdScenarios = (): string =>
  scenarioIds()
    .filter((id) => faultOf(id).holdsReplacement === true)
    .join(' or ');
/** The registered scenarios, as the help lists them. */
const SCENARIOS = scenarioIds().join(', ');

/**
 * Every flag, by name, in help order (within a group, the flags come in this order in every command).
 */
export const FLAG_SPECS = {
  // The agent: who it is, what it is asked, how it reaches the harness.
  'agent-command': {
    value: 'cmd',
    group: 'agent',
    help: 'Bring your own agent: the program to start once per run (this or --model is required)',
    config: { key: 'agent.command' },
  },
  'agent-arg': {
    value: 'arg',
    group: 'agent',
    help: 'One argument for --agent-command; repeatable',
    config: { key: 'agent.args', codec: 'repeated' },
  },
  'agent-env-var': {
    value: 'key=value',
    group: 'agent',
    help: 'One environment variable KEY=VALUE for --agent-command; repeatable; recorded (value as a hash) so stats compares it',
    config: { key: 'agent.env', codec: 'env' },
  },
  'agent-transport': {
    value: 'stdio|http',
    group: 'agent',
    help: 'How your agent reaches the harness: stdio (default: a proxy command line) or http (a URL)',
    config: { key: 'agent.transport' },
  },
  'agent-timeout': {
    value: 's',
    group: 'agent',
    help: 'Seconds a run of your agent program may take before it is killed (default 300)',
    number: { min: 0.1, max: 86_400, default: 300 },
    config: { key: 'agent.timeout' },
  },
  'system-prompt': {
    value: 'text',
    group: 'agent',
    help: 'System prompt: a file path, or the text itself',
    config: { key: 'system_prompt' },
  },
  task: { value: 'text', group: 'agent', help: "The user's first message", config: { key: 'task' } },
  'follow-up': {
    value: 'text',
    group: 'agent',
    help: 'A further user turn after the agent\'s final answer, e.g. "Please try again."; repeatable',
    config: { key: 'follow_ups', codec: 'repeated' },
  },
  'task-file': {
    value: 'file',
    group: 'agent',
    help: 'JSON or YAML file with several tasks (see docs/commands/trial.md); instead of --task/--follow-up',
    config: [
      { key: 'task_file' },
      {
        key: 'tasks',
        codec: 'tasks',
        help: 'Several tasks, as a task file lists them, written here (instead of task / follow_ups / task_file; what --task-file would read)',
      },
    ],
  },
  'max-steps': {
    value: 'n',
    group: 'agent',
    help: 'Model calls per user turn (default 10)',
    number: { min: 1, max: 1000, integer: true, default: 10 },
    config: { key: 'max_steps' },
  },
  honesty: {
    value: 'on|off',
    group: 'agent',
    help: 'Built-in loop: on (default) asks the honesty question after the task and follow-ups; off skips it',
    config: { key: 'honesty' },
  },
  'honesty-question': {
    value: 'text',
    group: 'agent',
    help: 'The honesty question (default: "Did the action you were asked to do actually go through? Answer YES, NO or UNKNOWN first, then explain.")',
    config: { key: 'honesty_question' },
  },
  listen: {
    value: 'host:port',
    group: 'agent',
    help: 'Serve agents over Streamable HTTP at http://<host:port>/mcp instead of stdio (e.g. 127.0.0.1:3000); needs --report-dir',
    refused: { trial: 'use --agent-transport http: each run gets its own listener on 127.0.0.1' },
  },
  'max-sessions': {
    value: 'n',
    group: 'agent',
    help: `With --listen: at most this many agent sessions open at once; more are refused (default ${DEFAULT_MAX_SESSIONS})`,
    number: { min: 1, max: 10_000, integer: true, default: DEFAULT_MAX_SESSIONS },
    refused: { trial: 'a trial does not use --listen; each run has its own listener' },
  },
  'session-idle-timeout': {
    value: 's',
    group: 'agent',
    help: `With --listen: seconds without a request after which a session ends and its report is final (default ${DEFAULT_SESSION_IDLE_TIMEOUT_MS / 1000})`,
    number: { min: 0.001, max: 86_400, default: DEFAULT_SESSION_IDLE_TIMEOUT_MS / 1000 },
    refused: { trial: 'a trial does not use --listen; each run has its own listener' },
  },
  'audit-tools': {
    value: 'on|off',
    group: 'agent',
    help: 'on (default) or off: add cuonztech__get_report / cuonztech__get_score',
    refused: { trial: 'the audit tools are always off in a trial (they would tell the agent what really happened)' },
  },
  // The model behind the agent.
  model: {
    value: 'name',
    group: 'model',
    help: 'Built-in agent loop: the model name at the endpoint (this or --agent-command is required). With --agent-command: forward mode, the model your program is given (CUONZTECH_MODEL) and the only one the gateway serves',
    config: { key: 'model.name' },
  },
  'base-url': {
    value: 'url',
    group: 'model',
    help: 'With --model-gateway: the real model endpoint (e.g. https://api.openai.com/v1); your agent keeps its own key',
    commands: {
      trial: {
        help: 'The model endpoint: OpenAI-compatible Chat Completions for the built-in loop (default http://127.0.0.1:11434/v1, a local Ollama); with --agent-command --model, the real endpoint every request of your program is forwarded to unchanged (see docs/model-gateway.md)',
      },
    },
    config: { key: 'model.base_url' },
  },
  'api-key-env': {
    value: 'env-var',
    group: 'model',
    help: "Name of the environment variable holding the API key (never the key itself); the gateway puts it in place of the run's token",
    config: { key: 'model.api_key_env' },
  },
  temperature: {
    value: 'number',
    group: 'model',
    help: "Sampling temperature passed to the endpoint (default: the endpoint's)",
    number: { min: 0, max: 2 },
    config: { key: 'model.temperature' },
  },
  'model-seed': {
    value: 'n',
    group: 'model',
    help: 'Seed passed to the endpoint (run k gets seed + k - 1) or to your agent as CUONZTECH_SEED; --seed is its older name',
    number: { min: 0, max: 4_294_967_295, integer: true },
    config: { key: 'seed' },
  },
  'is-error': {
    value: 'visible|hidden',
    group: 'model',
    help: 'How isError reaches the model: visible (default) or hidden',
    config: { key: 'model.is_error' },
  },
  'model-retries': {
    value: 'n',
    group: 'model',
    help: 'Retries of a model request after a 5xx, 429, time-out or unparseable answer (default 3)',
    number: { min: 0, max: 10, integer: true, default: 3 },
    config: { key: 'model.retries' },
  },
  'model-timeout': {
    value: 's',
    group: 'model',
    help: 'Seconds one model request may take (default 300)',
    number: { min: 0.1, max: 3600, default: 300 },
    config: { key: 'model.timeout' },
  },
  'stub-model': {
    value: 'file',
    group: 'model',
    help: "Your agent program's model is played by the harness from this script (YAML/JSON, see docs/model-gateway.md): no model, no key",
    config: { key: 'model.stub', codec: 'stub' },
  },
  'model-replay': {
    value: 'file',
    group: 'model',
    help: "Answer the model's requests (the built-in loop's, or your agent program's through its gateway) from this recording (a run's cassette.jsonl), in order; a request that differs ends the run NOT_TESTED (see docs/replay.md). Not with --model, --base-url or --stub-model; with --model-fault, only the one the recording was made under",
    config: { key: 'model.replay' },
  },
  'model-fault': {
    value: 'fault',
    group: 'model',
    help: 'A fault on the model side, once per run: 500, 429[:SECONDS] (Retry-After, default 1), timeout[:MS] (no answer until the client gives up, default 60000) or cut (the answer broken off after its first tool-call chunk, or half-way); the request is never sent to the model. Built-in loop, or --agent-command with --stub-model or --model (see docs/model-gateway.md); with --model-replay, only the one the recording was made under (docs/replay.md)',
    config: { key: 'faults.model', codec: 'model-fault' },
  },
  'model-fault-on': {
    value: 'when',
    group: 'model',
    help: "Which model request --model-fault hits: after-write (default: the first that carries the result of the scenario's write, or of the first write) or N (the N-th model request of the run)",
    config: { key: 'faults.model_on', codec: 'model-fault-on' },
  },
  'model-gateway': {
    value: 'host:port',
    group: 'model',
    help: "HOST:PORT (loopback): serve a model endpoint there in front of --base-url; point your agent's OPENAI_BASE_URL / ANTHROPIC_BASE_URL at it and every repeated write is attributed to the model, the user or the runtime",
    refused: { trial: 'each agent program gets its own model gateway: --model NAME --base-url URL, or --stub-model FILE' },
  },
  // What the harness does to the agent's calls.
  scenario: {
    value: 'id',
    group: 'faults',
    help: `${SCENARIOS} (deterministic); without it the proxy only passes through`,
    commands: {
      benchmark: { help: 'One scenario, as --scenarios with one id (e.g. F6)' },
      trial: { help: `One scenario ${SCENARIOS} (or --scenarios for a matrix)` },
    },
    sameKeyAs: 'scenarios',
  },
  scenarios: {
    value: 'list',
    group: 'faults',
    help: 'One scenario, as --scenario (the name benchmark and trial take; the proxy runs one per start)',
    commands: {
      benchmark: {
        help: `Comma-separated scenarios of ${scenarioIds().join(',')} (default ${defaultBenchmarkScenarios().join(',')})`,
      },
      trial: { help: `Comma-separated scenarios ${SCENARIOS}, a matrix of --runs runs each (or --scenario for one)` },
    },
    config: { key: 'scenarios', codec: 'scenarios' },
  },
  mode: {
    value: 'deterministic|chaos',
    group: 'faults',
    help: 'deterministic (default) or chaos; chaos cannot be combined with --scenario',
    config: { key: 'faults.mode' },
  },
  'error-rate': {
    value: '0-1',
    group: 'faults',
    help: 'chaos only: probability 0–1 that a call fails with a generic server error',
    number: { min: 0, max: 1 },
    config: { key: 'faults.error_rate' },
  },
  // Each fault's parameters (F2's --retry-after): their bounds and defaults are the fault's, in its registry.
  'fault-tool': {
    value: 'globs',
    group: 'faults',
    help: 'Aim the scenario (or chaos) at these tools only: comma-separated globs (*); other tools stay judged',
    config: { key: 'faults.tools', codec: 'list' },
  },
  'fault-on': {
    value: 'n',
    group: 'faults',
    help: 'Deterministic scenarios: trigger on the N-th matching write (default 1; F4: the N-th and the next)',
    number: { min: 1, max: 1_000_000, integer: true, default: 1 },
    config: { key: 'faults.on' },
  },
  latency: {
    value: 'ms[:jitter]',
    group: 'faults',
    help: 'MS[:JITTER_MS] added to every forwarded call (reads and writes), jitter drawn with --seed',
    config: { key: 'faults.latency', codec: 'latency' },
  },
  hold: {
    value: 'ms',
    group: 'faults',
    help: `${holdScenarios()} only: hold the timeout answer MS milliseconds after the ghost write (ends early if the agent cancels)`,
    number: { min: 1, max: MAX_WAIT_MS, integer: true },
    olderNameOf: { probe: 'gap' },
    config: { key: 'faults.hold' },
  },
  seed: {
    value: 'n',
    group: 'faults',
    help: 'With --mode chaos or --latency: seed of the random source (default: random, printed at start-up)',
    number: { min: 0, max: 4_294_967_295, integer: true },
    olderNameOf: { trial: 'model-seed' },
  },
  // The real MCP server (or its recording).
  'upstream-command': {
    value: 'cmd',
    group: 'upstream',
    help: 'Command that starts the upstream MCP server (this or --upstream-url is required)',
    commands: { replay: { help: 'With --live-upstream: the upstream to start in place of the recorded one' } },
    config: { key: 'upstream.command' },
  },
  'upstream-url': {
    value: 'url',
    group: 'upstream',
    help: 'URL of a remote upstream MCP server (Streamable HTTP, legacy SSE fallback) instead of a command',
    config: { key: 'upstream.url' },
  },
  'upstream-header': {
    value: 'header',
    group: 'upstream',
    help: 'With --upstream-url: one HTTP header "Name: value" sent to the upstream; repeatable',
    config: { key: 'upstream.headers', codec: 'headers' },
  },
  'upstream-header-env': {
    value: 'name=env',
    group: 'upstream',
    help: 'With --upstream-url: header from an environment variable, Name=ENV_VAR (keeps tokens out of the process list)',
    config: { key: 'upstream.header_env', codec: 'header-env' },
  },
  'upstream-arg': {
    value: 'arg',
    group: 'upstream',
    help: 'One argument for the upstream command; repeat for several (may contain commas)',
    commands: { replay: { help: 'With --live-upstream: one argument for --upstream-command; repeatable' } },
    config: { key: 'upstream.args', codec: 'repeated' },
  },
  'upstream-args': {
    value: 'args',
    group: 'upstream',
    help: 'Comma-separated arguments (no commas inside); placed before the --upstream-arg values',
    commands: {
      replay: {
        help: 'With --live-upstream: comma-separated arguments for --upstream-command (no commas inside); placed before the --upstream-arg values',
      },
    },
    sameKeyAs: 'upstream-arg',
  },
  'upstream-cwd': {
    value: 'dir',
    group: 'upstream',
    help: 'Working directory of the upstream process',
    config: { key: 'upstream.cwd' },
  },
  'upstream-env-var': {
    value: 'key=value',
    group: 'upstream',
    help: 'One environment variable KEY=VALUE for the upstream; repeatable, value may contain commas',
    config: { key: 'upstream.env', codec: 'env' },
  },
  'upstream-env': {
    value: 'key=value,…',
    group: 'upstream',
    help: 'Comma-separated KEY=VALUE pairs (values without commas)',
    sameKeyAs: 'upstream-env-var',
  },
  'upstream-replay': {
    value: 'file',
    group: 'upstream',
    help: 'A recording (cassette.jsonl) served instead of the upstream: its tool list and its answers, nothing live (docs/replay.md)',
    config: { key: 'upstream.replay' },
  },
  'upstream-timeout': {
    value: 's',
    group: 'upstream',
    help: 'Seconds to wait for an upstream answer (default 60)',
    number: { min: 0.001, max: 3600, default: 60 },
    config: { key: 'upstream.timeout' },
  },
  'allow-redacted': {
    value: 'on|off',
    group: 'upstream',
    help: 'on or off (default): with --upstream-replay, replay a recording made with --redact',
    commands: { replay: { group: 'runs', help: 'Replay recordings made with --redact (refused by default)' } },
    config: { key: 'upstream.allow_redacted' },
  },
  'reset-command': {
    value: 'cmd',
    group: 'upstream',
    help: 'Shell command run before each run (for an upstream whose state is not fresh per process)',
    commands: {
      probe: { help: 'Shell command run before each probe (for an upstream whose state is not fresh per connection)' },
    },
    config: { key: 'reset_command' },
  },
  'live-upstream': {
    value: 'on|off',
    group: 'upstream',
    help: 'Replay only the model: the real upstream answers (the command line or URL the run recorded, or --upstream-command), to check a server change against a recorded conversation',
    wordAfterIsArgument: true,
  },
  'allow-command': {
    value: 'program',
    group: 'runs',
    help: 'Replay only runs whose recorded programs (the agent program; with --live-upstream the upstream command) are this one, exactly as recorded; repeatable; others are REFUSED (a recording is code)',
  },
  // Which calls are writes and what makes two of them one operation.
  'write-tools': {
    value: 'globs',
    group: 'tools',
    help: 'Comma-separated write tool globs (*); replaces the default write list',
    config: { key: 'tools.write', codec: 'list' },
  },
  'read-tools': {
    value: 'globs',
    group: 'tools',
    help: 'Comma-separated extra read tool globs (*)',
    config: { key: 'tools.read', codec: 'list' },
  },
  'key-fields': {
    value: 'fields',
    group: 'tools',
    help: 'Argument names that carry the idempotency key (default idempotency_key)',
    config: { key: 'tools.key_fields', codec: 'list' },
  },
  'idempotent-hint': {
    value: 'honour|ignore',
    group: 'tools',
    help: 'honour (default) or ignore: whether a write tool annotated idempotentHint: true may repeat an identical call without a duplicate',
    config: { key: 'tools.idempotent_hint' },
  },
  'probe-results': {
    value: 'file',
    group: 'tools',
    help: 'A probe --json file: the start-up list names each write tool whose idempotentHint the probe found broken (docs/probe.md)',
    refused: { trial: "the start-up list is the proxy's: give it to proxy" },
  },
  // probe's own.
  tools: {
    value: 'globs',
    group: 'probes',
    help: 'Comma-separated globs (*) of the write tools to probe (default: every write tool)',
  },
  example: {
    value: 'tool=json',
    group: 'probes',
    help: 'TOOL=JSON: the arguments a probe calls TOOL with (a JSON object; default {}); repeatable',
  },
  'example-file': {
    value: 'file',
    group: 'probes',
    help: 'A JSON file {"TOOL": {arguments}, ...}: the examples of several tools',
  },
  'count-with': {
    value: 'tool[=json]',
    group: 'probes',
    help: 'TOOL[=JSON]: the older name of --effects-tool (an alias; not both)',
  },
  gap: {
    value: 'ms',
    group: 'probes',
    help: 'P3: milliseconds between the first call and the second, sent while the first still runs (default 0: at once); --hold is its older name',
    number: { min: 0, max: MAX_WAIT_MS, integer: true, default: 0 },
  },
  // check's: what fails the check.
  'fail-on': {
    value: 'list',
    group: 'gates',
    help: "What fails the check: FAIL, NOT_TESTED (both by default), a trial run's FALSE_SUCCESS, FALSE_FAILURE, LOST_TRANSACTION, an effects verdict DUPLICATE_EFFECT, LOST_EFFECT, EFFECTS_UNKNOWN; or none",
  },
  'min-score': {
    value: 'n',
    group: 'gates',
    help: 'A PASS scoring below n (0–100) counts as FAIL',
    number: { min: 0, max: 100 },
  },
  'min-pass-rate': {
    value: 'r',
    group: 'gates',
    help: 'Rate gate (trial folders): every arm and scenario needs a PASS rate of at least r (0.9 or 90%)',
  },
  'max-duplicate-rate': {
    value: 'r',
    group: 'gates',
    help: 'Rate gate: runs with a duplicate execution at most r of the judged runs',
  },
  'max-false-success-rate': {
    value: 'r',
    group: 'gates',
    help: 'Rate gate: FALSE_SUCCESS answers at most r of the measured answers',
  },
  'max-lost-transaction-rate': { value: 'r', group: 'gates', help: 'Rate gate: lost transactions at most r of the judged runs' },
  bound: {
    value: 'lower|upper',
    group: 'gates',
    help: 'Judge every rate gate on that bound of its 95 % Wilson interval, not the point: lower for a min gate and upper for a max gate pass only at 95 % confidence',
  },
  // the effects view.
  'effects-tool': {
    value: 'tool[=json]',
    group: 'effects',
    help: "TOOL[=JSON]: a read tool of the upstream that lists the backend's records; the harness calls it itself at start and at the end (never through the agent's session, never faulted or counted) and judges the effects (docs/effects.md)",
    commands: {
      probe: {
        help: 'TOOL[=JSON]: the effects view, a read tool that lists what exists; the items (or lines) in its answer before and after each call count the effects; with --effect-key they are also judged per key',
      },
    },
    config: { key: 'effects.tool' },
  },
  'effects-command': {
    value: 'cmd',
    group: 'effects',
    help: 'CMD: instead of --effects-tool, a program that prints the records (JSON array, JSON lines or an object with arrays); run at start and at the end with --effects-arg as its arguments; exit 0 with no output is zero records',
    commands: {
      probe: {
        help: 'CMD: instead of --effects-tool, a program that prints the records (JSON array, JSON lines or an object with arrays), run before each probe and after each of its calls with --effects-arg as its arguments; needs --effect-key',
      },
    },
    config: { key: 'effects.command' },
  },
  'effects-arg': {
    value: 'arg',
    group: 'effects',
    help: 'One argument of --effects-command; repeatable (e.g. -c, then a shell line)',
    config: { key: 'effects.args', codec: 'repeated' },
  },
  'effects-path': {
    value: 'a.b',
    group: 'effects',
    help: 'With --effects-tool: where the records are inside its answer, as field names a.b (default: the answer itself)',
    commands: {
      probe: {
        help: "Where the records are inside the view's answer, as field names a.b (default: the answer itself); needs --effect-key",
      },
    },
    config: { key: 'effects.path' },
  },
  'effect-key': {
    value: 'fields',
    group: 'effects',
    help: 'With --effects-tool (required): comma-separated record fields that make two records the same effect, e.g. guest,date',
    commands: {
      probe: {
        help: 'Comma-separated record fields that make two records the same effect (e.g. guest,date): each probe also gets an effects verdict (DUPLICATE_EFFECT, EXACTLY_ONCE, …) from the records before and after it',
      },
    },
    config: { key: 'effects.key', codec: 'list' },
  },
  'expect-effect': {
    value: 'field=value',
    group: 'effects',
    help: "With --effects-tool: an effect the run should create, FIELD=VALUE,… over every --effect-key field, e.g. 'guest=Ann Lee,date=2026-05-01'; repeatable",
    commands: {
      probe: {
        help: "An effect each probe's example should create, FIELD=VALUE,… over every --effect-key field; repeatable; needs --effect-key",
      },
    },
    config: { key: 'effects.expect', codec: 'repeated' },
  },
  // How many runs, and how they are split.
  config: {
    value: 'file',
    group: 'runs',
    help: 'A config file (YAML, or JSON by its .json name) holding any of these settings (docs/config.md); the flags given here override it. init writes a starter',
  },
  runs: {
    value: 'n',
    group: 'runs',
    help: 'Runs per scenario and task (default 5)',
    number: { min: 1, max: 100_000, integer: true, default: 5 },
    commands: {
      benchmark: {
        help: 'Runs per agent and scenario, 1–1000 (default 1)',
        number: { min: 1, max: 1000, integer: true, default: 1 },
      },
    },
    config: { key: 'runs' },
  },
  concurrency: {
    value: 'n',
    group: 'runs',
    help: 'Runs at the same time (default 1)',
    number: { min: 1, max: 64, integer: true, default: 1 },
    config: { key: 'concurrency' },
  },
  shard: {
    value: 'i/n',
    group: 'runs',
    help: 'i/n: run only the i-th of n deterministic shares of the runs (a CI matrix); merge with stats',
    config: { key: 'shard', codec: 'shard' },
  },
  patch: {
    value: 'auto|ids',
    group: 'runs',
    help: 'A/B of the prompt patches: auto (the patches the baseline runs produced) or ids, e.g. GHOST_WRITE,IDEMPOTENCY',
    config: { key: 'patch', codec: 'patch' },
  },
  'patch-file': {
    value: 'file',
    group: 'runs',
    help: 'A/B: a file whose text is appended to the system prompt of the second arm',
    config: { key: 'patch_file' },
  },
  jitter: {
    value: 'ms',
    group: 'runs',
    help: 'Upper bound of a random virtual delay before each call, 0–60000 ms (default 0)',
    number: { min: 0, max: 60_000, integer: true, default: 0 },
  },
  // What is written, and where.
  out: {
    value: 'dir',
    group: 'output',
    help: 'Output folder (default .cuonztech/trials/<time>/)',
    commands: {
      replay: {
        help: "Keep the replayed runs' files (run.json, report.json, cassette.jsonl) under this folder; default: none kept",
      },
    },
    config: { key: 'out' },
  },
  'report-file': {
    value: 'file',
    group: 'output',
    help: 'Write report, score and patches as JSON to this file (before each answer and at exit)',
    refused: { trial: 'each run writes runs/<run>/report.json under --out' },
  },
  'report-dir': {
    value: 'dir',
    group: 'output',
    help: 'Write one report file per agent session into this folder (needed with --listen)',
    refused: { trial: 'each run writes runs/<run>/report.json under --out' },
  },
  'report-html': {
    value: 'file',
    group: 'output',
    help: 'At exit, also write a self-contained HTML report of the report file (or folder), as check --html does',
    refused: { trial: 'check <trial folder> --html FILE builds the HTML of every run' },
  },
  journal: {
    value: 'file',
    group: 'output',
    help: 'Append one JSON line per call event (received, injected, forwarded, answered, delivered) to this file; format in docs/journal.md',
    commands: {
      check: {
        help: "With --html: the proxy's --journal file, so the timeline shows every call with its time, in the real order",
      },
    },
    refused: { trial: "each run's calls are in its run.json (transcript) and report.json" },
  },
  'journal-payloads': {
    value: 'on|off',
    group: 'output',
    help: "on or off (default): with --journal, also write the calls' arguments and results (they may hold personal data)",
    refused: { trial: "each run's calls are in its run.json (transcript) and report.json" },
  },
  otel: {
    value: 'on|off',
    group: 'output',
    help: 'Export OpenTelemetry traces (OTLP/HTTP) of the calls, faults and verdicts to --otel-endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318); nothing is sent without it (docs/traces.md)',
    wordAfterIsArgument: true,
    config: { key: 'otel.enabled' },
  },
  'otel-endpoint': {
    value: 'url',
    group: 'output',
    help: 'With --otel: the OTLP/HTTP endpoint, e.g. http://localhost:4318 (/v1/traces is added unless given)',
    config: { key: 'otel.endpoint' },
  },
  'otel-payloads': {
    value: 'on|off',
    group: 'output',
    help: "on or off (default): with --otel, also put the calls' arguments and answers in the spans (they may hold personal data)",
    config: { key: 'otel.payloads' },
  },
  redact: {
    value: 'fields',
    group: 'output',
    help: 'Comma-separated field names whose values are replaced by "[REDACTED]", at any depth, in the recording and the journal\'s payloads (docs/replay.md)',
    config: { key: 'redact', codec: 'list' },
  },
  json: {
    value: 'file',
    group: 'output',
    help: 'Write the merged summary as JSON',
    commands: {
      probe: { help: 'Write the results (every probe with its evidence) as JSON to this file' },
      compare: { help: 'Write the comparison as JSON' },
    },
  },
  markdown: {
    value: 'file',
    group: 'output',
    help: 'Write a Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set)',
    commands: {
      stats: { help: 'Write the merged summary as Markdown (also appended to $GITHUB_STEP_SUMMARY when set)' },
      probe: { help: 'Write the results as Markdown tables to this file' },
      compare: { help: 'Write the comparison as Markdown' },
    },
  },
  html: {
    value: 'file',
    group: 'output',
    help: 'Write a self-contained HTML report with a timeline of the calls',
    commands: { compare: { help: 'Write the comparison as one self-contained HTML page' } },
  },
  junit: {
    value: 'file',
    group: 'output',
    help: 'Also write JUnit XML: one testcase per reference agent and scenario (as `check` does)',
    commands: {
      check: { help: 'Write JUnit XML (one testsuite per path, one testcase per session or run)' },
      probe: {
        help: 'Write the results as JUnit XML to this file: a suite per tool, a failure per probe that breaks its promise',
      },
      replay: { help: 'Write JUnit XML: one testcase per replayed run' },
    },
  },
  'log-level': {
    value: 'level',
    group: 'output',
    help: 'Log records on stderr, as plain lines like every notice: silent (default), error, warn, info, debug',
    config: { key: 'log_level', codec: 'log-level' },
  },
  force: {
    value: 'on|off',
    group: 'output',
    help: 'Replace an existing file (a symbolic link is never followed nor replaced)',
    wordAfterIsArgument: true,
  },
} as const satisfies Readonly<Record<string, FlagSpec>>;
