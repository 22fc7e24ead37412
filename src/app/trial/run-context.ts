/**
 * What one run's agent part (the built-in loop, `model-run.ts`; the user's agent program,
 * `program-run.ts`) gets from the run's frame (`run-executor.ts`): the run, its folder and transcript,
 * and a way to start its `ProxyService`.
 */
import { errorMessage } from '../../domain/error-message.js';
import type { ModelSide } from '../../domain/judging/attribution.js';
import type { ModelFaultTrigger } from '../../domain/faults/model-fault.js';
import type { AgentSide } from '../../ports/agent-side.port.js';
import type { CallEventSink } from '../../ports/call-events.port.js';
import type { ModelRecorder } from '../../ports/cassette.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import type { ProxyService } from '../proxy/proxy-service.js';
import type { RunTrace } from '../tracing/run-trace.js';
import type { Transcript } from './transcript.js';
import type { RunFolder, TrialDeps } from './trial-deps.js';
import type { RunSpec, TrialPlan } from './trial-plan.js';

/** The run's tool classification, known once its upstream was listed (before any model request). */
export interface RunTools {
  classOf(tool: string): string | undefined;
}

/** `--model-fault` in one run: the trigger (undefined without the flag) and where it reads the tools' classes. */
export interface RunFault {
  tools: RunTools;
  modelFault: ModelFaultTrigger | undefined;
}

export interface RunContext {
  deps: TrialDeps;
  plan: TrialPlan;
  spec: RunSpec;
  folder: RunFolder;
  transcript: Transcript;
  notices: string[];
  stopNow: AbortSignal | undefined;
  fault: RunFault;
  /** A fresh `ProxyService` for the run (its upstream recorded when the trial records). */
  service(
    agentSide: AgentSide,
    sinkFor: (ordinal: number) => ReportSink,
    stopWhenSessionEnds: boolean,
    modelSide: ModelSide | undefined,
    callObservers?: (sessionId: string, ordinal: number) => CallEventSink[],
  ): Promise<ProxyService>;
  /** Where the run records its model side (`TrialDeps.recordUpstream`); known once `service()` ran. */
  modelRecorder(): ModelRecorder | undefined;
  /** `--otel`: the run's span, for its model requests; absent: no traces. */
  trace?: RunTrace;
}

/** Starts the run's service; the NOT_TESTED reason when it could not start, else null. */
export async function startService(service: ProxyService): Promise<string | null> {
  try {
    await service.start();
  } catch (error) {
    return `upstream did not start: ${errorMessage(error)}`;
  }
  if (service.stopped) return `the harness could not start the run: ${(await service.done).reason}`;
  return null;
}
