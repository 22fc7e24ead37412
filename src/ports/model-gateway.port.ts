/**
 * The model gateway of an agent program's run: a model endpoint on 127.0.0.1 that the program reaches
 * through the variables frameworks already read (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, …), answered by
 * a {@link ChatModel} (stub mode: the stub model) or by a real endpoint it forwards every request to
 * (forward mode), every request and answer handed to the run as a {@link ModelExchange}.
 * The adapter: `src/adapters/model-gateway/`.
 */
import type { ChatMessage, ChatModel, ChatReply, ChatRequest } from './chat-model.port.js';
import type { ModelFaultKind } from '../domain/faults/model-fault.js';

export type WireFormatName = 'chat-completions' | 'responses' | 'anthropic-messages';

/** One request the agent program sent to the gateway, and what it was answered. */
export interface ModelExchange {
  /** 1, 2, … in the order the requests arrived. */
  ordinal: number;
  format: WireFormatName;
  model: string;
  stream: boolean;
  /** The whole conversation of the request (a Responses request's earlier turns included). */
  request: ChatRequest;
  /** The model's answer; absent when the request was refused or the model gave none. */
  reply?: ChatReply;
  /** The HTTP status the program got. */
  status: number;
  /** Why there was no answer, or (forward mode) why the answer could not be read back, in one line. */
  error?: string;
  /** The gateway itself refused the request: it named a model the gateway does not serve. */
  notServed?: true;
  /**
   * The gateway could not carry this request through (an answer past its 32 MiB bound once decompressed,
   * an endpoint's invalid status line, a failure of its own): the program got an error instead of the
   * answer, `error` says why, and the run cannot be judged.
   */
  gatewayFailure?: true;
  /** `--model-fault`: this request got the fault (as the flag writes it, e.g. `500`, `429:1`) instead of the model's answer. */
  fault?: string;
  /** Milliseconds since the epoch. */
  receivedAt: number;
  answeredAt: number;
}

/** `--model-fault`: asked once per model request, in arrival order, whether to answer it with a fault. */
export interface ModelFaultDecider {
  decide(messages: readonly ChatMessage[]): ModelFaultKind | null;
}

export interface ModelGatewayOptions {
  model: ChatModel;
  /** The model names the gateway serves; a request naming another is refused 404. */
  models: readonly string[];
  onExchange(exchange: ModelExchange): void;
  /** A model-side fault: the request it picks gets the fault instead of the model's answer. */
  fault?: ModelFaultDecider;
}

/** A gateway listening for one run. */
export interface RunningModelGateway {
  /** `http://127.0.0.1:PORT`: `ANTHROPIC_BASE_URL` and `CUONZTECH_MODEL_URL`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT/v1`: `OPENAI_BASE_URL`. */
  readonly openAiBaseUrl: string;
  /** The run's own key (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`): the only one the gateway accepts. */
  readonly token: string;
  close(): Promise<void>;
}

export type StartModelGateway = (options: ModelGatewayOptions) => Promise<RunningModelGateway>;

/** Forward mode: every request goes to a real endpoint; its answer comes back unchanged. */
export interface ForwardGatewayOptions {
  /** The real endpoint, e.g. `https://api.openai.com/v1`: a request's path after `/v1` is appended to it. */
  baseUrl: string;
  /** The model names the gateway serves; a request naming another is refused 404 and never forwarded. Null: any. */
  models: readonly string[] | null;
  onExchange(exchange: ModelExchange): void;
  /** A model-side fault: the request it picks gets the fault and is never sent to the endpoint. */
  fault?: ModelFaultDecider;
}

/**
 * Who answers one run's model requests: a {@link ChatModel} in this process (stub mode: the stub model;
 * `--model-replay` and `replay`: the recording's model side), or the real endpoint every request is
 * forwarded to (forward mode, `--model NAME --base-url URL`).
 */
export type GatewayAnswers = { kind: 'model'; model: ChatModel } | { kind: 'forward'; baseUrl: string };

/** One run's gateway: who answers, the model names it serves, where each exchange goes, its fault. */
export interface GatewaySpec {
  answers: GatewayAnswers;
  /** A request naming another model is refused 404 (and, forwarding, never sent). */
  models: readonly string[];
  onExchange(exchange: ModelExchange): void;
  /** A model-side fault: the request it picks gets the fault instead of the model's answer. */
  fault?: ModelFaultDecider;
}

/**
 * Starts one run's model gateway (trial, replay): the composition root picks the adapter for each kind of
 * answers, and adds forward mode's real key (never the run's).
 */
export type StartGateway = (spec: GatewaySpec) => Promise<RunningModelGateway>;
