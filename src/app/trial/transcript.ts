/**
 * The full record of one run's conversation: every message, tool call and result, each with a
 * timestamp, the endpoint's errors, and notes (max steps reached, a malformed tool call). Written into
 * the run file as it is.
 */
import type { ChatMessage } from '../../ports/chat-model.port.js';
import type { Clock } from '../../ports/clock.port.js';

export type TranscriptEntry =
  | { at: string; kind: 'system'; content: string }
  | { at: string; kind: 'user'; turn: number; content: string }
  | {
      at: string;
      kind: 'assistant';
      turn: number;
      step: number;
      content: string | null;
      toolCalls: Array<{ id: string; name: string; arguments: string }>;
    }
  | {
      at: string;
      kind: 'tool-result';
      callId: string;
      tool: string;
      isError: boolean;
      forwarded: boolean;
      content: string;
      /** An agent program's call: what the upstream did with it (`null`: it never reached the upstream) and what the agent was told. */
      upstream?: 'executed' | 'rejected' | 'unknown' | 'unavailable' | null;
      told?: 'answer' | 'error' | 'timeout' | 'cancelled';
    }
  | { at: string; kind: 'note'; text: string }
  /** An agent program's MCP call as the harness received it (`session`: the MCP session's ordinal in the run). */
  | {
      at: string;
      kind: 'mcp-call';
      session: number;
      attempt: number;
      tool: string;
      arguments: unknown;
      /** The write's operation (the report's `operations[].id`); null for reads and unclassified calls. */
      operation?: number | null;
      /** The fault injected into this call (F1 …), or null. */
      fault?: string | null;
    }
  /** A request of an agent program to the model gateway: the whole conversation it sent. */
  | {
      at: string;
      kind: 'model-request';
      exchange: number;
      format: string;
      model: string;
      stream: boolean;
      messages: readonly ChatMessage[];
      tools: string[];
    }
  /** The gateway's answer to it (the model's text and tool calls), or why there was none. */
  | {
      at: string;
      kind: 'model-answer';
      exchange: number;
      status: number;
      content: string | null;
      toolCalls: Array<{ id: string; name: string; arguments: string }>;
      error?: string;
      /** `--model-fault`: the harness answered this request with the fault (e.g. `500`), not the model. */
      fault?: string;
    };

/** Distributes Omit over the union, so each kind keeps its own fields. */
type WithoutTime<T> = T extends unknown ? Omit<T, 'at'> : never;

export interface EndpointError {
  at: string;
  /** 1-based attempt of the model request that failed. */
  attempt: number;
  turn: number;
  step: number;
  kind: string;
  status?: number;
  detail: string;
  /** How long the harness waited before the next attempt (none after the last). */
  waitMs?: number;
  /** `--model-fault`: this failure was the injected fault (e.g. `500`), the request never reached the endpoint. */
  modelFault?: string;
}

/** What made a tool call of the model unreadable (it was answered with an error and never forwarded). */
export type MalformedToolCall = 'arguments not a JSON object' | 'a tool that was not offered';

export class Transcript {
  readonly entries: TranscriptEntry[] = [];
  readonly endpointErrors: EndpointError[] = [];
  /** Tool calls the model made (well-formed or not). */
  toolCalls = 0;
  /** Of those, the ones the harness could not read and never forwarded, by what was wrong. */
  readonly malformedToolCalls = new Map<MalformedToolCall, number>();
  /** Model requests that got an answer. */
  modelCalls = 0;

  constructor(private readonly clock: Clock) {}

  now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  add(entry: WithoutTime<TranscriptEntry>): void {
    this.entries.push({ at: this.now(), ...entry });
  }

  /** An entry that happened at a known time (milliseconds since the epoch), e.g. a gateway exchange's. */
  addAt(at: number, entry: WithoutTime<TranscriptEntry>): void {
    this.entries.push({ at: new Date(at).toISOString(), ...entry });
  }

  /** Counts a tool call of the model that was malformed. */
  malformed(kind: MalformedToolCall): void {
    this.malformedToolCalls.set(kind, (this.malformedToolCalls.get(kind) ?? 0) + 1);
  }

  endpointError(error: Omit<EndpointError, 'at'>): void {
    this.endpointErrors.push({ at: this.now(), ...error });
  }
}
