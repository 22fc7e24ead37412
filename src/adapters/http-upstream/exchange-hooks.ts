/**
 * The link between the observing fetch and the transport that owns it: where upstream messages go,
 * how an unanswered request is answered for the SDK, and where failures are reported.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { HttpExchangeError, networkFailure, tooLargeFailure, type ExchangeFailure } from './exchange-failure.js';

/** Requests sent in one POST that still wait for their reply, by `String(id)`. */
export type AwaitedReplies = Map<string, RequestId>;

/** What the fetch reports to the transport that owns it. */
export interface ExchangeHooks {
  /** `streamable`: answers come on each POST's response; `sse`: on the one legacy GET stream. */
  channel: 'streamable' | 'sse';
  /** The largest message read from the upstream (a JSON body, one SSE event's data), in bytes. */
  maxMessageBytes: number;
  /** One message text from the upstream: returns the text the SDK gets, or undefined to drop it. */
  incoming(text: string, awaited: AwaitedReplies): string | undefined;
  /** The text of an error reply standing in for a request whose HTTP answer held no usable reply. */
  unanswered(id: RequestId, detail: string): string;
  /** True when the request with this id was cancelled (timeout, abort): its reply is no longer due. */
  abandoned(id: string): boolean;
  /** An exchange failed (any kind, including an HTTP error status). */
  failed(failure: ExchangeFailure): void;
  /** True once the transport is being closed by us: failures caused by that are not reported. */
  closing(): boolean;
}

/**
 * Reports a network error from `fetch` or a body read (unless we caused it by closing or aborting)
 * and returns what the caller should throw in its place.
 */
export function reportNetworkError(hooks: ExchangeHooks, error: unknown): unknown {
  if (hooks.closing() || (error instanceof Error && error.name === 'AbortError')) return error;
  const failure = networkFailure(error);
  hooks.failed(failure);
  return new HttpExchangeError(failure);
}

/**
 * Reports a message over the size limit (the caller has stopped reading it) and returns what the caller
 * should throw or error its stream with.
 */
export function reportTooLarge(hooks: ExchangeHooks): HttpExchangeError {
  const failure = tooLargeFailure(hooks.maxMessageBytes);
  hooks.failed(failure);
  return new HttpExchangeError(failure);
}
