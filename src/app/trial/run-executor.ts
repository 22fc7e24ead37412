/**
 * One run: a fresh upstream, a fresh `ProxyService` (the same judging pipeline, report and sink as
 * `proxy`), one agent session — the built-in model loop in this process, or the user's agent program
 * over HTTP (a listener on 127.0.0.1) or stdio (it starts the harness's own `proxy` for the run) — then
 * the run file: the report of that session, the full transcript, the endpoint errors, the user turns.
 * This is the run's frame; the agent parts are `model-run.ts` (the built-in loop) and `program-run.ts`
 * (the user's program and its model gateway), the run file's parts from the report `run-file.ts`.
 */
import { expandAll, expandPlaceholders, type RunPlace } from './placeholders.js';
import type { EffectsViewSettings } from '../../domain/effects/effects-settings.js';
import { isClassificationLine } from '../../domain/judging/classification.js';
import { errorCode, errorMessage } from '../../domain/error-message.js';
import { TRIAL_RUN_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import { ProxyService, type ProxyConfig } from '../proxy/proxy-service.js';
import type { AgentSide } from '../../ports/agent-side.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import type { CallEventSink } from '../../ports/call-events.port.js';
import type { ModelRecorder } from '../../ports/cassette.port.js';
import type { ModelSide } from '../../domain/judging/attribution.js';
import type { RunEnd, RunFacts } from '../../domain/trial/index.js';
import type { AgentRun, AgentRunEnd } from './agent-run.js';
import { BuiltInLoopRun } from './model-run.js';
import { AgentProgramRun, exitText, stderrTailText } from './program-run.js';
import { modelFaultTrigger } from './faulting-chat-model.js';
import { replaySettingsOf } from './replay-settings.js';
import type { RunContext, RunFault, RunTools } from './run-context.js';
import { honestyRecord, runFacts, type HonestyRecord } from './run-facts-from-session.js';
import { attributionOf, patchTextsOf, toolCallsOf } from './run-file.js';
import { describeAgent, gatewayRecord, runAgent } from './agent-description.js';
import { runOutcome, type RunOutcome } from './run-outcome.js';
import { Transcript } from './transcript.js';
import type { RunFolder, TrialDeps } from './trial-deps.js';
import { repeatsRecordedSample, type RunSpec, type TrialPlan } from './trial-plan.js';
import type { UpstreamSettings } from './trial-settings.js';
import type { RunTrace } from '../tracing/run-trace.js';

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

/** A run whose agent part never started (its reset command failed). */
const NOT_STARTED: AgentRunEnd = {
  failure: null,
  report: null,
  conversation: null,
  program: null,
  sessions: 0,
  sessionsClosed: 0,
  honestyAnswer: undefined,
  modelMismatch: null,
};

export class RunExecutor {
  private readonly shown = new Set<string>();
  /** Where each run in progress records its model side (`TrialDeps.recordUpstream`), by run id. */
  private readonly modelRecorders = new Map<string, ModelRecorder>();
  /** `--otel`: each run in progress's span, by run id. */
  private readonly traces = new Map<string, RunTrace>();

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
    const trace = this.deps.trace?.run(spec, this.plan.agent);
    if (trace !== undefined) this.traces.set(spec.id, trace);
    const transcript = new Transcript(this.deps.clock);
    const notices: string[] = [];
    // `--model-fault`: aimed at the scenario's write, as the run's upstream classifies its tools.
    const tools: RunTools = { classOf: () => undefined };
    const modelFault =
      this.plan.modelFault === undefined
        ? undefined
        : modelFaultTrigger(this.plan.modelFault, spec.scenario, (t) => tools.classOf(t));
    const resetFailure = this.plan.resetCommand !== undefined ? await this.reset() : null;
    const ended: AgentRunEnd =
      resetFailure !== null
        ? { ...NOT_STARTED, failure: resetFailure }
        : await this.agentRun().run(this.context(spec, folder, transcript, notices, stopNow, { tools, modelFault }));
    const { report, conversation, program, sessions, sessionsClosed, honestyAnswer: programHonestyAnswer } = ended;
    // The first request that differs from the recording stopped the model's side: that is why the run
    // ended (printed once, as the run's NOT_TESTED reason).
    let failure = ended.modelMismatch ?? ended.failure;
    if (stopNow?.aborted === true) failure = `interrupted: the run was stopped by a second signal (${String(stopNow.reason)})`;
    // The built-in loop's own tool calls (an agent program's are those its session saw).
    let outcome = runOutcome(
      report,
      failure,
      program === null ? { toolCalls: transcript.toolCalls, malformed: transcript.malformedToolCalls } : undefined,
    );
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
    const agent = describeAgent(this.plan.agent);
    const gateway = agent.kind === 'command' ? agent.gateway : null;
    let facts = runFacts({
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
    const body: Record<string, unknown> = {
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
      agent: runAgent(agent, spec),
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
      // what the backend holds after the run, as the run's report judged it.
      ...(report?.effects !== undefined ? { effects: report.effects } : {}),
      // The agent's claim about the task's write against the ledger; the facts the summary reads.
      honesty: honesty ?? 'NOT_MEASURED',
      ...(honestyNotMeasured !== undefined ? { honestyNotMeasured } : {}),
      ...(gateway !== null ? { modelGateway: gatewayRecord(gateway) } : {}),
      ...(modelFault !== undefined ? { modelFault: modelFault.record() } : {}),
      // docs/replay.md: the upstream was a recording; this run repeats a recorded sample.
      ...(repeatsRecordedSample(this.plan) ? { replayed: true } : {}),
      // the report's own attribution (the one computation), kept in the run file for its readers.
      attribution: attributionOf(report),
      facts,
      // What `replay` needs to run it again (docs/replay.md).
      replaySettings: replaySettingsOf(this.plan, spec, this.upstream),
    };
    const path = `runs/${spec.id}/run.json`;
    let file: string;
    try {
      file = await this.deps.store.writeJson(path, body);
    } catch (error) {
      // The run file could not be made (JSON.stringify past ~512 MB: "Invalid string length"); the file is
      // untouched. That is this run's failure alone: NOT_TESTED with the reason, the file written without
      // its transcript and report. An I/O failure (a full disk) stays the trial's: no later file would fit.
      if (errorCode(error) !== undefined) throw error;
      const reason = `the run file could not be written (${errorMessage(error)}): it was written without its transcript and report, and the run is not judged`;
      // What the upstream executed stays as counted; only the judgement is withdrawn.
      outcome = { ...outcome, verdict: 'NOT_TESTED', reason };
      facts = { ...facts, verdict: 'NOT_TESTED', reason, honesty: 'NOT_MEASURED', lostTransaction: false, abandonedWrite: false };
      this.notice(spec, reason, notices);
      file = await this.deps.store.writeJson(path, {
        ...body,
        verdict: outcome.verdict,
        verdictReason: outcome.reason,
        endpointErrors: [],
        transcript: [],
        notices,
        report: null,
        honesty: 'NOT_MEASURED',
        attribution: [],
        facts,
      });
    }
    this.modelRecorders.delete(spec.id);
    this.traces.delete(spec.id);
    trace?.end({
      facts,
      report,
      honesty,
      failure,
      executions: outcome.executions,
      extraExecutions: outcome.extraExecutions,
    });
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

  /** The run's agent part, by the plan's agent: the built-in loop or the user's program. */
  private agentRun(): AgentRun {
    const agent = this.plan.agent;
    return agent.kind === 'model' ? new BuiltInLoopRun(agent) : new AgentProgramRun(agent);
  }

  /** What the run's agent part (`model-run.ts`, `program-run.ts`) gets from this frame. */
  private context(
    spec: RunSpec,
    folder: RunFolder,
    transcript: Transcript,
    notices: string[],
    stopNow: AbortSignal | undefined,
    fault: RunFault,
  ): RunContext {
    return {
      deps: this.deps,
      plan: this.plan,
      spec,
      folder,
      transcript,
      notices,
      stopNow,
      fault,
      service: (agentSide, sinkFor, stopWhenSessionEnds, modelSide, callObservers) =>
        this.service(spec, folder, agentSide, sinkFor, notices, stopWhenSessionEnds, modelSide, callObservers),
      modelRecorder: () => this.modelRecorders.get(spec.id),
      ...(this.traces.has(spec.id) ? { trace: this.traces.get(spec.id)! } : {}),
    };
  }

  private proxyConfig(spec: RunSpec, folder: RunFolder, stopWhenSessionEnds: boolean): ProxyConfig {
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
      replayed: repeatsRecordedSample(this.plan),
      serverName: this.deps.serverName,
      stopWhenSessionEnds,
      ...(this.plan.effects !== undefined ? { effects: effectsForRun(this.plan.effects, folder) } : {}),
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
        // --otel: the run's sessions nest under its span.
        ...(this.traces.get(spec.id)?.proxyTracing() ?? {}),
        // the effects view reads the run's upstream itself, never through the recording tap.
        ...(await this.upstreamsFor(folder, spec)),
        ...(this.plan.effects?.command !== undefined && this.deps.recordsCommand !== undefined
          ? { effectsCommand: { runner: this.deps.recordsCommand, cwd: this.deps.cwd } }
          : {}),
        agentSide,
        // Every session of the run writes the run's report file: the end lines name it.
        reportTarget: {
          startupSink: sinkFor(1),
          location: folder.reportFile,
          sinkFor: (_sessionId, ordinal) => sinkFor(ordinal),
          pathFor: () => folder.reportFile,
        },
        clock: this.deps.clock,
        ...(this.deps.timer !== undefined ? { timer: this.deps.timer } : {}),
        random: this.deps.randomFor(spec),
        logger: this.deps.logger,
        notice: (line) => this.notice(spec, line, notices),
      },
      this.proxyConfig(spec, folder, stopWhenSessionEnds),
    );
  }

  /** A fresh upstream for the run, recorded into the run's folder when the trial records (the effects view reads it untapped). */
  private async upstreamsFor(folder: RunFolder, spec: RunSpec) {
    const upstream = await this.deps.createUpstream(folder, spec);
    if (this.deps.recordUpstream === undefined) return { upstream };
    try {
      const recording = await this.deps.recordUpstream(upstream, folder, spec);
      this.modelRecorders.set(spec.id, recording.model);
      return { upstream: recording.upstream, effectsUpstream: upstream };
    } catch (error) {
      await upstream.close();
      throw error;
    }
  }

  /** The upstream's tool classification is shown once (the same for every run); other lines name their run. All go in the run file. */
  private notice(spec: RunSpec, line: string, notices: string[]): void {
    notices.push(line);
    const classification = isClassificationLine(line);
    if (!classification) this.deps.notice(`run ${spec.id}: ${line}`);
    else if (!this.shown.has(line)) {
      this.shown.add(line);
      this.deps.notice(line);
    }
  }

  private async reset(): Promise<string | null> {
    const exit = await this.deps.programs.shell(this.plan.resetCommand!, this.deps.cwd, 120_000);
    if (exit.spawnError !== undefined) return `the reset command could not start: ${exit.spawnError}`;
    if (exit.timedOut) return 'the reset command took longer than 120 s';
    if (exit.exitCode !== 0) return `the reset command failed (${exitText(exit)})${stderrTailText(exit.stderrTail)}`;
    return null;
  }
}

/** The effects view of one run: `{run}` and `{run_dir}` in a command view's command and arguments filled in. */
function effectsForRun(view: EffectsViewSettings, run: RunPlace): EffectsViewSettings {
  if (view.command === undefined) return view;
  return { ...view, command: expandPlaceholders(view.command, run), args: expandAll(view.args, run) };
}
