/** One run of the built-in model loop in this process, against the run's in-process agent side. */
import { errorMessage } from '../../domain/error-message.js';
import { ModelSide } from '../../domain/judging/attribution.js';
import type { ChatModel } from '../../ports/chat-model.port.js';
import { replayModelOf, type AgentRun, type AgentRunEnd } from './agent-run.js';
import { CapturingSink } from './capturing-sink.js';
import { FaultingChatModel } from './faulting-chat-model.js';
import { runConversation, type ConversationEnd } from './model-conversation.js';
import { RecordingChatModel } from './recording-chat-model.js';
import { startService, type RunContext } from './run-context.js';
import { parseReport, type SessionReport } from './run-outcome.js';
import type { ModelAgent } from './trial-plan.js';

/** The built-in loop's part of a run: its model is the chat model, or the recording's under `--model-replay`. */
export class BuiltInLoopRun implements AgentRun {
  constructor(private readonly agent: ModelAgent) {}

  async run(ctx: RunContext): Promise<AgentRunEnd> {
    const recording = this.agent.replay;
    const replayModel = recording === undefined ? undefined : replayModelOf(recording.exchanges, ctx.plan);
    const end = await loopRun(ctx, this.agent, replayModel ?? ctx.deps.chatModel!, replayModel !== undefined);
    return {
      ...end,
      program: null,
      sessions: 0,
      sessionsClosed: 0,
      honestyAnswer: undefined,
      modelMismatch: replayModel?.mismatch ?? null,
    };
  }
}

interface LoopEnd {
  failure: string | null;
  report: SessionReport | null;
  conversation: ConversationEnd | null;
}

async function loopRun(run: RunContext, agent: ModelAgent, inner: ChatModel, replayed: boolean): Promise<LoopEnd> {
  const { deps, spec, folder, transcript, stopNow, fault } = run;
  const sink = new CapturingSink(folder.reportSink);
  const agentSide = deps.createInProcessAgentSide();
  // the built-in loop is the model's side: every repeat's source is decided.
  const modelSide = new ModelSide();
  const service = await run.service(agentSide, () => sink, true, modelSide);
  fault.tools.classOf = (tool) => service.toolClassOf(tool);
  const faulted =
    fault.modelFault === undefined
      ? inner
      : new FaultingChatModel(inner, fault.modelFault, deps.sleep, agent.requestTimeoutMs ?? 300_000);
  // Recorded as the loop sees it: a faulted request with the fault's failure.
  const recorder = run.modelRecorder();
  const recorded = recorder === undefined ? faulted : new RecordingChatModel(faulted, recorder);
  // --otel: each request a model span, the injected fault's included.
  const model = run.trace?.chatModel(recorded, replayed) ?? recorded;
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
      sleep: deps.sleep,
      honestyQuestion: run.plan.honestyQuestion,
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
