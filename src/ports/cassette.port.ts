/**
 * A recording (`cassette.jsonl`, format in `docs/replay.md`): the messages the harness exchanged with the
 * upstream, in JSON-RPC form, one per line after a header. Written beside every trial run file and beside
 * a `proxy --journal` with `--journal-payloads on`; served back by `--upstream-replay FILE`.
 */
import type { ChatReply, ChatRequest } from './chat-model.port.js';
import type { UpstreamCallOutcome } from './upstream-side.port.js';

/** The `cassette` field of a header: names the format, so another JSON Lines file is never taken for one. */
export const CASSETTE_FORMAT = 'cuonztech-agent-harness/cassette';
/** The format's version (the header's `v`). A reader refuses every other version. */
export const CASSETTE_VERSION = 1;
/** What a redacted value is replaced with (`src/domain/text/redaction.ts`). */
export { REDACTED_VALUE } from '../domain/text/redaction.js';

/** The first line. */
export interface CassetteHeader {
  cassette: typeof CASSETTE_FORMAT;
  v: typeof CASSETTE_VERSION;
  harnessVersion: string;
  /** What was recorded: `proxy`, or `trial run <id>`. */
  recorded: string;
  /** Who the upstream was: its `serverInfo` and a hash of its tool list (every tool, canonical JSON). */
  upstream: { serverName: string | null; serverVersion: string | null; tools: number; toolsHash: string };
  /** The argument, result and message fields whose values were replaced by `[REDACTED]` (`--redact`). */
  redacted: string[];
  /**
   * `trial --model-fault`: the model fault the run was recorded under (`fault` and `on` as the flags write
   * them, `500`, `after-write`). Absent when none. A `--model-replay` with another model fault is refused.
   */
  modelFault?: RecordedModelFault;
}

/** The model fault of a recording's header: `--model-fault` and `--model-fault-on` as written. */
export interface RecordedModelFault {
  fault: string;
  on: string;
}

/** A JSON-RPC message as recorded: a request, a notification, a result or an error answer. */
export type RecordedMessage = Record<string, unknown> & { jsonrpc: '2.0' };

/** How a request that got no answer ended (a timeout, a lost connection, a replay miss …). */
export type NoAnswer = Exclude<UpstreamCallOutcome, { kind: 'result' } | { kind: 'protocol-error' }>;

/** The model's answer to a request as recorded, or why there was none. */
export type RecordedModelAnswer =
  | Pick<ChatReply, 'content' | 'toolCalls' | 'finishReason'>
  /** `modelFault`: the harness injected this failure (`--model-fault`, as the flag writes it); absent for a real one. */
  | { error: string; modelFault?: string };

/**
 * A body the recording did not keep whole, past its size budget (`docs/replay.md`, Limits): the size of
 * the line it would have been, the sha256 of that line and its first characters. A replay that reaches it
 * is a miss, never a guess.
 */
export interface NotKept {
  bytes: number;
  sha256: string;
  preview: string;
}

/** One line after the header. */
export type CassetteLine =
  /** `notKept`: the message's body (params, result, error) was not kept; `id`, `method` and a call's tool name are. */
  | { side: 'upstream'; dir: 'send' | 'receive'; message: RecordedMessage; notKept?: NotKept }
  | { side: 'upstream'; dir: 'receive'; id: number; noAnswer: NoAnswer }
  /** A model request the harness saw (the built-in loop's, or an agent program's through the gateway). */
  | { side: 'model'; dir: 'send'; exchange: number; request: ChatRequest }
  | { side: 'model'; dir: 'receive'; exchange: number; answer: RecordedModelAnswer }
  /** A model request or answer not kept (past the size budget). */
  | { side: 'model'; dir: 'send' | 'receive'; exchange: number; notKept: NotKept }
  /** The recording reached its size limit: nothing after this line was recorded. */
  | { side: 'recording'; stopped: string };

/**
 * Where the model's side of a run goes into its recording, in the order it happens: each request, then
 * its answer (or why there was none). `exchange` numbers them 1, 2, … in the run.
 */
export interface ModelRecorder {
  request(request: ChatRequest): number;
  answer(exchange: number, answer: RecordedModelAnswer): void;
}
