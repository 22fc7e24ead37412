/**
 * Model-side faults (`trial --model-fault KIND --model-fault-on WHEN`): one model request of a run is
 * answered with a failure instead of the model's answer — a 500, a 429 with Retry-After, no answer at all
 * (a time-out), or an answer cut off half-way — and is never sent to the real model. What the agent's
 * runtime does then (re-send the model request, or re-run the whole step and its tool calls) decides
 * whether a completed write runs again.
 *
 * This file decides which request is faulted and with what; rendering the fault in a wire format is the
 * model gateway's (`src/adapters/model-gateway/fault-wire.ts`), the built-in loop's is
 * `src/app/trial/faulting-chat-model.ts`.
 */

export type ModelFaultKind =
  { kind: '500' } | { kind: '429'; retryAfterSeconds: number } | { kind: 'timeout'; ms: number } | { kind: 'cut' };

/** `after-write`: the first request carrying the result of the aimed write; `request`: the n-th request of the run. */
export type ModelFaultOn = { kind: 'after-write' } | { kind: 'request'; n: number };

export interface ModelFault {
  fault: ModelFaultKind;
  on: ModelFaultOn;
}

/** `429` without seconds: Retry-After 1 s (short enough for any client's default retry to honour). */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;
/** `timeout` without MS: the request stays unanswered for 60 s, unless the client gives up first. */
export const DEFAULT_FAULT_TIMEOUT_MS = 60_000;

const MAX_RETRY_AFTER_SECONDS = 3600;
const MAX_TIMEOUT_MS = 3_600_000;

/** `--model-fault KIND`: the fault, or the reason the value is refused (one line). */
export function parseModelFaultKind(text: string): ModelFaultKind | { error: string } {
  const expected = 'expected 500, 429[:SECONDS], timeout[:MS] or cut';
  const [name, value, ...rest] = text.trim().split(':');
  if (rest.length > 0) return { error: `--model-fault ${JSON.stringify(text)}: ${expected}` };
  if (name === '500' || name === 'cut') {
    if (value !== undefined) return { error: `--model-fault ${JSON.stringify(text)}: ${name} takes no value (${expected})` };
    return { kind: name };
  }
  if (name === '429' || name === 'timeout') {
    if (value === undefined)
      return name === '429'
        ? { kind: '429', retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS }
        : { kind: 'timeout', ms: DEFAULT_FAULT_TIMEOUT_MS };
    const max = name === '429' ? MAX_RETRY_AFTER_SECONDS : MAX_TIMEOUT_MS;
    const min = name === '429' ? 0 : 1;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      return {
        error: `--model-fault ${JSON.stringify(text)}: ${name === '429' ? 'SECONDS' : 'MS'} must be a whole number from ${min} to ${max}`,
      };
    return name === '429' ? { kind: '429', retryAfterSeconds: Number(value) } : { kind: 'timeout', ms: Number(value) };
  }
  return { error: `--model-fault ${JSON.stringify(text)}: ${expected}` };
}

/** `--model-fault-on WHEN`: `after-write` or N (the N-th model request of the run, from 1). */
export function parseModelFaultOn(text: string): ModelFaultOn | { error: string } {
  const value = text.trim();
  if (value === 'after-write') return { kind: 'after-write' };
  if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 1_000_000) return { kind: 'request', n: Number(value) };
  return { error: `--model-fault-on ${JSON.stringify(text)}: expected after-write or a request number from 1` };
}

/** The fault as the flag writes it, with its value: `500`, `429:1`, `timeout:60000`, `cut`. */
export function modelFaultKindLabel(fault: ModelFaultKind): string {
  if (fault.kind === '429') return `429:${fault.retryAfterSeconds}`;
  if (fault.kind === 'timeout') return `timeout:${fault.ms}`;
  return fault.kind;
}

export function modelFaultOnLabel(on: ModelFaultOn): string {
  return on.kind === 'after-write' ? 'after-write' : String(on.n);
}

/** What the trigger reads of a model request: its conversation's tool calls and tool results. */
export interface ModelRequestMessage {
  role: string;
  toolCalls?: ReadonlyArray<{ id: string; name: string }>;
  toolCallId?: string;
}

/** The write whose result `after-write` waits for: which tools count, and the how-many-th result of them (the scenario's aim). */
export interface AimedWrite {
  matches(tool: string): boolean;
  on: number;
}

/**
 * Decides, request by request in the order they arrive, the one model request of a run to fault. It
 * fires at most once: the client's own retry of the faulted request is answered as usual.
 */
export class ModelFaultTrigger {
  private requests = 0;
  private faulted: number | null = null;

  constructor(
    readonly config: ModelFault,
    private readonly write: AimedWrite,
  ) {}

  /** The fault for this request (the next one of the run), or null: answer it as usual. */
  decide(messages: readonly ModelRequestMessage[]): ModelFaultKind | null {
    const ordinal = ++this.requests;
    if (this.faulted !== null) return null;
    const hit =
      this.config.on.kind === 'request' ? ordinal === this.config.on.n : writeResults(messages, this.write) >= this.write.on;
    if (!hit) return null;
    this.faulted = ordinal;
    return this.config.fault;
  }

  /** The faulted request's ordinal among the run's model requests (1, 2, …); null while none was. */
  get faultedRequest(): number | null {
    return this.faulted;
  }

  /** The run file's `modelFault`. */
  record(): ModelFaultRecord {
    return {
      kind: modelFaultKindLabel(this.config.fault),
      on: modelFaultOnLabel(this.config.on),
      triggered: this.faulted !== null,
      request: this.faulted,
    };
  }
}

export interface ModelFaultRecord {
  /** As the flag writes it, with its value: `500`, `429:1`, `timeout:60000`, `cut`. */
  kind: string;
  /** `after-write` or the request number. */
  on: string;
  triggered: boolean;
  /** The faulted model request (1, 2, … among the run's model requests), or null. */
  request: number | null;
}

/** How many results of the aimed write's tool calls the conversation carries. */
function writeResults(messages: readonly ModelRequestMessage[], write: AimedWrite): number {
  const names = new Map<string, string>();
  for (const m of messages) for (const call of m.toolCalls ?? []) names.set(call.id, call.name);
  let count = 0;
  for (const m of messages) {
    if (m.role !== 'tool' || m.toolCallId === undefined) continue;
    const name = names.get(m.toolCallId);
    if (name !== undefined && write.matches(name)) count++;
  }
  return count;
}
