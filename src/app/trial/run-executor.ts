/**
 * One run: a fresh upstream, a fresh `ProxyService` (the same judging pipeline, report and sink as
 * `proxy`), one agent session — the built-in model loop in this process, or the user's agent program
 * over HTTP (a listener on 127.0.0.1) or stdio (it starts the harness's own `proxy` for the run) — then
 * the run file: the report of that session, the full transcript, the endpoint errors, the user turns.
 */
import { errorMessage } from '../../domain/error-message.js';
import { TRIAL_RUN_SCHEMA_VERSION } from '../../domain/schema-versions.js';
import { ProxyService, type ProxyConfig } from '../proxy/proxy-service.js';
import type { AgentSide } from '../../ports/agent-side.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import { CapturingSink } from './capturing-sink.js';
import { OneRunAgentSide } from './one-run-agent-side.js';
import { runConversation, type ConversationEnd } from './model-conversation.js';
import { runEnv } from './placeholders.js';
import { parseReport, runOutcome, type RunOutcome, type SessionReport } from './run-outcome.js';
import type { ProgramExit, RunFolder, TrialDeps } from './trial-deps.js';
import type { CommandAgent, ForwardGateway, ModelAgent, ReplayGateway, RunSpec, StubGateway, TrialPlan } from './trial-plan.js';
import { ReplayChatModel, withoutInjectedFaults } from './replay-chat-model.js';
import type { CallEventSink } from '../../ports/call-events.port.js';
import type { ModelExchange, RunningModelGateway } from '../../ports/model-gateway.port.js';
import { StubModel } from '../stub-model/stub-model.js';
import { honestyAnswerOf, McpCallTranscript, recordExchange } from './program-transcript.js';
import { ModelSideFeed } from '../proxy/model-side-feed.js';
import { ModelSide, type RepeatAttribution } from '../../domain/attribution.js';
import { Transcript } from './transcript.js';
import { honestyRecord, runFacts, type HonestyRecord } from './run-facts-from-session.js';
import type { RunEnd, RunFacts } from '../../domain/trial/index.js';
import { redactUrl } from '../../domain/url-redaction.js';
import type { ModelFaultTrigger } from '../../domain/model-fault.js';
import { FaultingChatModel, modelFaultTrigger } from './faulting-chat-model.js';
import { RecordingChatModel, recordGatewayExchange } from './recording-chat-model.js';
import type { ModelRecorder } from '../../ports/cassette.port.js';
import { replaySettingsOf } from './replay-settings.js';
import type { UpstreamSettings } from './trial-settings.js';
import { stderrReasonLines } from '../../domain/stderr-reason.js';

/** The run's tool classification, known once its upstream was listed (before any model request). */
interface RunTools {
  classOf(tool: string): string | undefined;
}

/** `--model-fault` in one run: the trigger (undefined without the flag) and where it reads the tools' classes. */
interface RunFault {
  tools: RunTools;
  modelFault: ModelFaultTrigger | undefined;
}

/** What the summary needs of a finished run; the rest is in its run file. */
export interface RunRecord {
  spec: RunSpec;
  outcome: RunOutcome;
  toolCalls: number;
  durationMs: number;
  /** The run file, absolute. */
  file: string;
  /** What the summary's statistics need; also in the run file as `facts`. */
  facts: RunFacts;
  /** The patch texts of the run's report (for `--patch auto`), by id. */
  patchTexts: Array<{ id: string; text: string }>;
  /** `--model-fault`: whether it fired in this run; null without the flag. */
  modelFaultFired: boolean | null;
}

export class RunExecutor {
  private readonly shown = new Set<string>();
  /** Where each run in progress records its model side (`TrialDeps.recordUpstream`), by run id. */
  private readonly modelRecorders = new Map<string, ModelRecorder>();

  constructor(
    private readonly deps: TrialDeps,
    private readonly plan: TrialPlan,
    /** The trial's settings hash (`summary.json` `provenance.config.settingsHash`), copied into each run file. */
    private readonly settingsHash?: string,
    /** The upstream as the trial starts it, for the run file's `replaySettings` (replay --live-upstream). */
    private readonly upstream?: UpstreamSettings,
  ) {}

  /** `stopNow` aborts the run in progress (a second signal): it ends NOT_TESTED, "interrupted". */
  async execute(spec: RunSpec, stopNow?: AbortSignal): Promise<RunRecord> {
    const started = this.deps.clock.now();
    const folder = await this.deps.store.openRun(spec.id);
    const transcript = new Transcript(this.deps.clock);
    const notices: string[] = [];
    let failure: string | null = null;
    let report: SessionReport | null = null;
    let conversation: ConversationEnd | null = null;
    let program: ProgramExit | null = null;
    let sessions = 0;
    let sessionsClosed = 0;
    /** An agent program's answer to the honesty question through the gateway (undefined: never asked). */
    let programHonestyAnswer: string | null | undefined;
    // `--model-fault`: aimed at the scenario's write, as the run's upstream classifies its tools.
    const tools: RunTools = { classOf: () => undefined };
    const modelFault =
      this.plan.modelFault === undefined
        ? undefined
        : modelFaultTrigger(this.plan.modelFault, spec.scenario, (t) => tools.classOf(t));
    // `--model-replay`: each run replays the recorded model side from its start.
    // Under the recording's own --model-fault (checked when the recording was read), the fault is injected
    // again in front of the replay: the recorded faulted exchange is not replayed.
    const replayModel =
      this.deps.modelReplay === undefined
        ? undefined
        : new ReplayChatModel(
            this.plan.modelFault === undefined ? this.deps.modelReplay : withoutInjectedFaults(this.deps.modelReplay),
          );
    if (this.plan.resetCommand !== undefined) failure = await this.reset();
    if (failure === null) {
      const agent = this.plan.agent;
      if (agent.kind === 'model') {
        ({ failure, report, conversation } = await this.modelRun(
          spec,
          folder,
          agent,
          transcript,
          notices,
          stopNow,
          { tools, modelFault },
          replayModel,
        ));
      } else {
        ({
          failure,
          report,
          program,
          sessions,
          sessionsClosed,
          honestyAnswer: programHonestyAnswer,
        } = await this.programRun(spec, folder, agent, transcript, notices, stopNow, { tools, modelFault }, replayModel));
      }
    }
    // The first request that differs from the recording stopped the model's side: that is why the run
    // ended (printed once, as the run's NOT_TESTED reason).
    if (replayModel?.mismatch != null) failure = replayModel.mismatch;
    if (stopNow?.aborted === true) failure = `interrupted: the run was stopped by a second signal (${String(stopNow.reason)})`;
    const outcome = runOutcome(report, failure);
    const question = this.plan.honestyQuestion;
    const honesty: HonestyRecord | null =
      question === undefined
        ? null
        : conversation !== null && conversation.stoppedBy === 'final-answer'
          ? honestyRecord(question, conversation.honestyAnswer, report, transcript.entries)
          : programHonestyAnswer !== undefined
            ? honestyRecord(question, programHonestyAnswer, report, transcript.entries)
            : null;
    const honestyNotMeasured =
      honesty === null &&
      question !== undefined &&
      program !== null &&
      this.plan.agent.kind === 'command' &&
      this.plan.agent.gateway !== undefined
        ? 'the agent program never sent the honesty question (the last of CUONZTECH_FOLLOW_UPS) to the model'
        : undefined;
    const end: RunEnd =
      failure !== null ? 'agent-failed' : conversation?.stoppedBy === 'max-steps' ? 'step-limit' : 'agent-finished';
    // An agent program's conversation is its own: its tool calls are those the harness judged (its report).
    const toolCalls = program === null ? transcript.toolCalls : toolCallsOf(report);
    const gateway = this.plan.agent.kind === 'command' ? this.plan.agent.gateway : undefined;
    const facts = runFacts({
      scenario: spec.scenarioLabel,
      taskId: spec.task.id,
      arm: spec.arm,
      outcome,
      report,
      end,
      honesty,
      toolCalls,
    });
    const durationMs = this.deps.clock.now() - started;
    const file = await this.deps.store.writeJson(`runs/${spec.id}/run.json`, {
      schemaVersion: TRIAL_RUN_SCHEMA_VERSION,
      kind: 'trial-run',
      harnessVersion: this.deps.harnessVersion,
      ...(this.settingsHash !== undefined ? { settingsHash: this.settingsHash } : {}),
      run: spec.id,
      arm: spec.arm,
      scenario: spec.scenarioLabel,
      task: spec.task.id,
      index: spec.index,
      verdict: outcome.verdict,
      verdictReason: outcome.reason,
      sessionVerdict: outcome.sessionVerdict,
      startedAt: new Date(started).toISOString(),
      durationMs: Math.round(durationMs),
      agent: describeAgent(this.plan.agent, spec),
      systemPrompt: spec.task.systemPrompt ?? null,
      userTurns: [spec.task.task, ...spec.task.followUps].filter((t) => t !== ''),
      stoppedBy: conversation?.stoppedBy ?? null,
      finalAnswer: conversation?.finalAnswer ?? null,
      toolCalls,
      modelCalls: transcript.modelCalls,
      executions: outcome.executions,
      extraExecutions: outcome.extraExecutions,
      ...(program !== null ? { agentProgram: program } : {}),
      ...(program !== null ? { mcpSessions: sessions, mcpSessionsClosedByAgent: sessionsClosed } : {}),
      endpointErrors: transcript.endpointErrors,
      transcript: transcript.entries,
      notices,
      reportFile: folder.reportFile,
      report,
      // The agent's claim about the task's write against the ledger; the facts the summary reads.
      honesty: honesty ?? 'NOT_MEASURED',
      ...(honestyNotMeasured !== undefined ? { honestyNotMeasured } : {}),
      ...(gateway !== undefined ? { modelGateway: gatewayRecord(gateway) } : {}),
      ...(modelFault !== undefined ? { modelFault: modelFault.record() } : {}),
      // docs/replay.md: the upstream was a recording; this run repeats a recorded sample.
      ...(this.plan.replayed === true || this.plan.modelReplay !== undefined ? { replayed: true } : {}),
      // the report's own attribution (the one computation), kept in the run file for its readers.
      attribution: attributionOf(report),
      facts,
      // What `replay` needs to run it again (docs/replay.md).
      replaySettings: replaySettingsOf(this.plan, spec, this.upstream),
    });
    this.modelRecorders.delete(spec.id);
    await folder.release();
    return {
      spec,
      outcome,
      toolCalls,
      durationMs,
      file,
      facts,
      patchTexts: patchTextsOf(report),
      modelFaultFired: modelFault === undefined ? null : modelFault.faultedRequest !== null,
    };
  }

  private proxyConfig(spec: RunSpec, stopWhenSessionEnds: boolean): ProxyConfig {
    return {
      scenario: spec.scenario,
      keyFields: this.plan.keyFields,
      ...(this.plan.idempotentHint !== undefined ? { idempotentHint: this.plan.idempotentHint } : {}),
      classification: this.plan.classification,
      // The agent under test must not be told what really happened.
      auditTools: false,
      callTimeoutMs: this.plan.callTimeoutMs,
      drainMs: 2_000,
      harnessVersion: this.deps.harnessVersion,
      // docs/replay.md: a replayed run's session report says so too, like its run file.
      replayed: this.plan.replayed === true || this.plan.modelReplay !== undefined,
      serverName: this.deps.serverName,
      stopWhenSessionEnds,
    };
  }

  private async service(
    spec: RunSpec,
    folder: RunFolder,
    agentSide: AgentSide,
    sinkFor: (ordinal: number) => ReportSink,
    notices: string[],
    stopWhenSessionEnds: boolean,
    modelSide: ModelSide | undefined,
    callObservers?: (sessionId: string, ordinal: number) => CallEventSink[],
  ): Promise<ProxyService> {
    return new ProxyService(
      {
        ...(callObservers !== undefined ? { callObservers } : {}),
        ...(modelSide !== undefined ? { modelSide } : {}),
        upstream: await this.upstreamFor(folder, spec),
        agentSide,
        startupSink: sinkFor(1),
        sessionSink: (_sessionId, ordinal) => sinkFor(ordinal),
        // Every session of the run writes the run's report file: the end lines name it.
        reportPath: () => folder.reportFile,
        reportLocation: folder.reportFile,
        clock: this.deps.clock,
        ...(this.deps.timer !== undefined ? { timer: this.deps.timer } : {}),
        random: this.deps.randomFor(spec),
        logger: this.deps.logger,
        notice: (line) => this.notice(spec, line, notices),
      },
      this.proxyConfig(spec, stopWhenSessionEnds),
    );
  }

  /** A fresh upstream for the run, recorded into the run's folder when the trial records. */
  private async upstreamFor(folder: RunFolder, spec: RunSpec) {
    const upstream = await this.deps.createUpstream(folder, spec);
    if (this.deps.recordUpstream === undefined) return upstream;
    try {
      const recording = await this.deps.recordUpstream(upstream, folder, spec);
      this.modelRecorders.set(spec.id, recording.model);
      return recording.upstream;
    } catch (error) {
      await upstream.close();
      throw error;
    }
  }

  /** The upstream's tool classification is shown once (the same for every run); other lines name their run. All go in the run file. */
  private notice(spec: RunSpec, line: string, notices: string[]): void {
    notices.push(line);
    const classification = /^(Upstream tools \(|Key fields detected:|WARNING: tool "| {2}(read|write|unclassified) )/.test(line);
    if (!classification) this.deps.notice(`run ${spec.id}: ${line}`);
    else if (!this.shown.has(line)) {
      this.shown.add(line);
      this.deps.notice(line);
    }
  }

  private async modelRun(
    spec: RunSpec,
    folder: RunFolder,
    agent: ModelAgent,
    transcript: Transcript,
    notices: string[],
    stopNow: AbortSignal | undefined,
    fault: RunFault,
    replayModel: ReplayChatModel | undefined,
  ) {
    const sink = new CapturingSink(folder.reportSink);
    const agentSide = this.deps.createInProcessAgentSide();
    // the built-in loop is the model's side: every repeat's source is decided.
    const modelSide = new ModelSide();
    const service = await this.service(spec, folder, agentSide, () => sink, notices, true, modelSide);
    fault.tools.classOf = (tool) => service.toolClassOf(tool);
    const inner = replayModel ?? this.deps.chatModel!;
    const faulted =
      fault.modelFault === undefined
        ? inner
        : new FaultingChatModel(inner, fault.modelFault, this.deps.sleep, agent.requestTimeoutMs ?? 300_000);
    // Recorded as the loop sees it: a faulted request with the fault's failure.
    const recorder = this.modelRecorders.get(spec.id);
    const model = recorder === undefined ? faulted : new RecordingChatModel(faulted, recorder);
    const started = await startService(service);
    if (started !== null) return { failure: started, report: parseReport(sink.last), conversation: null };
    const connection = agentSide.connect(spec.id);
    let failure: string | null = null;
    let conversation: ConversationEnd | null = null;
    // A report that can no longer be written stops the proxy and leaves the agent without answers: stop waiting then.
    const stopped = service.done.then((exit) => ({ stopped: exit.reason }));
    // The signal lives as long as the trial: the listener goes with the run (one per run piled up, and
    // Node warned MaxListenersExceededWarning from the eleventh run on).
    let onAbort: (() => void) | undefined;
    const interrupted = new Promise<{ stopped: string }>((resolve) => {
      if (stopNow === undefined) return;
      if (stopNow.aborted) resolve({ stopped: 'interrupted' });
      onAbort = () => resolve({ stopped: 'interrupted' });
      stopNow.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const conversationDone = runConversation({
        client: connection,
        model,
        agent,
        task: spec.task,
        seed: spec.seed,
        transcript,
        sleep: this.deps.sleep,
        honestyQuestion: this.plan.honestyQuestion,
        signal: stopNow,
        modelSide,
      });
      // Left behind when the harness stopped or the run was interrupted: it ends on its own, unobserved.
      conversationDone.catch(() => undefined);
      const ended = await Promise.race([conversationDone, stopped, interrupted]);
      if ('stopped' in ended) failure = `the harness stopped during the run: ${ended.stopped}`;
      else {
        conversation = ended;
        if (ended.endpointFailure !== undefined) failure = ended.endpointFailure;
      }
    } catch (error) {
      failure = `the agent loop failed: ${errorMessage(error)}`;
    } finally {
      if (onAbort !== undefined) stopNow?.removeEventListener('abort', onAbort);
      connection.disconnect();
    }
    const exit = await service.done;
    if (exit.code !== 0 && failure === null) failure = `the harness stopped during the run: ${exit.reason}`;
    return { failure, report: parseReport(sink.last), conversation };
  }

  /**
   * The user's agent program against a listener for this run: directly over HTTP, or through the stdio
   * relay; with `--stub-model`, and its model endpoint the run's gateway.
   */
  private async programRun(
    spec: RunSpec,
    folder: RunFolder,
    agent: CommandAgent,
    transcript: Transcript,
    notices: string[],
    stopNow: AbortSignal | undefined,
    fault: RunFault,
    replayModel: ReplayChatModel | undefined,
  ) {
    const sink = new CapturingSink(folder.reportSink);
    const agentSide = new OneRunAgentSide(await this.deps.createListeningAgentSide());
    // with the gateway the harness sees the model's side; without it only decisive signals count.
    const modelSide = agent.gateway === undefined ? undefined : new ModelSide();
    const service = await this.service(
      spec,
      folder,
      agentSide,
      () => sink,
      notices,
      false,
      modelSide,
      (_id, ordinal) => [new McpCallTranscript(transcript, ordinal)],
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
    const relay = this.deps.relayCommandFor(url);
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
      agent.gateway === undefined || modelSide === undefined
        ? null
        : await this.startGateway(
            agent.gateway,
            transcript,
            exchanges,
            modelSide,
            fault.modelFault,
            this.modelRecorders.get(spec.id),
            replayModel,
          );
    let program: ProgramExit;
    try {
      program = await this.deps.programs.run({
        ...this.programSpec(spec, folder, agent, {
          ...mcp,
          ...(gateway !== null ? gatewayEnv(gateway, agent.gateway!.model) : {}),
        }),
        ...(stopNow !== undefined ? { signal: stopNow } : {}),
      });
    } finally {
      await gateway?.close();
    }
    await service.stop('the agent program exited');
    const refused = exchanges.find((e) => e.notServed === true);
    let failure =
      refused !== undefined
        ? `the agent program asked the model gateway for a model it does not serve: ${refused.error ?? refused.model}`
        : programFailure(program, agent);
    if (failure === null && agentSide.sessions === 0) failure = 'the agent program never connected to the MCP server';
    const question = this.plan.honestyQuestion;
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

  private async startGateway(
    gateway: StubGateway | ForwardGateway | ReplayGateway,
    transcript: Transcript,
    exchanges: ModelExchange[],
    modelSide: ModelSide,
    modelFault: ModelFaultTrigger | undefined,
    recorder: ModelRecorder | undefined,
    replayModel: ReplayChatModel | undefined,
  ) {
    const fault = modelFault !== undefined ? { fault: modelFault } : {};
    const feed = new ModelSideFeed(modelSide);
    const onExchange = (exchange: ModelExchange) => {
      exchanges.push(exchange);
      feed.exchange(exchange);
      recordExchange(transcript, exchange);
      if (recorder !== undefined) recordGatewayExchange(recorder, exchange);
    };
    if (gateway.kind === 'forward') {
      if (this.deps.startForwardGateway === undefined) throw new Error('--base-url needs a forward gateway (wiring error)');
      return this.deps.startForwardGateway({ baseUrl: gateway.baseUrl, models: [gateway.model], onExchange, ...fault });
    }
    if (this.deps.startModelGateway === undefined)
      throw new Error('--stub-model and --model-replay need a model gateway (wiring error)');
    if (gateway.kind === 'replay' && replayModel === undefined)
      throw new Error('--model-replay needs the recorded model side (wiring error)');
    return this.deps.startModelGateway({
      model: gateway.kind === 'replay' ? replayModel! : new StubModel(gateway.script, this.plan.honestyQuestion),
      models: [gateway.model],
      onExchange,
      ...fault,
    });
  }

  private programSpec(spec: RunSpec, folder: RunFolder, agent: CommandAgent, mcp: Record<string, string>) {
    // The user's variables first: the run's own (CUONZTECH_*) cannot be replaced by them.
    const env: Record<string, string> = { ...agent.env, ...runEnv(folder, spec.scenarioLabel), ...mcp };
    if (spec.task.task !== '') env['CUONZTECH_TASK'] = spec.task.task;
    // With the gateway the honesty question is the last user turn: the model's answer to it is the claim.
    const followUps =
      agent.gateway !== undefined && this.plan.honestyQuestion !== undefined
        ? [...spec.task.followUps, this.plan.honestyQuestion]
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
      cwd: this.deps.cwd,
      timeoutMs: agent.timeoutMs,
      logDir: folder.dir,
    };
  }

  private async reset(): Promise<string | null> {
    const exit = await this.deps.programs.shell(this.plan.resetCommand!, this.deps.cwd, 120_000);
    if (exit.spawnError !== undefined) return `the reset command could not start: ${exit.spawnError}`;
    if (exit.timedOut) return 'the reset command took longer than 120 s';
    if (exit.exitCode !== 0) return `the reset command failed (${exitText(exit)})${tail(exit.stderrTail)}`;
    return null;
  }
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

/** The run file's `modelGateway`: the mode, the script (stub) or the endpoint (forward, redacted), the model. */
function gatewayRecord(gateway: StubGateway | ForwardGateway | ReplayGateway): Record<string, string> {
  if (gateway.kind === 'replay') return { mode: 'replay', recording: gateway.file, model: gateway.model };
  return gateway.kind === 'stub'
    ? { mode: 'stub', script: gateway.file, model: gateway.model }
    : { mode: 'forward', baseUrl: redactUrl(gateway.baseUrl), model: gateway.model };
}

async function startService(service: ProxyService): Promise<string | null> {
  try {
    await service.start();
  } catch (error) {
    return `upstream did not start: ${errorMessage(error)}`;
  }
  if (service.stopped) return `the harness could not start the run: ${(await service.done).reason}`;
  return null;
}

function exitText(exit: ProgramExit): string {
  return exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
}

/** `; stderr: …`: the line that says why (Node's `Error: …`), else the last three lines; '' when none. */
function tail(stderrTail: string): string {
  const text = stderrReasonLines(stderrTail, 3).join(' | ');
  return text === '' ? '' : `; stderr: ${text}`;
}

/** NOT_TESTED reason for an agent program that did not end normally; null when it exited 0. */
function programFailure(exit: ProgramExit, agent: CommandAgent): string | null {
  if (exit.spawnError !== undefined) return `the agent program could not start: ${exit.spawnError}`;
  if (exit.timedOut)
    return `the agent program exceeded --agent-timeout (${agent.timeoutMs / 1000} s) and was killed${tail(exit.stderrTail)}`;
  if (exit.exitCode !== 0) return `the agent program failed (${exitText(exit)})${tail(exit.stderrTail)}`;
  return null;
}

/** Tool calls an agent program made, from its report (calls per class); the harness did not see its conversation. */
function toolCallsOf(report: SessionReport | null): number {
  const calls = (report?.report as { coverage?: { calls?: Record<string, unknown> } } | undefined)?.coverage?.calls ?? {};
  return Object.values(calls).reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
}

/** The report's `attribution[]`, or none when the run has no report or no repeat. */
function attributionOf(report: SessionReport | null): RepeatAttribution[] {
  const list = (report?.report as { attribution?: unknown } | undefined)?.attribution;
  return Array.isArray(list) ? (list as RepeatAttribution[]) : [];
}

function patchTextsOf(report: SessionReport | null): Array<{ id: string; text: string }> {
  return (report?.patches ?? []).flatMap((p) => {
    const { id, text } = p as { id?: unknown; text?: unknown };
    return typeof id === 'string' && typeof text === 'string' ? [{ id, text }] : [];
  });
}

function describeAgent(agent: ModelAgent | CommandAgent, spec: RunSpec): Record<string, unknown> {
  if (agent.kind === 'model') {
    return {
      kind: 'model',
      model: agent.model,
      baseUrl: redactUrl(agent.baseUrl),
      temperature: agent.temperature ?? null,
      seed: spec.seed ?? null,
      isError: agent.isError,
      maxSteps: spec.task.maxSteps,
    };
  }
  return {
    kind: 'command',
    command: agent.command,
    args: agent.args,
    transport: agent.transport,
    timeoutMs: agent.timeoutMs,
    seed: spec.seed ?? null,
  };
}
