/**
 * `--model-fault` for one run: the trigger that picks the faulted model request (the rule is
 * `src/domain/faults/model-fault.ts`), aimed at the scenario's write, and the built-in loop's model with the
 * fault in front of it. The agent programs' gateway renders the same decision on the wire
 * (`src/adapters/model-gateway/fault-wire.ts`).
 */
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { globMatch } from '../../domain/text/glob.js';
import { modelFaultKindLabel, ModelFaultTrigger, type ModelFault, type ModelFaultKind } from '../../domain/faults/model-fault.js';
import type { ChatFailure, ChatModel, ChatModelCheck, ChatOutcome, ChatRequest } from '../../ports/chat-model.port.js';

/**
 * The run's trigger. `after-write` waits for the result of the write the scenario is aimed at (its tools
 * and its `on`-th write; without a scenario, the first write of any tool); `toolClassOf` is the run's
 * classification of the upstream's tools.
 */
export function modelFaultTrigger(
  fault: ModelFault,
  scenario: ScenarioConfig,
  toolClassOf: (tool: string) => string | undefined,
): ModelFaultTrigger {
  const aim = scenario.mode === 'scenario' ? scenario.aim : undefined;
  const tools = aim?.tools ?? null;
  return new ModelFaultTrigger(fault, {
    matches: (tool) => toolClassOf(tool) === 'write' && (tools === null || tools.some((glob) => globMatch(glob, tool))),
    on: aim?.on ?? 1,
  });
}

/**
 * The built-in loop's model with the fault in front: the faulted request never reaches the endpoint and
 * ends as the endpoint adapter would have ended it — a retryable HTTP failure (500; 429 with its
 * Retry-After), a time-out after the fault's time or the loop's own `--model-timeout`, whichever is
 * shorter, or a connection broken off (`cut`). The loop's own retry (`--model-retries`) does the rest.
 */
export class FaultingChatModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    private readonly trigger: ModelFaultTrigger,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly requestTimeoutMs: number,
  ) {}

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatOutcome> {
    const fault = this.trigger.decide(request.messages);
    if (fault === null) return this.inner.complete(request, signal);
    if (fault.kind === 'timeout') {
      const ms = Math.min(fault.ms, this.requestTimeoutMs);
      const stop = aborted(signal);
      await Promise.race([this.sleep(ms), stop.promise]);
      stop.release();
      return { ok: false, failure: failureOf(fault, ms) };
    }
    return { ok: false, failure: failureOf(fault, 0) };
  }

  check(): Promise<ChatModelCheck> {
    return this.inner.check();
  }
}

function failureOf(fault: ModelFaultKind, waitedMs: number): ChatFailure {
  const modelFault = modelFaultKindLabel(fault);
  switch (fault.kind) {
    case '500':
      return {
        kind: 'http',
        retryable: true,
        status: 500,
        detail: 'model fault 500: HTTP 500 (injected by the harness)',
        modelFault,
      };
    case '429':
      return {
        kind: 'http',
        retryable: true,
        status: 429,
        retryAfterMs: fault.retryAfterSeconds * 1000,
        detail: `model fault 429: HTTP 429, Retry-After ${fault.retryAfterSeconds} s (injected by the harness)`,
        modelFault,
      };
    case 'timeout':
      return {
        kind: 'timeout',
        retryable: true,
        detail: `model fault timeout: no answer within ${waitedMs} ms (injected by the harness)`,
        modelFault,
      };
    case 'cut':
      return {
        kind: 'network',
        retryable: true,
        detail: 'model fault cut: the answer was broken off half-way (injected by the harness)',
        modelFault,
      };
  }
}

/** Resolves when the trial is stopped at once; `release` takes the listener off (the signal outlives the run). */
function aborted(signal: AbortSignal | undefined): { promise: Promise<void>; release(): void } {
  let onAbort = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal?.aborted === true) resolve();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, release: () => signal?.removeEventListener('abort', onAbort) };
}
