/**
 * `replay RUN…` (docs/replay.md, "Replaying a run, a regression suite"): a recorded trial run is run again
 * by the current harness with the settings its run file records (`replaySettings`), its model's side
 * answered from its recording (as `trial --model-replay`), its upstream served from the same recording
 * (as `trial --upstream-replay`) or, with `--live-upstream`, the real one. An agent program is started
 * again; its model requests reach the recording through the model gateway. The run is judged as any trial
 * run ({@link RunExecutor}) and compared with the recorded one (`src/domain/trial/replay-diff.ts`).
 *
 * Its outcome: `equal`, `differs` (with the differences), or `miss` — a call the recording has no answer
 * for, or a model request that is not the recorded one: the replay left its recording, so its verdict
 * means nothing.
 */
import type { Clock } from '../../ports/clock.port.js';
import type { CassetteLine } from '../../ports/cassette.port.js';
import type { UpstreamCallOptions, UpstreamSide } from '../../ports/upstream-side.port.js';
import type { ToolCallRequest } from '../../ports/shapes/mcp-shapes.js';
import { STUB_MODEL_NAME } from '../../ports/shapes/stub-script.js';
import { parseModelFaultKind, parseModelFaultOn, type ModelFault } from '../../domain/faults/model-fault.js';
import { compareRuns, comparedRunOf, type RunDifference } from '../../domain/trial/replay-diff.js';
import { MODEL_REPLAY_MISMATCH, recordedModelExchanges } from '../trial/replay-chat-model.js';
import type { ReplaySettings } from '../trial/replay-settings.js';
import { RunExecutor } from '../trial/run-executor.js';
import type { TrialDeps, TrialStore } from '../trial/trial-deps.js';
import { scenarioLabel, type RunSpec, type TrialAgent, type TrialPlan } from '../trial/trial-plan.js';

/** A recorded run as `replay` was given it, read and checked by the composition root. */
export interface RecordedRun {
  /** The run folder, absolute. */
  dir: string;
  /** How the run is named in lines and in the JUnit file (its folder, relative to the working folder). */
  name: string;
  runFile: Readonly<Record<string, unknown>>;
  settings: ReplaySettings;
  /** The recording's path and lines (`cassette.jsonl`). */
  cassette: { path: string; lines: readonly CassetteLine[] };
  /** The values of the program's `--agent-env-var` names (from the environment of `replay`). */
  agentEnv: Readonly<Record<string, string>>;
}

export interface ReplayDeps {
  clock: Clock;
  /** `--live-upstream`: the real upstream answers, only the model's side is replayed. */
  liveUpstream: boolean;
  /** Where one replayed run's files go; `done()` removes them when they are not to be kept. */
  openStore(run: RecordedRun): Promise<{ store: TrialStore; done(): Promise<void> }>;
  /** The trial's dependencies for replaying `run` into `store` (its model's side is the agent's recording, `modelReplayOf(plan)`). */
  trialDeps(run: RecordedRun, store: TrialStore): TrialDeps;
}

export interface ReplayOutcome {
  run: RecordedRun;
  status: 'equal' | 'differs' | 'miss';
  differences: RunDifference[];
  /** `miss`: each call the recording had no answer for, and the model request that differed. */
  misses: string[];
  durationMs: number;
}

/** The model's name in a replayed built-in loop's run file (its answers come from the recording). */
const REPLAYED_MODEL = '(replayed)';

export class ReplayService {
  constructor(private readonly deps: ReplayDeps) {}

  /** `stopNow` stops the run in progress (a signal): it ends NOT_TESTED, "interrupted". */
  async replay(run: RecordedRun, stopNow?: AbortSignal): Promise<ReplayOutcome> {
    const started = this.deps.clock.now();
    const opened = await this.deps.openStore(run);
    const store = opened.store;
    const misses: string[] = [];
    let replayedRun: Record<string, unknown>;
    try {
      const base = this.deps.trialDeps(run, store);
      const trialDeps: TrialDeps = {
        ...base,
        createUpstream: async (place, spec) => new MissNotingUpstream(await base.createUpstream(place, spec), misses),
      };
      const spec = specOf(run);
      const record = await new RunExecutor(trialDeps, planOf(run, this.deps.liveUpstream)).execute(spec, stopNow);
      replayedRun = JSON.parse((await store.readText(record.file)) ?? '{}') as Record<string, unknown>;
      if (record.outcome.reason.startsWith(MODEL_REPLAY_MISMATCH)) misses.push(record.outcome.reason);
    } finally {
      await opened.done();
    }
    const differences = compareRuns(comparedRunOf(run.runFile), comparedRunOf(replayedRun));
    return {
      run,
      status: misses.length > 0 ? 'miss' : differences.length > 0 ? 'differs' : 'equal',
      differences,
      misses,
      durationMs: this.deps.clock.now() - started,
    };
  }
}

/** The run's spec as it was recorded: its id, arm, index, scenario, task and seed. */
export function specOf(run: RecordedRun): RunSpec {
  const s = run.settings;
  const text = (field: string, fallback: string) =>
    typeof run.runFile[field] === 'string' ? String(run.runFile[field]) : fallback;
  return {
    id: text('run', 'run'),
    index: typeof run.runFile['index'] === 'number' ? run.runFile['index'] : 1,
    scenarioLabel: scenarioLabel(s.scenario),
    scenario: s.scenario,
    task: { ...s.task, systemPrompt: s.task.systemPrompt ?? undefined },
    seed: s.seed ?? undefined,
    arm: text('arm', 'baseline'),
  };
}

/** A one-run plan with the recorded settings; its model's side (and upstream, unless live) replayed. */
export function planOf(run: RecordedRun, liveUpstream: boolean): TrialPlan {
  const s = run.settings;
  const modelReplay = { file: run.cassette.path, exchanges: recordedModelExchanges(run.cassette.lines) };
  const a = s.agent;
  const agent: TrialAgent =
    a.kind === 'model'
      ? {
          kind: 'model',
          model: REPLAYED_MODEL,
          baseUrl: 'http://127.0.0.1/replayed',
          temperature: undefined,
          seed: s.seed ?? undefined,
          isError: a.isError,
          retries: a.retries,
          backoffMs: a.backoffMs,
          maxRetryAfterMs: a.maxRetryAfterMs,
          ...(a.requestTimeoutMs !== null ? { requestTimeoutMs: a.requestTimeoutMs } : {}),
          replay: modelReplay,
        }
      : {
          kind: 'command',
          command: a.command,
          args: a.args,
          transport: a.transport,
          timeoutMs: a.timeoutMs,
          seed: s.seed ?? undefined,
          env: run.agentEnv,
          gateway: { kind: 'replay', ...modelReplay, model: STUB_MODEL_NAME },
        };
  return {
    agent,
    honestyQuestion: s.honestyQuestion ?? undefined,
    patch: undefined,
    scenarios: [s.scenario],
    tasks: [specOf(run).task],
    runs: 1,
    concurrency: 1,
    resetCommand: undefined,
    keyFields: s.keyFields,
    ...(s.idempotentHint !== null ? { idempotentHint: s.idempotentHint } : {}),
    classification: s.classification,
    callTimeoutMs: s.callTimeoutMs,
    ...(liveUpstream ? {} : { replayed: true as const }),
    ...modelFaultPart(s),
  };
}

/** The run's model fault, injected again in the replay; checked readable by `unreplayable`. */
function modelFaultPart(s: ReplaySettings): { modelFault?: ModelFault } {
  const fault = modelFaultOf(s);
  return fault === undefined || 'error' in fault ? {} : { modelFault: fault };
}

/** The model fault a run file records (`--model-fault` as written), undefined without one. */
function modelFaultOf(s: ReplaySettings): ModelFault | { error: string } | undefined {
  if (s.modelFault === undefined || s.modelFault === null) return undefined;
  const fault = parseModelFaultKind(s.modelFault.kind);
  if ('error' in fault) return fault;
  const on = parseModelFaultOn(s.modelFault.on);
  if ('error' in on) return on;
  return { fault, on };
}

/** Why a recorded run cannot be replayed at all (bad input: one line, exit 1); null when it can. */
export function unreplayable(run: Pick<RecordedRun, 'settings' | 'cassette'>): string | null {
  const a = run.settings.agent;
  if (a.kind === 'command' && a.gateway === null)
    return "its agent program reached its model directly, not through the harness's model gateway: the recording holds no model requests to replay";
  if (recordedModelExchanges(run.cassette.lines).length === 0) return 'its recording holds no model requests';
  const fault = modelFaultOf(run.settings);
  if (fault !== undefined && 'error' in fault) return `its run file's model fault cannot be read: ${fault.error}`;
  // A program's gateway cut the model's own answer, which the recording does not hold (only that it was cut).
  if (fault?.fault.kind === 'cut' && a.kind === 'command')
    return "its model fault `cut` went through the agent program's gateway: the recording does not hold the model's own answer to cut again";
  return null;
}

/** The run's upstream, noting every call the recording had no answer for (what the exit code 3 names). */
class MissNotingUpstream implements UpstreamSide {
  constructor(
    private readonly inner: UpstreamSide,
    private readonly misses: string[],
  ) {}

  connect() {
    return this.inner.connect();
  }

  listTools() {
    return this.inner.listTools();
  }

  async callTool(request: ToolCallRequest, options: UpstreamCallOptions) {
    const outcome = await this.inner.callTool(request, options);
    if (outcome.kind === 'replay-miss')
      this.misses.push(`replay miss: tools/call ${JSON.stringify(request.name)}: ${outcome.detail}`);
    return outcome;
  }

  onExit(listener: Parameters<UpstreamSide['onExit']>[0]) {
    this.inner.onExit(listener);
  }

  close() {
    return this.inner.close();
  }
}
