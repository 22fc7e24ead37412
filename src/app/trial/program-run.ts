/**
 * One run of the user's agent program against a listener for this run: directly over HTTP, or through
 * the stdio relay; with `--stub-model`, `--base-url` or `--model-replay` its model endpoint is the run's
 * model gateway (started here, recorded into the transcript and the model side).
 */
import { ModelSide } from '../../domain/judging/attribution.js';
import type { ModelFaultTrigger } from '../../domain/faults/model-fault.js';
import { stderrReasonLines } from '../../domain/text/stderr-reason.js';
import type { ModelRecorder } from '../../ports/cassette.port.js';
import type { GatewayAnswers, ModelExchange, RunningModelGateway } from '../../ports/model-gateway.port.js';
import { ModelSideFeed } from '../proxy/model-side-feed.js';
import { StubModel } from '../stub-model/stub-model.js';
import { replayModelOf, type AgentRun, type AgentRunEnd } from './agent-run.js';
import { CapturingSink } from './capturing-sink.js';
import { OneRunAgentSide } from './one-run-agent-side.js';
import { runEnv } from './placeholders.js';
import { honestyAnswerOf, McpCallTranscript, recordExchange, TranscriptBudget } from './program-transcript.js';
import { recordGatewayExchange } from './recording-chat-model.js';
import type { ReplayChatModel } from './replay-chat-model.js';
import type { RunTrace } from '../tracing/run-trace.js';
import { startService, type RunContext } from './run-context.js';
import { parseReport } from './run-outcome.js';
import type { Transcript } from './transcript.js';
import type { ProgramExit, RunFolder, TrialDeps } from './trial-deps.js';
import type { CommandAgent, ForwardGateway, ReplayGateway, RunSpec, StubGateway, TrialPlan } from './trial-plan.js';

/** The agent program's part of a run: the program, its listener and (with a gateway) its model gateway. */
export class AgentProgramRun implements AgentRun {
  constructor(private readonly agent: CommandAgent) {}

  async run(ctx: RunContext): Promise<AgentRunEnd> {
    const gateway = this.agent.gateway;
    const answers = gateway === undefined ? undefined : gatewayAnswers(ctx.plan, gateway);
    const end = await programRun(ctx, this.agent, answers?.answers);
    return { ...end, conversation: null, modelMismatch: answers?.replay?.mismatch ?? null };
  }
}

type ProgramRunEnd = Omit<AgentRunEnd, 'conversation' | 'modelMismatch'>;

async function programRun(run: RunContext, agent: CommandAgent, answers: GatewayAnswers | undefined): Promise<ProgramRunEnd> {
  const { deps, plan, spec, folder, transcript, stopNow, fault } = run;
  const sink = new CapturingSink(folder.reportSink);
  const agentSide = new OneRunAgentSide(await deps.createListeningAgentSide());
  // R-14.2: with the gateway the harness sees the model's side; without it only decisive signals count.
  const modelSide = agent.gateway === undefined ? undefined : new ModelSide();
  const budget = new TranscriptBudget(
    (text) => deps.hash(text),
    (line) => {
      run.notices.push(line);
      deps.notice(`run ${spec.id}: ${line}`);
    },
  );
  const service = await run.service(
    agentSide,
    () => sink,
    false,
    modelSide,
    (_id, ordinal) => [new McpCallTranscript(transcript, ordinal, budget)],
  );
  fault.tools.classOf = (tool) => service.toolClassOf(tool);
  const started = await startService(service);
  if (started !== null)
    return {
      failure: started,
      report: parseReport(sink.last),
      program: null,
      sessions: 0,
      sessionsClosed: 0,
      honestyAnswer: undefined,
    };
  const url = agentSide.address.url;
  const relay = deps.relayCommandFor(url);
  const mcp: Record<string, string> =
    agent.transport === 'http'
      ? { CUONZTECH_MCP_TRANSPORT: 'http', CUONZTECH_MCP_URL: url }
      : {
          CUONZTECH_MCP_TRANSPORT: 'stdio',
          CUONZTECH_MCP_COMMAND: relay.command,
          CUONZTECH_MCP_ARGS: JSON.stringify(relay.args),
        };
  const exchanges: ModelExchange[] = [];
  const gateway =
    agent.gateway === undefined || answers === undefined || modelSide === undefined
      ? null
      : await startGateway(
          deps,
          answers,
          agent.gateway,
          transcript,
          budget,
          exchanges,
          modelSide,
          fault.modelFault,
          run.modelRecorder(),
          run.trace,
        );
  let program: ProgramExit;
  try {
    program = await deps.programs.run({
      ...programSpec(deps, plan, spec, folder, agent, {
        ...mcp,
        ...(gateway !== null ? gatewayEnv(gateway, agent.gateway!.model) : {}),
      }),
      ...(stopNow !== undefined ? { signal: stopNow } : {}),
    });
  } finally {
    await gateway?.close();
  }
  await service.stop('the agent program exited');
  let failure = gatewayFailure(exchanges) ?? programFailure(program, agent);
  if (failure === null && agentSide.sessions === 0) failure = 'the agent program never connected to the MCP server';
  const question = plan.honestyQuestion;
  const honestyAnswer = gateway !== null && question !== undefined ? honestyAnswerOf(exchanges, question) : undefined;
  return {
    failure,
    report: parseReport(sink.last),
    program,
    sessions: agentSide.sessions,
    sessionsClosed: agentSide.sessionsClosedByAgent,
    honestyAnswer,
  };
}

async function startGateway(
  deps: TrialDeps,
  answers: GatewayAnswers,
  gateway: StubGateway | ForwardGateway | ReplayGateway,
  transcript: Transcript,
  budget: TranscriptBudget,
  exchanges: ModelExchange[],
  modelSide: ModelSide,
  modelFault: ModelFaultTrigger | undefined,
  recorder: ModelRecorder | undefined,
  trace?: RunTrace,
) {
  const fault = modelFault !== undefined ? { fault: modelFault } : {};
  const feed = new ModelSideFeed(modelSide);
  const onExchange = (exchange: ModelExchange) => {
    exchanges.push(exchange);
    feed.exchange(exchange);
    recordExchange(transcript, exchange, budget);
    if (recorder !== undefined) recordGatewayExchange(recorder, exchange);
    trace?.modelExchange(exchange);
  };
  return deps.startGateway({ answers, models: [gateway.model], onExchange, ...fault });
}

/**
 * Who answers the run's model requests: the real endpoint, the stub model, or (`--model-replay`) the
 * recording's model side, fresh for each run; `replay` is that model, for its first mismatch.
 */
function gatewayAnswers(
  plan: TrialPlan,
  gateway: StubGateway | ForwardGateway | ReplayGateway,
): { answers: GatewayAnswers; replay?: ReplayChatModel } {
  if (gateway.kind === 'forward') return { answers: { kind: 'forward', baseUrl: gateway.baseUrl } };
  if (gateway.kind === 'stub') return { answers: { kind: 'model', model: new StubModel(gateway.script, plan.honestyQuestion) } };
  const replay = replayModelOf(gateway.exchanges, plan);
  return { answers: { kind: 'model', model: replay }, replay };
}

function programSpec(
  deps: TrialDeps,
  plan: TrialPlan,
  spec: RunSpec,
  folder: RunFolder,
  agent: CommandAgent,
  mcp: Record<string, string>,
) {
  // The user's variables first: the run's own (CUONZTECH_*) cannot be replaced by them.
  const env: Record<string, string> = { ...agent.env, ...runEnv(folder, spec.scenarioLabel), ...mcp };
  if (spec.task.task !== '') env['CUONZTECH_TASK'] = spec.task.task;
  // With the gateway the honesty question is the last user turn: the model's answer to it is the claim.
  const followUps =
    agent.gateway !== undefined && plan.honestyQuestion !== undefined
      ? [...spec.task.followUps, plan.honestyQuestion]
      : spec.task.followUps;
  if (followUps.length > 0) env['CUONZTECH_FOLLOW_UPS'] = JSON.stringify(followUps);
  if (spec.task.systemPrompt !== undefined) env['CUONZTECH_SYSTEM_PROMPT'] = spec.task.systemPrompt;
  if (spec.seed !== undefined) env['CUONZTECH_SEED'] = String(spec.seed);
  // Forward mode: the real key is the gateway's alone; the program gets the run's token only.
  const keyVariable = agent.gateway?.kind === 'forward' ? agent.gateway.keyVariable : undefined;
  return {
    command: agent.command,
    args: agent.args,
    env,
    ...(keyVariable !== undefined ? { withoutEnv: [keyVariable] } : {}),
    cwd: deps.cwd,
    timeoutMs: agent.timeoutMs,
    logDir: folder.dir,
  };
}

/** What frameworks read to find their model: both OpenAI's and Anthropic's variables, the run's own key. */
function gatewayEnv(gateway: RunningModelGateway, model: string): Record<string, string> {
  return {
    OPENAI_BASE_URL: gateway.openAiBaseUrl,
    OPENAI_API_KEY: gateway.token,
    ANTHROPIC_BASE_URL: gateway.url,
    ANTHROPIC_API_KEY: gateway.token,
    CUONZTECH_MODEL_URL: gateway.url,
    CUONZTECH_MODEL: model,
  };
}

export function exitText(exit: ProgramExit): string {
  return exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
}

/** `; stderr: …`: the line that says why (Node's `Error: …`), else the last three lines; '' when none. */
export function stderrTailText(stderrTail: string): string {
  const text = stderrReasonLines(stderrTail, 3).join(' | ');
  return text === '' ? '' : `; stderr: ${text}`;
}

/**
 * NOT_TESTED reason from the gateway's side, the first that happened: a model it does not serve, or a
 * request it could not carry through (a hostile answer, its own failure) — the program's model side was
 * not what the model answered, whatever the program did next. Null when every request was carried.
 */
function gatewayFailure(exchanges: readonly ModelExchange[]): string | null {
  const first = exchanges.find((e) => e.notServed === true || e.gatewayFailure === true);
  if (first === undefined) return null;
  if (first.notServed === true)
    return `the agent program asked the model gateway for a model it does not serve: ${first.error ?? first.model}`;
  return `the model gateway could not carry model request ${first.ordinal} through: ${first.error ?? `HTTP ${first.status}`}`;
}

/** NOT_TESTED reason for an agent program that did not end normally; null when it exited 0. */
function programFailure(exit: ProgramExit, agent: CommandAgent): string | null {
  if (exit.spawnError !== undefined) return `the agent program could not start: ${exit.spawnError}`;
  if (exit.timedOut)
    return `the agent program exceeded --agent-timeout (${agent.timeoutMs / 1000} s) and was killed${stderrTailText(exit.stderrTail)}`;
  if (exit.exitCode !== 0) return `the agent program failed (${exitText(exit)})${stderrTailText(exit.stderrTail)}`;
  return null;
}
