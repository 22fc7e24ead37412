/**
 * `trial --model-replay FILE` (docs/replay.md): the model's side of a run answered from a recording's
 * model lines, in the order they were recorded, by the built-in loop or an agent program's model gateway
 * alike. Each request must be the recorded one (its messages and tools in canonical JSON, tool-call ids
 * left out: they are volatile); the first that is not stops the model's side for the rest of the run, and
 * the run is NOT_TESTED with a short account of the first difference ({@link ReplayChatModel.mismatch}).
 */
import { canonicalJson } from '../../domain/json.js';
import { modelFaultKindLabel, modelFaultOnLabel, type ModelFault } from '../../domain/faults/model-fault.js';
import type { CassetteLine, RecordedModelAnswer, RecordedModelFault } from '../../ports/cassette.port.js';
import type { ChatModel, ChatModelCheck, ChatOutcome, ChatRequest } from '../../ports/chat-model.port.js';

/**
 * One recorded model exchange: the request and its answer; null for one the recording did not keep whole
 * (it had outgrown its size budget), which a replay cannot answer.
 */
export interface RecordedModelExchange {
  request: ChatRequest | null;
  answer: RecordedModelAnswer | null;
}

/** The model exchanges of a recording, in order; an exchange without its answer line is left out. */
export function recordedModelExchanges(lines: readonly CassetteLine[]): RecordedModelExchange[] {
  const requests = new Map<number, ChatRequest | null>();
  const exchanges: RecordedModelExchange[] = [];
  for (const line of lines) {
    if (line.side !== 'model') continue;
    if (line.dir === 'send') requests.set(line.exchange, 'notKept' in line ? null : line.request);
    else {
      const request = requests.get(line.exchange);
      if (request !== undefined) exchanges.push({ request, answer: 'notKept' in line ? null : line.answer });
    }
  }
  return exchanges;
}

/**
 * The exchanges a replay under the recording's own `--model-fault` answers from: the faulted exchange is
 * left out, because the fault in front of the replay injects it again (the request never reaches the
 * replay), and the request after it must then be the recorded one after the fault.
 */
export function withoutInjectedFaults(exchanges: readonly RecordedModelExchange[]): RecordedModelExchange[] {
  return exchanges.filter(({ answer }) => !(answer !== null && 'error' in answer && answer.modelFault !== undefined));
}

/** A model fault as a recording's header names it: `--model-fault` and `--model-fault-on` as the flags write them. */
export function recordedModelFault(fault: ModelFault): RecordedModelFault {
  return { fault: modelFaultKindLabel(fault.fault), on: modelFaultOnLabel(fault.on) };
}

/**
 * Why a recording cannot be replayed under the trial's `--model-fault` (the rest of one line after the
 * recording's name), or null. Under a model fault, the recording must have been made under the same one:
 * the fault is injected again where it was, and the request after it must be the recorded one. Without
 * `--model-fault`, any recording replays (a recorded injected failure is replayed as a failure).
 */
export function modelFaultMismatch(recorded: RecordedModelFault | undefined, given: ModelFault | undefined): string | null {
  if (given === undefined) return null;
  const now = recordedModelFault(given);
  if (recorded !== undefined && recorded.fault === now.fault && recorded.on === now.on) return null;
  const text = (f: RecordedModelFault) => `--model-fault ${f.fault} --model-fault-on ${f.on}`;
  return `was made ${recorded === undefined ? 'without --model-fault' : `under ${text(recorded)}`}, this trial gives ${text(now)}: replay it under the recording's own model fault`;
}

/** The reason's prefix: the run file's `failure`, and what `replay` looks for. */
export const MODEL_REPLAY_MISMATCH = 'model replay mismatch';

export class ReplayChatModel implements ChatModel {
  private next = 0;
  private stopped: string | null = null;

  constructor(private readonly exchanges: readonly RecordedModelExchange[]) {}

  /** Why the replay stopped (the first request that differs from the recording), or null. */
  get mismatch(): string | null {
    return this.stopped;
  }

  complete(request: ChatRequest): Promise<ChatOutcome> {
    if (this.stopped !== null) return Promise.resolve(refused(this.stopped));
    const number = this.next + 1;
    const recorded = this.exchanges[this.next];
    const difference =
      recorded === undefined
        ? `the recording holds ${this.exchanges.length} model request(s), none more`
        : recorded.request === null || recorded.answer === null
          ? 'the recording did not keep it whole (it had outgrown its size budget), so it cannot be replayed'
          : firstDifference(recorded.request, request);
    if (difference !== null) {
      this.stopped = `${MODEL_REPLAY_MISMATCH}: model request ${number} is not the recorded one: ${difference}`;
      return Promise.resolve(refused(this.stopped));
    }
    this.next += 1;
    const answer = recorded!.answer!;
    if ('error' in answer)
      // Live, the run asked again only if the recording goes on: the recorded failure is retryable then.
      return Promise.resolve({
        ok: false,
        failure: { kind: 'http', retryable: this.next < this.exchanges.length, detail: `recorded: ${answer.error}` },
      });
    return Promise.resolve({
      ok: true,
      reply: { content: answer.content, toolCalls: answer.toolCalls.map((c) => ({ ...c })), finishReason: answer.finishReason },
    });
  }

  check(): Promise<ChatModelCheck> {
    return Promise.resolve({ ok: true });
  }
}

function refused(detail: string): ChatOutcome {
  return { ok: false, failure: { kind: 'request', retryable: false, detail } };
}

/** The request as compared: messages and tools only, without tool-call ids. */
function comparable(request: ChatRequest): { messages: unknown[]; tools: unknown[] } {
  return {
    messages: request.messages.map((m) => ({
      role: m.role,
      content: m.content,
      ...(m.toolCalls !== undefined && m.toolCalls.length > 0
        ? { toolCalls: m.toolCalls.map((c) => ({ name: c.name, argumentsText: c.argumentsText })) }
        : {}),
    })),
    tools: [...request.tools],
  };
}

/** The first difference, in one short line, or null when the requests are the same. */
export function firstDifference(recorded: ChatRequest, now: ChatRequest): string | null {
  const a = comparable(recorded);
  const b = comparable(now);
  for (let i = 0; i < Math.max(a.messages.length, b.messages.length); i++) {
    const was = a.messages[i];
    const is = b.messages[i];
    if (was === undefined) return `message ${i + 1} is new: ${short(is)}`;
    if (is === undefined) return `message ${i + 1} is missing (recorded: ${short(was)})`;
    const [wasText, isText] = [canonicalJson(was), canonicalJson(is)];
    if (wasText !== isText) {
      const role = (is as { role: string }).role;
      return `message ${i + 1} (${role}): recorded ${around(wasText, isText)}, now ${around(isText, wasText)}`;
    }
  }
  if (canonicalJson(a.tools) !== canonicalJson(b.tools)) {
    const names = (tools: unknown[]) => tools.map((t) => (t as { name: string }).name).join(', ');
    const sameNames = names(a.tools) === names(b.tools);
    return sameNames
      ? `the tools offered differ (same names: ${names(a.tools)})`
      : `the tools offered differ: recorded [${names(a.tools)}], now [${names(b.tools)}]`;
  }
  return null;
}

/** `text` from a little before where it stops matching `other`, shortened. */
function around(text: string, other: string): string {
  let same = 0;
  while (same < text.length && text[same] === other[same]) same++;
  const from = Math.max(0, same - 20);
  const part = text.slice(from, from + 80);
  return `${from > 0 ? '...' : ''}${part}${from + 80 < text.length ? '...' : ''}`;
}

function short(value: unknown): string {
  const text = canonicalJson(value);
  return text.length <= 160 ? text : `${text.slice(0, 157)}...`;
}
